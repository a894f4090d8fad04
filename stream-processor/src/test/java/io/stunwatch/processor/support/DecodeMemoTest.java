package io.stunwatch.processor.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;

/** {@link DecodeMemo} decodes the same bytes once, whatever array they come in, and only the last it was sized for. */
class DecodeMemoTest {

  /** Strings decoded by a counting deserializer: each decode is a new instance. */
  private static Serde<String> counting(AtomicInteger decodes) {
    return Serdes.serdeFrom(Serdes.String().serializer(), (topic, b) -> {
      decodes.incrementAndGet();
      return new String(b, StandardCharsets.UTF_8);
    });
  }

  @Test
  void theSameBytesAreDecodedOnceEvenInAnArrayTheCallerReuses() {
    AtomicInteger decodes = new AtomicInteger();
    Deserializer<String> d = new DecodeMemo<>(counting(decodes), 10).deserializer();
    byte[] buffer = "model:T4-16C".getBytes(StandardCharsets.UTF_8);
    String first = d.deserialize("t", buffer);
    buffer[0] = 'X'; // the caller's array, reused for another value
    assertThat(d.deserialize("t", buffer)).isEqualTo("Xodel:T4-16C");
    assertThat(d.deserialize("t", "model:T4-16C".getBytes(StandardCharsets.UTF_8))).isSameAs(first);
    assertThat(decodes).hasValue(2);
    assertThat(d.deserialize("t", null)).isNull();
  }

  @Test
  void onlyTheLastValuesItWasSizedForAreKept() {
    AtomicInteger decodes = new AtomicInteger();
    Deserializer<String> d = new DecodeMemo<>(counting(decodes), 2).deserializer();
    for (String s : new String[] {"a", "b", "c", "a"}) {
      d.deserialize("t", s.getBytes(StandardCharsets.UTF_8));
    }
    assertThat(decodes).as("a was let go when c came").hasValue(4);
    d.deserialize("t", "c".getBytes(StandardCharsets.UTF_8));
    assertThat(decodes).hasValue(4);
  }
}
