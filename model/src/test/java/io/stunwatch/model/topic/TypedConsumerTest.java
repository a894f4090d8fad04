package io.stunwatch.model.topic;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Samples;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.internals.AutoOffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TypedConsumerTest {

  private static final String TOPIC = Topics.GPU_SAMPLES.name();
  private final TopicPartition tp = new TopicPartition(TOPIC, 2);
  private final List<RecordDecodeException> failures = new ArrayList<>();
  private MockConsumer<byte[], byte[]> mock;
  private TypedConsumer<String, GpuSample> consumer;

  @BeforeEach
  void setUp() {
    mock = new MockConsumer<>(AutoOffsetResetStrategy.EARLIEST.name());
    mock.assign(List.of(tp));
    mock.updateBeginningOffsets(Map.of(tp, 0L));
    consumer = new TypedConsumer<>(Topics.GPU_SAMPLES, mock, (raw, e) -> failures.add(e));
  }

  @Test
  void anUndecodableRecordIsReportedWithItsCoordinatesAndTheNextOneStillArrives() {
    GpuSample good = Samples.gpu();
    add(0, Topics.GPU_SAMPLES.encodeValue(good));
    add(1, "garbage".getBytes(StandardCharsets.UTF_8));
    add(2, new byte[] {0, (byte) 0xff});
    add(3, Topics.GPU_SAMPLES.encodeValue(good));

    List<TypedRecord<String, GpuSample>> got = consumer.poll(Duration.ZERO);

    assertThat(got).extracting(TypedRecord::offset).containsExactly(0L, 3L);
    assertThat(got).extracting(TypedRecord::value).containsOnly(good);
    assertThat(failures).extracting(RecordDecodeException::offset).containsExactly(1L, 2L);
    assertThat(failures.get(0).getMessage()).startsWith(
        "cannot decode record at topic stunwatch.gpu-samples, partition 2, offset 1: value: not valid JSON at line 1");
    assertThat(failures.get(0).partition()).isEqualTo(2);
    assertThat(consumer.decodeFailures()).isEqualTo(2);
    assertThat(consumer.decodedCount()).isEqualTo(2);
  }

  @Test
  void aTombstoneDecodesToANullValue() {
    add(0, null);
    List<TypedRecord<String, GpuSample>> got = consumer.poll(Duration.ZERO);
    assertThat(got).singleElement().satisfies(r -> {
      assertThat(r.key()).isEqualTo(Samples.VM);
      assertThat(r.value()).isNull();
    });
    assertThat(failures).isEmpty();
  }

  private void add(long offset, byte[] value) {
    mock.addRecord(new ConsumerRecord<>(TOPIC, tp.partition(), offset, Samples.VM.getBytes(StandardCharsets.UTF_8),
        value));
  }
}
