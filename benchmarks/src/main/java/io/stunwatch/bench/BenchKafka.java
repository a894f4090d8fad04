package io.stunwatch.bench;

import io.stunwatch.model.topic.Topic;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** The Kafka clients and topic chores of {@code bench processor}'s passes. */
final class BenchKafka {

  private BenchKafka() {
  }

  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Map<String, Object> c = new HashMap<>();
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
    return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
  }

  static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  static void createTopic(String bootstrap, String name, int partitions) throws Exception {
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      a.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  /**
   * Deletes the changelog and repartition topics of a finished pass. Each pass is a new application with its own,
   * and a run of fifteen warm-ups a phase would otherwise leave thousands of partitions on the broker, each with its
   * index files, for every later pass to run beside.
   */
  static void deleteInternalTopics(Admin admin, String appId) throws Exception {
    Set<String> internal = admin.listTopics().names().get().stream().filter(t -> t.startsWith(appId + "-"))
        .collect(Collectors.toSet());
    if (!internal.isEmpty()) {
      admin.deleteTopics(internal).all().get();
    }
  }

  static Map<TopicPartition, Long> ends(Admin admin, Set<String> topics) throws Exception {
    Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
    for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
      d.partitions().forEach(pi -> spec.put(new TopicPartition(d.name(), pi.partition()), OffsetSpec.latest()));
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    admin.listOffsets(spec).all().get().forEach((tp, i) -> out.put(tp, i.offset()));
    return out;
  }

  static <V> void send(KafkaProducer<byte[], byte[]> p, Topic<String, V> t, String key, V value,
      Instant at) {
    p.send(new ProducerRecord<>(t.name(), null, at.toEpochMilli(), t.encodeKey(key), t.encodeValue(value)));
  }
}
