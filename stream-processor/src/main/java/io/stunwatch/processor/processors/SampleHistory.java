package io.stunwatch.processor.processors;

import io.stunwatch.model.LoadSource;
import io.stunwatch.processor.StunwatchTopology;
import io.stunwatch.processor.readmodel.LiveReads;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmSamples;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.state.DroppedRecords;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * Each VM's per-second load history in {@link StoreNames#VM_SAMPLES}: a window store keyed by VM id, one window per
 * {@link VmSamples.Block} of {@link VmSamples.Block#SECONDS} seconds, each holding a {@link VmSamples.Point} per
 * second that had a reading.
 *
 * <p>A VM's newest block is part of its live state ({@link StoreNames#VM_LIVE}, written once per commit with the rest
 * of it), and goes to the store once, when a newer block opens; a reader takes it from there. A range is read only
 * when a migration needs it. (A single value holding the whole history cost a 15-minute list's encoding per sample; a
 * record per second cost a RocksDB write and a changelog record per VM-second at the commit; the open block in the
 * store was rewritten, key and all, at every commit.)
 *
 * <p>Each VM keeps {@link #keep} ({@code process.sample-retention}, the late grace and a block) behind its own newest
 * block, and the ranges its migrations need ({@link HistoryPins}): a writer deletes a VM's other blocks as they fall
 * out of that, and drops (and counts in the task's {@code dropped-records}) a reading older than it. Why per VM:
 * VMs share a task, and a window store expires by the newest window of any key, so one VM's recording replayed after another's, a host's readings a repartition hop
 * behind, or a catch-up that runs one VM's samples ahead lost the other VMs' history. The store itself keeps
 * {@link #VM_SKEW} more ({@link StunwatchTopology#sampleStore}), which bounds how far one VM may be behind another of
 * its task and keep its history.
 */
public final class SampleHistory {

  /** How far one VM's readings may be behind another's of the same task and still be kept. */
  public static final Duration VM_SKEW = Duration.ofHours(24);
  /** How far back from its newest block a writer looks for a VM's blocks to delete, the first time it sees the VM. */
  private static final long FIRST_SWEEP_MILLIS = Duration.ofMinutes(10).toMillis();
  private static final long BLOCK_MILLIS = VmSamples.Block.SECONDS * 1000L;

  private final WindowStore<String, VmSamples.Block> store;
  /** {@link StoreNames#VM_LIVE}: each VM's newest block, which {@link #store} gets only once a newer one opens. */
  private final KeyValueStore<String, VmLive> live;
  /** A writer's way to each VM's live state; null for a reader. */
  private final LiveStates lives;
  /** How long each VM's blocks are kept behind its newest, or -1 for a reader, which deletes nothing. */
  private final long keepMillis;
  /** By VM key: its blocks starting before this are deleted (by this writer). */
  private final Map<String, Long> cut = new HashMap<>();
  private final Sensor dropped;
  /** {@link StoreNames#HISTORY_PINS}: a writer keeps what a tracked migration still needs; null for a reader. */
  private final KeyValueStore<String, String> pins;

  /** A reader of the history. */
  public SampleHistory(ProcessingContext context) {
    this.store = context.getStateStore(StoreNames.VM_SAMPLES);
    this.live = context.getStateStore(StoreNames.VM_LIVE);
    this.lives = null;
    this.keepMillis = -1;
    this.dropped = null;
    this.pins = null;
  }

  /**
   * A writer of the history, which keeps each VM's last {@link #keep} behind its own newest block, and whatever a
   * tracked migration of the VM still needs ({@link StoreNames#HISTORY_PINS}).
   */
  SampleHistory(ProcessingContext context, ProcessorConfig config, LiveStates lives) {
    this.store = context.getStateStore(StoreNames.VM_SAMPLES);
    this.live = context.getStateStore(StoreNames.VM_LIVE);
    this.lives = lives;
    this.keepMillis = keep(config).toMillis();
    this.dropped = DroppedRecords.sensor(context);
    this.pins = context.getStateStore(StoreNames.HISTORY_PINS);
  }

  /** How long each VM's history is kept behind its own newest block. */
  public static Duration keep(ProcessorConfig config) {
    return config.sampleRetention().plus(config.lateGrace()).plusSeconds(VmSamples.Block.SECONDS);
  }

  /**
   * Applies {@code update} to the VM's point of the second of {@code at} (an empty point when it has none); a writer
   * drops a reading older than the VM's kept history.
   */
  public void update(String vmId, Instant at, UnaryOperator<VmSamples.Point> update) {
    long second = at.getEpochSecond();
    long start = VmSamples.Block.startOf(second);
    if (keepMillis >= 0 && !expire(vmId, start * 1000)) {
      dropped.record();
      return;
    }
    VmLive state = lives.get(vmId);
    VmSamples.Block open = state.block();
    if (open != null && start < open.startSecond()) {
      // Behind the VM's newest block: a closed one, in the store.
      store.put(vmId, with(store.fetch(vmId, start * 1000), start, second, update), start * 1000);
      return;
    }
    VmSamples.Block b = open;
    if (open == null || start > open.startSecond()) {
      // A newer block opens, and the open one is closed into the store. The store may hold the new one already: an
      // earlier format wrote every block there.
      if (open != null) {
        store.put(vmId, open, open.startSecond() * 1000);
      }
      b = store.fetch(vmId, start * 1000);
    }
    lives.put(vmId, state.withBlock(with(b, start, second, update)));
  }

  private static VmSamples.Block with(VmSamples.Block b, long start, long second,
      UnaryOperator<VmSamples.Point> update) {
    VmSamples.Point p = b == null ? null : b.point(second);
    VmSamples.Point next = update.apply(p == null ? VmSamples.empty(second) : p);
    return (b == null ? VmSamples.Block.empty(start) : b).with(next);
  }

  /**
   * Deletes the VM's blocks that fall out of its history with a block starting at {@code startMillis}; false when
   * that block is itself older than the history kept.
   */
  private boolean expire(String vmId, long startMillis) {
    Long done = cut.get(vmId);
    if (done != null && startMillis < done) {
      // Let go, unless a migration of the VM needs the reading's block.
      for (HistoryPins.Range r : pinned(vmId)) {
        if (r.overlaps(startMillis, BLOCK_MILLIS)) {
          return true;
        }
      }
      return false;
    }
    long next = startMillis - keepMillis;
    if (done != null && next <= done) {
      return true;
    }
    long from = done != null ? done : next - FIRST_SWEEP_MILLIS;
    List<Long> old = new ArrayList<>();
    try (WindowStoreIterator<VmSamples.Block> it = store.fetch(vmId, from, next - 1)) {
      it.forEachRemaining(kv -> old.add(kv.key));
    }
    List<HistoryPins.Range> ranges = old.isEmpty() ? List.of() : pinned(vmId);
    for (Long s : old) {
      if (ranges.stream().noneMatch(r -> r.overlaps(s, BLOCK_MILLIS))) {
        store.put(vmId, null, s);
      }
    }
    cut.put(vmId, next);
    return true;
  }

  /** The ranges the VM's migrations keep in its history (by VM id: the host's view is kept for the VM too). */
  private List<HistoryPins.Range> pinned(String key) {
    return HistoryPins.decode(pins.get(LoadKeys.vmId(key)));
  }

  /**
   * The VM's points within {@code [from, to]}, oldest first: its guest's readings, or, when the guest has no GPU
   * reading in the range, the GPU figures of the host's view in their place ({@link LoadKeys}).
   */
  VmSamples range(String vmId, Instant from, Instant to) {
    return combined(points(vmId, from, to), () -> points(LoadKeys.of(vmId, LoadSource.HOST), from, to));
  }

  /**
   * A VM's points from its guest's and its host's (read only when needed): the guest's when it has a GPU reading,
   * else the host's GPU figures in their place ({@link LoadKeys}).
   */
  static VmSamples combined(List<VmSamples.Point> guest, Supplier<List<VmSamples.Point>> hostPoints) {
    for (VmSamples.Point p : guest) {
      if (p.samples() > 0) {
        return new VmSamples(guest, LoadSource.GUEST);
      }
    }
    List<VmSamples.Point> host = hostPoints.get();
    return host.isEmpty() ? new VmSamples(guest, null) : VmSamples.hostGpu(guest, host);
  }

  /**
   * The point of the second {@code epochSecond} under {@code key}, or null: from the key's open block without a
   * read of the store when it holds that second.
   */
  VmSamples.Point point(String key, long epochSecond) {
    VmLive state = live.get(key);
    VmSamples.Block open = state == null ? null : state.block();
    long start = VmSamples.Block.startOf(epochSecond);
    VmSamples.Block b = open != null && open.startSecond() == start ? open
        : open != null && open.startSecond() < start ? null : store.fetch(key, start * 1000);
    return b == null ? null : b.point(epochSecond);
  }

  /** The key's points within {@code [from, to]}, oldest first. */
  List<VmSamples.Point> points(String key, Instant from, Instant to) {
    long first = from.getEpochSecond();
    long last = to.getEpochSecond();
    List<VmSamples.Point> points = new ArrayList<>();
    long firstBlock = VmSamples.Block.startOf(first) * 1000;
    long lastBlock = VmSamples.Block.startOf(last) * 1000;
    VmLive state = live.get(key);
    VmSamples.Block open = state == null ? null : state.block();
    List<KeyValue<Long, VmSamples.Block>> blocks;
    try (WindowStoreIterator<VmSamples.Block> it = store.fetch(key, firstBlock, lastBlock)) {
      blocks = LiveReads.merged(it, open == null ? 0 : open.startSecond() * 1000, open, firstBlock, lastBlock);
    }
    for (KeyValue<Long, VmSamples.Block> kv : blocks) {
      for (VmSamples.Point p : kv.value.points()) {
        if (p.epochSecond() >= first && p.epochSecond() <= last) {
          points.add(p);
        }
      }
    }
    return points;
  }
}
