package io.stunwatch.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.junit.jupiter.api.Test;

class KafkaStreamsMetersTest {

  @Test
  void aStoresUncommittedBytesAreNeverReadAndEveryOtherMetricIsBoundUnderMicrometersName() throws Exception {
    AtomicInteger unsafeReads = new AtomicInteger();
    try (Metrics kafka = new Metrics()) {
      Map<String, String> store = Map.of("thread-id", "t-1", "task-id", "0_1", "rocksdb-state-id", "impacts");
      // Kafka 4.4's gauge reads the store's native write batch with no open check: read while the store closes,
      // it kills the JVM; a read here stands for that
      kafka.addMetric(new MetricName("uncommitted-bytes", "stream-state-metrics", "", store),
          (Gauge<Long>) (config, now) -> {
            unsafeReads.incrementAndGet();
            return 0L;
          });
      kafka.addMetric(new MetricName("block-cache-usage", "stream-state-metrics", "", store),
          (Gauge<Long>) (config, now) -> 4096L);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (AutoCloseable bound = KafkaStreamsMeters.bind(kafka::metrics, registry)) {
        assertThat(registry.get("kafka.stream.state.block.cache.usage").gauge().value()).isEqualTo(4096.0);
        assertThat(registry.find("kafka.stream.state.uncommitted.bytes").meters()).isEmpty();
        registry.getMeters().forEach(m -> m.measure().forEach(x -> x.getValue()));
      }
      assertThat(unsafeReads.get()).as("reads of uncommitted-bytes").isZero();
    }
  }
}
