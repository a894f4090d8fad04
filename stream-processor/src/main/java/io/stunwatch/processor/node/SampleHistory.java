package io.stunwatch.processor.node;

import io.stunwatch.model.LoadSource;
import io.stunwatch.processor.StunwatchTopology;
import io.stunwatch.processor.view.LoadKeys;
import io.stunwatch.processor.view.StoreNames;
import io.stunwatch.processor.view.VmSamples;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * Each VM's per-second load history in {@link StoreNames#VM_SAMPLES}: a window store keyed by VM id, one window per
 * {@link VmSamples.Block} of {@link VmSamples.Block#SECONDS} seconds, each holding a {@link VmSamples.Point} per
 * second that had a reading.
 *
 * <p>One small block is read and written per sample, and a range is read only when a migration needs it. (A
 * single value holding the whole history cost a 15-minute list's encoding per sample; a record per second cost a
 * RocksDB write and a changelog record per VM-second at the commit.) The store's retention,
 * {@code process.sample-retention} plus a block, expires old blocks (by block on the heap, by segment in RocksDB:
 * {@link StunwatchTopology#sampleStore}), and a reading older than that is dropped by the store.
 */
public final class SampleHistory {

  private final WindowStore<String, VmSamples.Block> store;

  public SampleHistory(ProcessingContext context) {
    this.store = context.getStateStore(StoreNames.VM_SAMPLES);
  }

  /** Applies {@code update} to the VM's point of the second of {@code at} (an empty point when it has none). */
  public void update(String vmId, Instant at, UnaryOperator<VmSamples.Point> update) {
    long second = at.getEpochSecond();
    long start = VmSamples.Block.startOf(second);
    VmSamples.Block b = store.fetch(vmId, start * 1000);
    VmSamples.Point p = b == null ? null : b.point(second);
    VmSamples.Point next = update.apply(p == null ? VmSamples.empty(second) : p);
    store.put(vmId, (b == null ? VmSamples.Block.empty(start) : b).with(next), start * 1000);
  }

  /**
   * The VM's points within {@code [from, to]}, oldest first: its guest's readings, or, when the guest has no GPU
   * reading in the range, the GPU figures of the host's view in their place ({@link LoadKeys}).
   */
  VmSamples range(String vmId, Instant from, Instant to) {
    List<VmSamples.Point> guest = points(vmId, from, to);
    for (VmSamples.Point p : guest) {
      if (p.samples() > 0) {
        return new VmSamples(guest, LoadSource.GUEST);
      }
    }
    List<VmSamples.Point> host = points(LoadKeys.of(vmId, LoadSource.HOST), from, to);
    return host.isEmpty() ? new VmSamples(guest, null) : VmSamples.hostGpu(guest, host);
  }

  private List<VmSamples.Point> points(String key, Instant from, Instant to) {
    long first = from.getEpochSecond();
    long last = to.getEpochSecond();
    List<VmSamples.Point> points = new ArrayList<>();
    try (WindowStoreIterator<VmSamples.Block> it = store.fetch(key, VmSamples.Block.startOf(first) * 1000,
        VmSamples.Block.startOf(last) * 1000)) {
      while (it.hasNext()) {
        for (VmSamples.Point p : it.next().value.points()) {
          if (p.epochSecond() >= first && p.epochSecond() <= last) {
            points.add(p);
          }
        }
      }
    }
    return points;
  }
}
