package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

class KafkaSampleSinkTest {

  /**
   * A batch the broker turns away (a partition whose leadership it is still taking) must not be overtaken by the next
   * one: the broker can append that one as the partition's first, and the first batch's sequence then never fits
   * again; it is retried as OUT_OF_ORDER_SEQUENCE_NUMBER until the outage bound drops it. One request in flight
   * leaves nothing to overtake it.
   */
  @Test
  void theProducerIsIdempotentWithOneRequestInFlightAndRetriesUntilTheOutageBound() {
    Map<String, Object> p = KafkaSampleSink.producerProperties(new DeliveryConfig(Duration.ofMinutes(5), 1000),
        Map.of("bootstrap.servers", "localhost:9092"));
    assertThat(p).containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
        .containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
        .containsEntry(ProducerConfig.ACKS_CONFIG, "all")
        .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 300_000);
  }
}
