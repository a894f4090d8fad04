package io.stunwatch.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.topic.DecodeFailureHandler;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.model.topic.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaBrokerIT {

  @TempDir
  Path dataDir;

  @Test
  void restartOnTheSameDataDirectoryKeepsClusterIdTopicsAndRecords() throws Exception {
    List<GpuSample> sent = new ArrayList<>();
    String clusterId;
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(dataDir))) {
      clusterId = broker.clusterId();
      assertThat(broker.createdTopics()).hasSameSizeAs(Topics.ALL);
      try (TypedProducer producer = TypedProducer.create(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
          ProducerConfig.ACKS_CONFIG, "all"))) {
        for (int i = 0; i < 20; i++) {
          GpuSample s = sample(i);
          producer.send(Topics.GPU_SAMPLES, s.vmId(), s, s.timestamp()).get();
          sent.add(s);
        }
      }
    }

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(dataDir))) {
      assertThat(broker.clusterId()).isEqualTo(clusterId);
      assertThat(broker.createdTopics()).as("topics survive the restart, so none is created again").isEmpty();
      assertThat(readAll(broker)).containsExactlyInAnyOrderElementsOf(sent);
      try (Admin admin = Admin.create(broker.clientConfig())) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, Topics.VM_INVENTORY.name());
        ConfigEntry policy = admin.describeConfigs(List.of(r)).all().get().get(r)
            .get(TopicConfig.CLEANUP_POLICY_CONFIG);
        assertThat(policy.value()).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
      }
    }
  }

  private static List<GpuSample> readAll(EmbeddedKafkaBroker broker) {
    List<GpuSample> got = new ArrayList<>();
    try (TypedConsumer<String, GpuSample> consumer = TypedConsumer.create(Topics.GPU_SAMPLES, Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
        (raw, e) -> { throw e; })) {
      consumer.assignAllFromBeginning(Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (got.size() < 20 && System.nanoTime() < deadline) {
        for (TypedRecord<String, GpuSample> r : consumer.poll(Duration.ofMillis(500))) {
          got.add(r.value());
        }
      }
    }
    return got;
  }

  private static GpuSample sample(int i) {
    return new GpuSample("4c4c4544-0042-3510-8052-b4c04f4e3232", "worker-01",
        Instant.parse("2026-11-21T12:00:00Z").plusSeconds(i), 0, "GPU-1", "GRID T4-16C", "00000000:02:00.0",
        50.0 + i, 10.0, 8000L + i, 16384L, null, null, 1590L, "P0", null);
  }
}
