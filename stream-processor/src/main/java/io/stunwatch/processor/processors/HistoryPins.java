package io.stunwatch.processor.processors;

import io.stunwatch.processor.readmodel.StoreNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The ranges of a VM's per-second history that its migrations need, as {@link StoreNames#HISTORY_PINS} holds them:
 * one value per VM, {@code <migration id> <from ms> <to ms>} per range, ranges separated by {@code ;}. A range is
 * pinned from the moment its migration is tracked until the task's stream time is {@link SampleHistory#VM_SKEW} past
 * its end: the history's writers keep its blocks, and take a reading of it however far behind the VM's newest it
 * comes (the recording of the host a VM left, read after the other host's), so that the impact is built again from
 * every reading of its range.
 *
 * <p>An instance is the migration processor's: the store's only writer, with the task's pins in memory, read once at
 * (re)initialization.
 */
final class HistoryPins {

  /** How often, in stream time, ranges are looked at for expiry. */
  private static final long LOOK_MILLIS = 60_000;

  private final KeyValueStore<String, String> store;
  private final Map<String, List<Range>> byVm = new HashMap<>();
  private long looked = Long.MIN_VALUE;

  HistoryPins(ProcessingContext context) {
    this.store = context.getStateStore(StoreNames.HISTORY_PINS);
    try (KeyValueIterator<String, String> it = store.all()) {
      it.forEachRemaining(kv -> byVm.put(kv.key, decode(kv.value)));
    }
  }

  boolean isEmpty() {
    return byVm.isEmpty();
  }

  /** The VM's pinned ranges. */
  List<Range> of(String vmKey) {
    return byVm.getOrDefault(vmKey, List.of());
  }

  /** Pins {@code r} for the VM, in place of what its migration had pinned. */
  void pin(String vmKey, Range r) {
    List<Range> ranges = new ArrayList<>(of(vmKey));
    if (ranges.contains(r)) {
      return;
    }
    ranges.removeIf(x -> x.id().equals(r.id()));
    ranges.add(r);
    byVm.put(vmKey, ranges);
    store.put(vmKey, encode(ranges));
  }

  /**
   * Lets go of the ranges whose end stream time has passed by {@link SampleHistory#VM_SKEW}, but those of migrations
   * still {@code tracked}; once a minute of stream time.
   */
  void expire(long streamTime, Predicate<String> tracked) {
    if (streamTime < looked + LOOK_MILLIS) {
      return;
    }
    looked = streamTime;
    long before = streamTime - SampleHistory.VM_SKEW.toMillis();
    for (String vmKey : List.copyOf(byVm.keySet())) {
      List<Range> ranges = new ArrayList<>(byVm.get(vmKey));
      if (ranges.removeIf(r -> r.to() < before && !tracked.test(r.id()))) {
        if (ranges.isEmpty()) {
          byVm.remove(vmKey);
          store.delete(vmKey);
        } else {
          byVm.put(vmKey, ranges);
          store.put(vmKey, encode(ranges));
        }
      }
    }
  }

  /** One migration's range, epoch milliseconds, both ends included. */
  record Range(String id, long from, long to) {

    boolean holds(long millis) {
      return millis >= from && millis <= to;
    }

    /** Whether the block {@code [start, start + size)} holds a second of this range. */
    boolean overlaps(long start, long size) {
      return start <= to && start + size > from;
    }
  }

  static List<Range> decode(String value) {
    List<Range> out = new ArrayList<>();
    if (value == null || value.isEmpty()) {
      return out;
    }
    for (String r : value.split(";")) {
      String[] f = r.split(" ");
      out.add(new Range(f[0], Long.parseLong(f[1]), Long.parseLong(f[2])));
    }
    return out;
  }

  static String encode(List<Range> ranges) {
    StringBuilder b = new StringBuilder();
    for (Range r : ranges) {
      b.append(b.isEmpty() ? "" : ";").append(r.id()).append(' ').append(r.from()).append(' ').append(r.to());
    }
    return b.toString();
  }
}
