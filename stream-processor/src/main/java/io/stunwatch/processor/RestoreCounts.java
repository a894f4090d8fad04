package io.stunwatch.processor;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.TaskId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many changelog records this instance has read back into its state stores since it started, by store: as an
 * active task's restore (a start, a task taken over from another instance) and as a standby's updates. A restart that
 * keeps its stores (transactional state stores under exactly-once) and a failover to a standby read only what came
 * after the stores' last commit, where a wiped store reads its changelog whole: these counts tell the two apart.
 * Called by the stream threads; read by any thread.
 */
public final class RestoreCounts implements StateRestoreListener, StandbyUpdateListener {

  private static final Logger LOG = LoggerFactory.getLogger(RestoreCounts.class);

  private final Map<String, AtomicLong> restored = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> standbyUpdated = new ConcurrentHashMap<>();
  private final StartupTimeline timeline;

  public RestoreCounts() {
    this(null);
  }

  /** Counts that also tell {@code timeline} when restores start and end. */
  RestoreCounts(StartupTimeline timeline) {
    this.timeline = timeline;
  }

  @Override
  public void onRestoreStart(TopicPartition partition, String store, long startOffset, long endOffset) {
    restored.computeIfAbsent(store, s -> new AtomicLong());
    if (timeline != null) {
      timeline.restoreStarted();
    }
    LOG.debug("Restoring {} from {} offsets {} to {}", store, partition, startOffset, endOffset);
  }

  @Override
  public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long restoredRecords) {
    restored.computeIfAbsent(store, s -> new AtomicLong()).addAndGet(restoredRecords);
  }

  @Override
  public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
    if (timeline != null) {
      timeline.restoreEnded(store, totalRestored);
    }
    LOG.debug("Restored {} records of {} from {}", totalRestored, store, partition);
  }

  @Override
  public void onUpdateStart(TopicPartition partition, String store, long startingOffset) {
    standbyUpdated.computeIfAbsent(store, s -> new AtomicLong());
  }

  @Override
  public void onBatchLoaded(TopicPartition partition, String store, TaskId taskId,
      long batchEndOffset, long batchSize, long currentEndOffset) {
    standbyUpdated.computeIfAbsent(store, s -> new AtomicLong()).addAndGet(batchSize);
  }

  @Override
  public void onUpdateSuspended(TopicPartition partition, String store, long storeOffset, long currentEndOffset,
      SuspendReason reason) {
    LOG.debug("Standby {} of {} suspended at offset {} of {} ({})", store, partition, storeOffset, currentEndOffset,
        reason);
  }

  /**
   * Calls {@code each} with every store that has restored or loaded anything so far, and whether as a standby; a
   * store appears once it has started a restore, so a meter registered per store finds it from then on.
   */
  public void forEachStore(BiConsumer<String, Boolean> each) {
    restored.keySet().forEach(s -> each.accept(s, false));
    standbyUpdated.keySet().forEach(s -> each.accept(s, true));
  }

  /** Records of {@code store} read back so far: into active tasks, or into standbys. */
  public long count(String store, boolean standby) {
    AtomicLong n = (standby ? standbyUpdated : restored).get(store);
    return n == null ? 0 : n.get();
  }
}
