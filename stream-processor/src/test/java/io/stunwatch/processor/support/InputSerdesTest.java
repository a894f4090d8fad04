package io.stunwatch.processor.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.ThroughputSample.ThroughputScope;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

class InputSerdesTest {

  private static final String VM = "42100000-0000-4000-8000-000000000001";
  private static final String OTHER = "42100000-0000-4000-8000-000000000002";

  private static byte[] bytes(String key) {
    return key.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void equalKeysDecodeToTheInstanceOfTheFirst() {
    InputSerdes.CanonicalKeys keys = new InputSerdes.CanonicalKeys(InputSerdes.MAX_KEYS);
    String first = keys.deserialize("t", bytes(VM));
    String second = keys.deserialize("t", bytes(VM));
    assertThat(second).isEqualTo(VM).isSameAs(first);
    assertThat(keys.deserialize("t", bytes(OTHER))).isEqualTo(OTHER);
    assertThat(keys.deserialize("t", bytes(VM))).isSameAs(first);
    assertThat(keys.deserialize("t", null)).isNull();
  }

  @Test
  void pastTheBoundTheKeysStartOverAndStillDecodeRight() {
    InputSerdes.CanonicalKeys keys = new InputSerdes.CanonicalKeys(2);
    String first = keys.deserialize("t", bytes(VM));
    keys.deserialize("t", bytes(OTHER));
    keys.deserialize("t", bytes("42100000-0000-4000-8000-000000000003")); // a third: the map starts over
    String again = keys.deserialize("t", bytes(VM));
    assertThat(again).isEqualTo(VM).isNotSameAs(first);
  }

  @Test
  void aTopicsValuesDecodeAsTheirSharedTypeAndARecordWithNoValueIsRefused() {
    Serde<VmInput> serde = InputSerdes.of(Topics.THROUGHPUT_SAMPLES);
    ThroughputSample s = new ThroughputSample(VM, "gpu-vm-00", Instant.parse("2026-11-26T10:00:00Z"), "resnet50",
        ThroughputScope.STEP, 240.5, "images/sec");
    byte[] encoded = serde.serializer().serialize(Topics.THROUGHPUT_SAMPLES.name(), s);
    assertThat(serde.deserializer().deserialize(Topics.THROUGHPUT_SAMPLES.name(), encoded)).isEqualTo(s);
    assertThatThrownBy(() -> serde.deserializer().deserialize(Topics.THROUGHPUT_SAMPLES.name(), null))
        .isInstanceOf(SerializationException.class).hasMessageContaining("no value");
  }
}
