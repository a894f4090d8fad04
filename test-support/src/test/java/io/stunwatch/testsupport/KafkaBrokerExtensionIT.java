package io.stunwatch.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.model.topic.TypedRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class KafkaBrokerExtensionIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();

  @Test
  void sharedBrokerHasEveryCatalogTopic() throws Exception {
    try (Admin admin = Admin.create(KAFKA.broker().clientConfig())) {
      assertThat(admin.listTopics().names().get()).containsAll(Topics.ALL.stream().map(Topic::name).toList());
    }
  }

  @Test
  void compactedTopicCarriesAValueAndItsTombstoneThroughARealBroker() throws Exception {
    // Inventory deletions are tombstones: the null value must survive the real wire path as null, not as garbage.
    String key = "vc-ext-it/vm-" + System.nanoTime();
    try (TypedProducer producer = TypedProducer.create(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"))) {
      producer.send(Topics.VM_INVENTORY, key, Json.mapper().readValue(("{\"vcenterUuid\":\"vc-ext-it\","
          + "\"moref\":\"vm-1\",\"biosUuid\":\"421C9F3A5B6C7D8E9FA0B1C2D3E4F506\",\"observedAt\":\""
          + Instant.parse("2026-11-21T12:00:00Z") + "\"}"), VmInventoryEntry.class),
          Instant.now()).get();
      producer.send(Topics.VM_INVENTORY, key, null, Instant.now()).get();
    }
    List<TypedRecord<String, VmInventoryEntry>> got = new ArrayList<>();
    try (var consumer = TypedConsumer.create(Topics.VM_INVENTORY, Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()), (raw, e) -> {
          throw e;
        })) {
      consumer.assignAllFromBeginning(Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (got.size() < 2 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).stream().filter(r -> key.equals(r.key())).forEach(got::add);
      }
    }
    assertThat(got).hasSize(2);
    assertThat(got.get(0).value().biosUuid()).isEqualTo("421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506");
    assertThat(got.get(1).value()).as("tombstone").isNull();
  }

  @Test
  void aPerClassBrokerDeletesItsDirectoryWhenClosed() {
    KafkaBrokerExtension.RunningBroker running = KafkaBrokerExtension.RunningBroker.start();
    Path dir = running.dir;
    assertThat(Files.exists(dir.resolve("kafka-logs/meta.properties"))).isTrue();
    assertThat(running.broker.bootstrapServers()).isNotEqualTo(KAFKA.bootstrapServers());
    running.close();
    assertThat(Files.exists(dir)).isFalse();
  }
}
