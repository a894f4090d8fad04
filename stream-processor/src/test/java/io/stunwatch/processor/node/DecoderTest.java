package io.stunwatch.processor.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.ThroughputSample.ThroughputScope;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class DecoderTest {

  private static final Instant AT = Instant.parse("2026-11-26T10:00:00Z");
  private static final String VM = "42100000-0000-4000-8000-000000000001";

  private MockProcessorContext<String, Object> context;

  @BeforeEach
  void setUp() {
    context = new MockProcessorContext<>();
  }

  private Decoder<ThroughputSample> started(int maxKeys) {
    Decoder<ThroughputSample> d = new Decoder<>(Topics.THROUGHPUT_SAMPLES, Clock.fixed(AT, ZoneOffset.UTC),
        "throughput-samples-undecodable", maxKeys);
    d.init(context);
    return d;
  }

  private static Record<String, byte[]> record(String key, int second) {
    ThroughputSample s = new ThroughputSample(VM, "gpu-vm-00", AT.plusSeconds(second), "resnet50",
        ThroughputScope.STEP, 240.5, "images/sec");
    // A new string for each record, as the source's key deserializer makes one.
    return new Record<>(new String(key.toCharArray()), Topics.THROUGHPUT_SAMPLES.encodeValue(s),
        AT.plusSeconds(second).toEpochMilli());
  }

  private List<String> forwardedKeys() {
    return context.forwarded().stream().map(f -> (String) f.record().key()).toList();
  }

  @Test
  void recordsWithEqualKeysGoOnWithTheInstanceOfTheFirst() {
    Decoder<ThroughputSample> d = started(Decoder.MAX_KEYS);
    d.process(record(VM, 0));
    d.process(record(VM, 1));
    d.process(record("42100000-0000-4000-8000-000000000002", 2));
    d.process(record(VM, 3));

    List<String> keys = forwardedKeys();
    assertThat(keys).containsExactly(VM, VM, "42100000-0000-4000-8000-000000000002", VM);
    assertThat(keys.get(1)).isSameAs(keys.get(0));
    assertThat(keys.get(3)).isSameAs(keys.get(0));
    assertThat(context.forwarded())
        .allSatisfy(f -> assertThat(f.record().value()).isInstanceOf(ThroughputSample.class));
  }

  @Test
  void pastItsBoundTheTaskStartsOverWithTheKeyThatCrossedIt() {
    Decoder<ThroughputSample> d = started(2);
    d.process(record("a", 0));
    d.process(record("b", 1));
    d.process(record("c", 2)); // a third key: the held ones are forgotten, "c" kept
    d.process(record("a", 3));
    d.process(record("c", 4));

    List<String> keys = forwardedKeys();
    assertThat(keys).containsExactly("a", "b", "c", "a", "c");
    assertThat(keys.get(3)).isNotSameAs(keys.get(0)); // "a" was forgotten and is held anew
    assertThat(keys.get(4)).isSameAs(keys.get(2));
  }

  @Test
  void aNullKeyStaysNullAndAnUndecodableValueGoesToTheDeadLettersByName() {
    Decoder<ThroughputSample> d = started(Decoder.MAX_KEYS);
    d.process(new Record<>(null, Topics.THROUGHPUT_SAMPLES.encodeValue(new ThroughputSample(VM, "gpu-vm-00", AT,
        "resnet50", ThroughputScope.STEP, 1.0, "images/sec")), AT.toEpochMilli()));
    d.process(new Record<>(VM, "{not json".getBytes(StandardCharsets.UTF_8), AT.toEpochMilli()));

    assertThat(context.forwarded()).hasSize(2);
    assertThat(context.forwarded().get(0).record().key()).isNull();
    var dead = context.forwarded().get(1);
    assertThat(dead.childName()).contains("throughput-samples-undecodable");
    assertThat(dead.record().key()).isEqualTo(Topics.THROUGHPUT_SAMPLES.name());
    assertThat(dead.record().value()).isInstanceOf(DeadLetter.class);
  }
}
