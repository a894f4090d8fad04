package io.stunwatch.processor.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.junit.jupiter.api.Test;

class DeadLetterDeserializationExceptionHandlerTest {

  private static final Instant NOW = Instant.parse("2026-12-02T08:00:00Z");
  private static final long AT = Instant.parse("2026-12-02T07:59:00Z").toEpochMilli();

  private static DeadLetterDeserializationExceptionHandler handler() {
    DeadLetterDeserializationExceptionHandler h = new DeadLetterDeserializationExceptionHandler();
    h.configure(Map.of(DeadLetterDeserializationExceptionHandler.CLOCK_CONFIG, Clock.fixed(NOW, ZoneOffset.UTC)));
    return h;
  }

  private static ConsumerRecord<byte[], byte[]> record(String topic, byte[] value) {
    return new ConsumerRecord<>(topic, 3, 41, AT, TimestampType.CREATE_TIME, 8, value == null ? -1 : value.length,
        "vc-1/vm-7".getBytes(StandardCharsets.UTF_8), value, new RecordHeaders(), Optional.empty());
  }

  @Test
  void aValueThatDoesNotDecodeBecomesADeadLetterKeyedByItsTopicAndProcessingGoesOn() {
    byte[] garbage = "{not json".getBytes(StandardCharsets.UTF_8);
    ConsumerRecord<byte[], byte[]> r = record(Topics.VCENTER_EVENTS.name(), garbage);
    Exception e;
    try {
      Topics.VCENTER_EVENTS.valueSerde().deserializer().deserialize(r.topic(), garbage);
      throw new AssertionError("decoded");
    } catch (RuntimeException ex) {
      e = ex;
    }

    DeserializationExceptionHandler.Response response = handler().handleError(null, r, e);

    assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
    assertThat(response.deadLetterQueueRecords()).hasSize(1);
    ProducerRecord<byte[], byte[]> out = response.deadLetterQueueRecords().get(0);
    assertThat(out.topic()).isEqualTo(Topics.DEAD_LETTERS.name());
    assertThat(new String(out.key(), StandardCharsets.UTF_8)).isEqualTo(Topics.VCENTER_EVENTS.name());
    assertThat(out.timestamp()).isEqualTo(AT);
    DeadLetter d = Topics.DEAD_LETTERS.valueSerde().decode(out.value());
    assertThat(d.sourceTopic()).isEqualTo(Topics.VCENTER_EVENTS.name());
    assertThat(d.partition()).isEqualTo(3);
    assertThat(d.offset()).isEqualTo(41);
    assertThat(d.stage()).isEqualTo(DeadLetter.Stage.DESERIALIZATION);
    assertThat(d.reason()).startsWith("value: not valid JSON");
    assertThat(d.valuePreview()).isEqualTo("{not json");
    assertThat(d.failedAt()).isEqualTo(NOW);
  }

  @Test
  void aGlobalStoresTopicHasNoTransactionToAddTo() {
    ConsumerRecord<byte[], byte[]> r = record(Topics.VM_INVENTORY.name(), new byte[] {1});
    DeserializationExceptionHandler.Response response = handler().handleError(null, r,
        new IllegalStateException("bad"));
    assertThat(response.result()).isEqualTo(DeserializationExceptionHandler.Result.RESUME);
    assertThat(response.deadLetterQueueRecords()).isEmpty();
  }
}
