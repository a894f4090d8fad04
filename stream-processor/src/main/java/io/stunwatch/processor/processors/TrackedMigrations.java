package io.stunwatch.processor.processors;

import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.StoreNames;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The migrations a task tracks until they settle, and what each waits for in its VM's samples.
 *
 * <p>{@link StoreNames#TRACKED} is the truth a restore rebuilds, and {@link MigrationProcessor} its only writer,
 * through this class. Beside it, in memory: a copy by migration id, which spares the look at due migrations (every
 * second of stream time) a scan and decoding of the whole store; an index by VM of the migrations that wait for that
 * VM's samples, so that a sample looks only at its own VM's; and per-migration facts read once (the kinds of samples
 * a range holds, when a provisional impact stops being rebuilt). All of it is built at first use after the task is
 * (re)initialized ({@link #reset}), from the store.
 */
final class TrackedMigrations {

  /**
   * What a migration waits for in its VM's samples, as event-time millis; {@link Long#MAX_VALUE} for what it does not
   * wait for.
   *
   * @param alertWindowAt a sample this late completes its alert window
   * @param rangePassedAt a sample this late is past its impact's range
   * @param rebuildUntil  for a provisional impact, when it stops being rebuilt; {@link Long#MIN_VALUE} otherwise
   */
  record Awaited(long alertWindowAt, long rangePassedAt, long rebuildUntil) {
    long first() {
      return Math.min(alertWindowAt, rangePassedAt);
    }
  }

  private final KeyValueStore<String, Tracked.Migration> store;
  private Map<String, Tracked.Migration> byId;
  private Map<String, Map<String, Awaited>> watchedByVm;
  /** The kinds of samples each waiting migration's range holds, by migration id (a bit set). */
  private final Map<String, Integer> expectedKinds = new HashMap<>();
  /** When a provisional migration stops being rebuilt (event time), by migration id. */
  private final Map<String, Long> provisionalUntil = new HashMap<>();
  /**
   * The newest GPU reading (the guest's or its host's) of each VM of the task since it was (re)initialized: the VM's
   * own time, which decides when a provisional impact is final and whether the history still holds a settled
   * migration's range ({@link SampleHistory} keeps each VM's last {@code process.sample-retention} behind its own
   * newest readings). Never the task's stream time: VMs share partitions, and one VM's recording replayed after
   * another's, or a catch-up, puts them hours apart. Nor the VM's other kinds of readings: each kind has its own
   * partition, and a throughput log may run hours ahead of the GPU readings it goes with.
   */
  private final Map<String, Long> vmNewest = new HashMap<>();
  /** No tracked migration is due before this (a lower bound: removals do not raise it). */
  private long nextDue = Long.MIN_VALUE;

  TrackedMigrations(KeyValueStore<String, Tracked.Migration> store) {
    this.store = store;
  }

  /** Forgets the copy and every fact read: the task's stores were (re)initialized, perhaps restored. */
  void reset() {
    byId = null;
    watchedByVm = null;
    expectedKinds.clear();
    provisionalUntil.clear();
    vmNewest.clear();
    nextDue = Long.MIN_VALUE;
  }

  private Map<String, Tracked.Migration> loaded() {
    if (byId == null) {
      byId = new HashMap<>();
      watchedByVm = new HashMap<>();
      try (KeyValueIterator<String, Tracked.Migration> it = store.all()) {
        it.forEachRemaining(kv -> byId.put(kv.key, kv.value));
      }
      nextDue = Long.MIN_VALUE;
    }
    return byId;
  }

  /**
   * The tracked migrations due by {@code time}, in id order (the outputs must not depend on a hash map's), and the
   * next due time noted. A provisional one is due when its VM's own time is past the point where its history no
   * longer holds its range: the VM's newest GPU reading ({@link #vmNewest}, moved on by {@code idle} ms of wall time
   * without input), or {@code time} less {@link SampleHistory#VM_SKEW}, whichever is later. Another VM's samples
   * running ahead in the task say nothing of this one's, which may be a repartition hop or a whole recording behind.
   */
  List<Tracked.Migration> dueBy(long time, long idle) {
    Collection<Tracked.Migration> all = all();
    if (nextDue > time) {
      return List.of();
    }
    List<Tracked.Migration> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (Tracked.Migration t : all) {
      long at = t.provisional() ? provisionalUntil(t.migrationId()) : t.dueAtMillis();
      long now = time;
      if (t.provisional() && at > Long.MIN_VALUE) {
        Long newest = vmNewest.get(t.vmKey());
        now = Math.max(newest == null ? Long.MIN_VALUE : newest + idle, time - SampleHistory.VM_SKEW.toMillis());
      }
      if (at <= now) {
        due.add(t);
      } else {
        next = Math.min(next, at);
      }
    }
    nextDue = next;
    due.sort(Comparator.comparing(Tracked.Migration::migrationId));
    return due;
  }

  /**
   * The tracked migrations that wait for their VM's samples (a pending alert, a provisional impact), in no order:
   * after the copy is built, each is to be {@link #watch watched} again with what it waits for.
   */
  List<Tracked.Migration> waiting() {
    return all().stream().filter(t -> t.provisional() || t.alertPending()).toList();
  }

  /**
   * Whether every kind of sample the VM sent within the impact's range (GPU, training throughput, RDMA) has a second
   * after it, given the kinds that have ({@code passed}): each kind arrives in order on its own partition, so the
   * range then holds all of that kind it ever will. {@code readKinds} reads the kinds the range holds, once per
   * migration. Asked every second of stream time while a migration waits, so the cheap answers come first: nothing
   * after the range yet (the usual wait), or every kind after it. A kind not seen in the range at all may still come
   * (its partition behind the others): the impact closed then is provisional.
   */
  boolean caughtUp(String id, int passed, IntSupplier readKinds) {
    if (passed == 0 || passed == ReadingKinds.ALL) {
      return passed == ReadingKinds.ALL;
    }
    // Some kinds have moved on: the rest are owed only if the VM sent them within the range. Read once per migration
    // (again after a restart).
    int expected = expectedKinds(id, readKinds);
    return (passed & expected) == expected;
  }

  /** A GPU reading of the VM keyed {@code vmKey}, at {@code timestamp}: the VM's own time moves on. */
  void gpuReading(String vmKey, long timestamp) {
    Long newest = vmNewest.get(vmKey);
    if (newest == null || timestamp > newest) {
      vmNewest.put(vmKey, timestamp);
    }
  }

  /** The VM's newest GPU reading since the task was (re)initialized, or null. */
  Long vmNewest(String vmKey) {
    return vmNewest.get(vmKey);
  }

  /** Every tracked migration, in no order. */
  Collection<Tracked.Migration> all() {
    return loaded().values();
  }

  /** The tracked migration {@code id}, or null. */
  Tracked.Migration get(String id) {
    return loaded().get(id);
  }

  boolean contains(String id) {
    return loaded().containsKey(id);
  }

  /** Tracks {@code t}, or its new state. */
  void put(Tracked.Migration t) {
    Map<String, Tracked.Migration> copy = loaded(); // before the write, which the copy must not read as restored
    store.put(t.migrationId(), t);
    copy.put(t.migrationId(), t);
  }

  /** Stops tracking migration {@code id}: it settled, or its migration is gone. */
  void remove(String id) {
    Tracked.Migration t = loaded().remove(id);
    store.delete(id);
    expectedKinds.remove(id);
    provisionalUntil.remove(id);
    if (t != null) {
      unwatch(t.vmKey(), id);
    }
  }

  /** Forgets what was read of the migration's range: it changed (a new end, a new start). */
  void rangeChanged(String id) {
    expectedKinds.remove(id);
    provisionalUntil.remove(id);
  }

  /**
   * Watches the samples of {@code t}'s VM for what it waits for. A provisional impact is rebuilt until its first
   * {@link Awaited#rebuildUntil} (a later watch does not move it), which the due look then waits for.
   */
  void watch(Tracked.Migration t, Awaited at) {
    loaded();
    if (t.provisional()) {
      long until = provisionalUntil.computeIfAbsent(t.migrationId(), id -> at.rebuildUntil());
      nextDue = Math.min(nextDue, until);
    }
    watchedByVm.computeIfAbsent(t.vmKey(), k -> new HashMap<>()).put(t.migrationId(), at);
  }

  void unwatch(String vmKey, String id) {
    loaded();
    Map<String, Awaited> ids = watchedByVm.get(vmKey);
    if (ids != null && ids.remove(id) != null && ids.isEmpty()) {
      watchedByVm.remove(vmKey);
    }
  }

  /** What the migrations that wait for the VM's samples wait for, by migration id, or null when none waits. */
  Map<String, Awaited> watching(String vmKey) {
    loaded();
    return watchedByVm.isEmpty() ? null : watchedByVm.get(vmKey);
  }

  /** When a provisional migration stops being rebuilt, or {@link Long#MIN_VALUE} when not known. */
  long provisionalUntil(String id) {
    return provisionalUntil.getOrDefault(id, Long.MIN_VALUE);
  }

  /** The kinds of samples migration {@code id}'s range holds: read once, by {@code read}, until its range changes. */
  int expectedKinds(String id, IntSupplier read) {
    return expectedKinds.computeIfAbsent(id, k -> read.getAsInt());
  }

  /** No tracked migration is due before this. */
  long nextDue() {
    return nextDue;
  }

  /** A migration is due at {@code at}. */
  void dueAt(long at) {
    nextDue = Math.min(nextDue, at);
  }

  /** The next look at due migrations finds the earliest again; {@code next} after a look that found it. */
  void nextDue(long next) {
    nextDue = next;
  }
}
