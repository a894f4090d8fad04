package io.stunwatch.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

class KafkaMeterFiltersTest {

  @Test
  void everyKindOfStoresMetricIsTakenUnderOneNameAndOneStoreTag() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KafkaMeterFilters.all().forEach(registry.config()::meterFilter);
    Gauge.builder("kafka.stream.state.block.cache.usage", () -> 1.0).tag("rocksdb.state.id", "impacts")
        .register(registry);
    Gauge.builder("kafka.stream.state.block.cache.usage", () -> 2.0).tag("rocksdb.window.state.id", "vm-load-10s")
        .register(registry);
    Gauge.builder("kafka.stream.state.block.cache.usage", () -> 3.0)
        .tag("in.memory.window.state.id", "vm-sample-blocks").register(registry);

    Gauge.builder("kafka.stream.state.block.cache.usage", () -> 4.0).tag("in.memory.state.id", "impacts")
        .register(registry);

    assertThat(registry.scrape())
        .contains("kafka_stream_state_block_cache_usage{state_id=\"impacts\",store_kind=\"rocksdb\"} 1.0")
        .contains("kafka_stream_state_block_cache_usage{state_id=\"vm-load-10s\",store_kind=\"rocksdb.window\"} 2.0")
        .contains("kafka_stream_state_block_cache_usage{state_id=\"vm-sample-blocks\","
            + "store_kind=\"in.memory.window\"} 3.0")
        .contains("kafka_stream_state_block_cache_usage{state_id=\"impacts\",store_kind=\"in.memory\"} 4.0");
  }
}
