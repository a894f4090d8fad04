package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.DecodeFailureHandler;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedRecord;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.LoggerFactory;

/** Reads the newest committed checkpoint of a vCenter from the compacted checkpoint topic. */
public final class CheckpointStore {

  private final Map<String, Object> kafkaProperties;

  public CheckpointStore(Map<String, Object> kafkaProperties) {
    this.kafkaProperties = kafkaProperties;
  }

  /** The checkpoint of {@code vcenterUuid}, reading the topic to its end (committed records only). */
  public Optional<VcenterCheckpoint> load(String vcenterUuid, Duration timeout) {
    Map<String, Object> props = new HashMap<>(kafkaProperties);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    VcenterCheckpoint found = null;
    try (TypedConsumer<String, VcenterCheckpoint> c = TypedConsumer.create(Topics.VCENTER_CHECKPOINTS, props,
        DecodeFailureHandler.logging(LoggerFactory.getLogger(CheckpointStore.class), 10))) {
      c.assignAllFromBeginning(timeout);
      List<TopicPartition> parts = List.copyOf(c.raw().assignment());
      Map<TopicPartition, Long> end = c.raw().endOffsets(parts, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reachedEnd(c, end) && System.nanoTime() < deadline) {
        for (TypedRecord<String, VcenterCheckpoint> r : c.poll(Duration.ofMillis(200))) {
          if (vcenterUuid.equals(r.key())) {
            found = r.value(); // newest wins; a tombstone resets
          }
        }
      }
      if (!reachedEnd(c, end)) {
        throw new IllegalStateException("could not read " + Topics.VCENTER_CHECKPOINTS.name() + " to its end within "
            + timeout);
      }
    }
    return Optional.ofNullable(found);
  }

  private static boolean reachedEnd(TypedConsumer<?, ?> c, Map<TopicPartition, Long> end) {
    for (var e : end.entrySet()) {
      if (c.raw().position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
