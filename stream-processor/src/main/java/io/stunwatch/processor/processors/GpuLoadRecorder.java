package io.stunwatch.processor.processors;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.state.DroppedRecords;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.UtilizationDay;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmPlacement;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Folds each GPU sample into everything its VM's load is kept as, in one step: the current load, the 10 s, 1 min and
 * 1 h load windows ({@link StoreNames#VM_LOAD_10S}, {@link StoreNames#VM_LOAD_1M}, {@link StoreNames#VM_LOAD_1H}), the
 * VM's day of the utilization audit ({@link StoreNames#UTILIZATION_DAILY}) and its per-second history
 * ({@link StoreNames#VM_SAMPLES}). What the sample changes is the VM's live state ({@link VmLive},
 * {@link StoreNames#VM_LIVE}): one record, written once per commit; a window store gets a window when a newer one
 * opens.
 *
 * <p>The windows keep the contract of Kafka Streams' windowed aggregation, so that a site's stores stay readable:
 * tumbling windows aligned to the epoch (so one-day windows are UTC days), timestamped window stores of the same name and
 * format, and a sample whose window closed ({@code end <= its VM's newest sample - process.late-grace}) is dropped,
 * counted in the task's {@code dropped-records} metric once per window and logged with its topic, partition and
 * offset (at most ten lines a wall-clock minute, the next saying how many were held back).
 *
 * <p>Late is measured against the sample's own source: its VM, view (a VM's host readings are a key of their own)
 * and the machine that read it (the guest, or the ESXi host), not the task's stream time. VMs share partitions, and
 * one VM's recording replayed after another's, or a host's readings one repartition hop behind the guests', is not
 * late for being behind another VM; a VM that moved from one host to another is read by both, and the recording of
 * the host it left, replayed after the other's, is not late either. Each source's samples arrive in order, so this
 * is the same answer live, replayed or caught up.
 *
 * <p>Why not the DSL: there a sample costs a store read and decoding per window, and three aggregation nodes, and
 * each window store's changelog gets a record per VM and commit, most of it the VM's key. {@link VmReadingsProcessor},
 * through this part, is the only writer of these stores, so it holds what it last wrote for each VM
 * ({@link LiveStates}) and reads a store only for a VM it has not seen since the task started, for a late sample of an
 * older window, or once per window as it opens.
 */
public final class GpuLoadRecorder {

  private static final Logger LOG = LoggerFactory.getLogger(GpuLoadRecorder.class);

  private final InventoryIndex index;
  private final ProcessorConfig config;
  /** A catch-up behind stream time can drop many samples: each is counted, and the log gets a few a minute. */
  private final LogLimiter dropLog;
  private final long graceMs;
  /** An array, not a list: the loop over it runs on every sample, and a list's iterator showed in profiles. */
  private final WindowFold<?>[] windows;
  /**
   * The newest sample time of each VM, view and source (the guest, or the ESXi host that read the vGPU) seen by this
   * task: what the grace of its late samples is from.
   */
  private final Map<String, Long> vmTime = new HashMap<>();
  private ProcessorContext<?, ?> context;
  private LiveStates lives;
  private SampleHistory history;
  private ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private Sensor unknownVm;
  private Sensor dropped;

  public GpuLoadRecorder(ProcessorConfig config, InventoryIndex index, Clock clock) {
    this.index = index;
    this.config = config;
    this.dropLog = new LogLimiter(10);
    this.graceMs = config.lateGrace().toMillis();
    double idleBelow = config.idleBelowPct();
    long keep = config.windowRetention().toMillis();
    this.windows = new WindowFold<?>[] {
        new WindowFold<>(StoreNames.VM_LOAD_10S, 10_000, keep, LoadAggregate::empty, (a, s, vm) -> a.with(s),
            VmLive::tenSeconds, VmLive::withTenSeconds),
        new WindowFold<>(StoreNames.VM_LOAD_1M, 60_000, keep, LoadAggregate::empty, (a, s, vm) -> a.with(s),
            VmLive::minute, VmLive::withMinute),
        new WindowFold<>(StoreNames.VM_LOAD_1H, 3_600_000, -1, LoadAggregate::empty, (a, s, vm) -> a.with(s),
            VmLive::hour, VmLive::withHour),
        new WindowFold<>(StoreNames.UTILIZATION_DAILY, 86_400_000, -1, UtilizationDay::empty,
            (d, s, vm) -> d.with(s, vm == null ? null : vm.host(), idleBelow, ProcessorConfig.MAX_SAMPLE_GAP_SECONDS),
            VmLive::day, VmLive::withDay)};
  }

  /** Called from the processor's {@code init}, with the history and the live states it writes through. */
  void init(ProcessorContext<?, ?> context, SampleHistory history, LiveStates lives) {
    this.context = context;
    this.lives = lives;
    this.history = history;
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    // (Re)initialized with the task, after its stores were restored: what was held before may be stale.
    this.vmTime.clear();
    for (WindowFold<?> w : windows) {
      w.init(context);
    }
    this.unknownVm = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
        "unknown-vm-samples", Sensor.RecordingLevel.INFO);
    // The task's own sensor, which Streams' windowed aggregation recorded these drops in, so that one metric
    // still counts every record the processor dropped.
    this.dropped = DroppedRecords.sensor(context);
  }

  /** Records a GPU sample of the VM keyed {@code key}, taken at {@code t} (the record's timestamp). */
  public void record(String key, GpuSample s, long t) {
    // The host's view of the VM is kept apart from the guest's (LoadKeys): readers choose one, never a sum of both.
    String vm = LoadKeys.of(key, s.loadSource());
    // The per-second history takes every sample, late or not: an impact's timeline reads it, not the windows.
    history.update(vm, s.timestamp(), p -> VmSamples.withGpu(p, s));
    VmPlacement placed = index.get(key, inventory);
    if (placed == null) {
      unknownVm.record();
    }
    VmLive live = lives.get(vm); // after the history's update, which may have changed it
    CurrentLoad old = live.current();
    CurrentLoad next = (old == null ? new CurrentLoad(vm, Map.of(), null, null, false) : old).with(s, placed);
    VmLive state = next == old ? live : live.withCurrent(next);

    String source = s.hostname() == null ? vm : vm + '\u0000' + s.hostname();
    Long seen = vmTime.get(source);
    long newest = seen == null || t > seen ? t : seen;
    if (seen == null || newest != seen) {
      vmTime.put(source, newest);
    }
    long closeTime = newest - graceMs;
    String closed = null;
    for (WindowFold<?> w : windows) {
      VmLive after = w.add(vm, t, s, placed, closeTime, state);
      if (after == null) {
        dropped.record();
        closed = closed == null ? w.store : closed + ", " + w.store;
      } else {
        state = after;
      }
    }
    if (state != live) {
      lives.put(vm, state);
    }
    String more = closed == null ? null : dropLog.admit();
    if (more != null) {
      var meta = context.recordMetadata();
      LOG.warn("Dropped a GPU sample of VM {} taken at {} ({} partition {} offset {}) from {}: its window closed at "
              + "the VM's newest sample {} less the grace of {} ms{}", vm, Instant.ofEpochMilli(t),
          meta.map(m -> m.topic()).orElse("?"), meta.map(m -> m.partition()).orElse(-1),
          meta.map(m -> m.offset()).orElse(-1L), closed, Instant.ofEpochMilli(newest), graceMs, more);
    }
  }

  /** Called from the processor's {@code close}. */
  public void close() {
    // The task may come back to this instance after a rebalance and register its sensor again.
    context.metrics().removeSensor(unknownVm);
  }

  /** How a sample folds into a window's value. */
  @FunctionalInterface
  interface Fold<A> {
    A with(A value, GpuSample sample, VmPlacement vm);
  }

  /**
   * One windowed store: tumbling windows of {@code size} ms. A VM's newest window is open in its live state
   * ({@link VmLive}) and goes to the store when a newer one opens; an older one (a late sample's) is read and written
   * in the store. With a {@code keep}, each VM keeps the windows that start at most {@code keep} before its newest
   * window, whatever the other VMs of the task are at: the store's own retention, which follows the task's stream
   * time, is a day longer, so that a VM replayed after another (or a host's readings behind the guests') still gets
   * its windows.
   */
  private static final class WindowFold<A> {
    private final String store;
    private final long size;
    /** How long each VM keeps its windows behind its newest, ms; -1: as long as the store keeps them. */
    private final long keep;
    private final Supplier<A> empty;
    private final Fold<A> fold;
    /** The VM's open window of this store, in its live state. */
    private final Function<VmLive, VmLive.Open<A>> open;
    private final BiFunction<VmLive, VmLive.Open<A>, VmLive> reopen;
    /** By VM key: its windows starting before this are deleted. */
    private final Map<String, Long> cut = new HashMap<>();
    private TimestampedWindowStore<String, A> windows;

    WindowFold(String store, long size, long keep, Supplier<A> empty, Fold<A> fold,
        Function<VmLive, VmLive.Open<A>> open, BiFunction<VmLive, VmLive.Open<A>, VmLive> reopen) {
      this.store = store;
      this.size = size;
      this.keep = keep;
      this.empty = empty;
      this.fold = fold;
      this.open = open;
      this.reopen = reopen;
    }

    void init(ProcessorContext<?, ?> context) {
      windows = context.getStateStore(store);
      cut.clear();
    }

    /**
     * Folds the sample taken at {@code t} into its window: the live state with it, or null when that window closed
     * before {@code closeTime}.
     */
    VmLive add(String vm, long t, GpuSample s, VmPlacement placed, long closeTime, VmLive live) {
      long start = t - Math.floorMod(t, size);
      if (start + size <= closeTime || keep >= 0 && !expire(vm, start)) {
        return null;
      }
      VmLive.Open<A> held = open.apply(live);
      if (held != null && start < held.start()) {
        // A late sample of a closed window, in the store.
        ValueAndTimestamp<A> old = windows.fetch(vm, start);
        A next = fold.with(old == null ? empty.get() : old.value(), s, placed);
        if (old == null || next != old.value()) { // else nothing new (a repeated sample of the day's audit): no write
          windows.put(vm, ValueAndTimestamp.make(next, old == null ? t : Math.max(t, old.timestamp())), start);
        }
        return live;
      }
      if (held != null && held.start() == start) {
        A next = fold.with(held.value(), s, placed);
        return next == held.value() ? live
            : reopen.apply(live, new VmLive.Open<>(start, Math.max(t, held.timestamp()), next));
      }
      // A newer window opens, and the open one is closed into the store. The store may hold the new one already: an
      // earlier format kept the open windows there.
      if (held != null) {
        windows.put(vm, ValueAndTimestamp.make(held.value(), held.timestamp()), held.start());
      }
      ValueAndTimestamp<A> old = windows.fetch(vm, start);
      A next = fold.with(old == null ? empty.get() : old.value(), s, placed);
      return reopen.apply(live, new VmLive.Open<>(start, old == null ? t : Math.max(t, old.timestamp()), next));
    }
    /**
     * Deletes the VM's windows that fall out of what it keeps with a window starting at {@code start}; false when
     * that window is itself older than what the VM keeps. The first time this task sees the VM, it looks back
     * {@code keep} for what earlier runs of the task left (a restart, a VM silent for a while).
     */
    private boolean expire(String vm, long start) {
      Long done = cut.get(vm);
      if (done != null && start < done) {
        return false;
      }
      long next = start - keep;
      if (done != null && next <= done) {
        return true;
      }
      long from = done != null ? done : next - keep;
      List<Long> old = new ArrayList<>();
      try (WindowStoreIterator<ValueAndTimestamp<A>> it = windows.fetch(vm, from, next - 1)) {
        it.forEachRemaining(kv -> old.add(kv.key));
      }
      for (Long w : old) {
        windows.put(vm, null, w);
      }
      cut.put(vm, next);
      return true;
    }
  }
}
