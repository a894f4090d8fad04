package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRS guard's decisions as {@code collect vcenter} reads them: every partition of
 * {@code stunwatch.guard-decisions} by assignment (no group), read_committed, from the start at first (the compacted
 * topic holds each VM's newest decision), then as they come. A record that does not decode is logged with its
 * partition and offset, and skipped.
 */
final class GuardDecisionFeed implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GuardDecisionFeed.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Runnable undecodable;

  private GuardDecisionFeed(KafkaConsumer<byte[], byte[]> consumer, Runnable undecodable) {
    this.consumer = consumer;
    this.undecodable = undecodable;
  }

  /** @param undecodable told of each record skipped because it does not decode (it is logged too) */
  static GuardDecisionFeed open(Map<String, Object> kafkaProperties, Runnable undecodable) {
    Map<String, Object> p = new HashMap<>();
    kafkaProperties.forEach((k, v) -> {
      if (ConsumerConfig.configNames().contains(k)) {
        p.put(k, v);
      }
    });
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
    List<TopicPartition> parts = c.partitionsFor(Topics.GUARD_DECISIONS.name(), Duration.ofSeconds(30)).stream()
        .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
    if (parts.isEmpty()) {
      LOG.warn("{} does not exist: no guard decision will be read until it does and collect vcenter starts again "
          + "(stunwatch config topics creates it)", Topics.GUARD_DECISIONS.name());
    }
    c.assign(parts);
    c.seekToBeginning(parts);
    return new GuardDecisionFeed(c, undecodable);
  }

  /** The decisions that came since the last call; every decision there is, at the first. */
  List<GuardDecision> poll() {
    List<GuardDecision> out = new ArrayList<>();
    for (int round = 0; round < 100; round++) {
      var records = consumer.poll(Duration.ofMillis(round == 0 ? 200 : 50));
      if (records.isEmpty()) {
        break;
      }
      for (ConsumerRecord<byte[], byte[]> r : records) {
        if (r.value() == null) {
          continue;
        }
        try {
          out.add(Topics.GUARD_DECISIONS.valueSerde().decode(r.value()));
        } catch (RuntimeException e) {
          undecodable.run();
          LOG.warn("{}-{} offset {}: skipped, not a guard decision: {}", r.topic(), r.partition(), r.offset(),
              e.getMessage());
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
