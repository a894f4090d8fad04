package io.stunwatch.processor;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * Each VM's per-second load history in {@link StoreNames#VM_SAMPLES}: a window store of one-second windows keyed by
 * VM id, one {@link VmSamples.Point} per window.
 *
 * <p>One small point is read and written per sample, and a range is read only when a migration needs it. (A
 * single value holding the whole history cost a 15-minute list's encoding per sample.) The store's retention,
 * {@code process.sample-retention}, expires old seconds by segment, and a reading older than that is dropped by the
 * store.
 */
final class SampleHistory {

  private final WindowStore<String, VmSamples.Point> store;

  SampleHistory(ProcessingContext context) {
    this.store = context.getStateStore(StoreNames.VM_SAMPLES);
  }

  /** Applies {@code update} to the VM's point of the second of {@code at} (an empty point when it has none). */
  void update(String vmId, Instant at, UnaryOperator<VmSamples.Point> update) {
    long second = at.getEpochSecond();
    VmSamples.Point p = store.fetch(vmId, second * 1000);
    store.put(vmId, update.apply(p == null ? VmSamples.empty(second) : p), second * 1000);
  }

  /** The VM's points within {@code [from, to]}, oldest first. */
  VmSamples range(String vmId, Instant from, Instant to) {
    List<VmSamples.Point> points = new ArrayList<>();
    try (WindowStoreIterator<VmSamples.Point> it = store.fetch(vmId, from.getEpochSecond() * 1000,
        to.getEpochSecond() * 1000)) {
      while (it.hasNext()) {
        points.add(it.next().value);
      }
    }
    return new VmSamples(points);
  }
}
