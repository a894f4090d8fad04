package io.stunwatch.api;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.LiveReads;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationOwner;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StartKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.UtilizationDay;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.stunwatch.api.StoreReader.LoadWindow;
import io.stunwatch.api.StoreReader.UtilizationRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * This instance's part of each query, read from its own stores ({@link StoreSource}); blocking (RocksDB), so callers
 * run it on a worker thread.
 *
 * <p>The list indexes are read by iterating them, and an iterator over the processor's deferred stores sees the last
 * commit, while a point {@code get} sees writes still pending. A list that joins an index to its rows therefore reads
 * the rows at the last commit too ({@link #committed}): otherwise a row changed since the last commit is at a new
 * place that the index does not show yet, and drops out of the list until the next commit.
 */
final class LocalStoreReader {

  /**
   * How much earlier than its alert's raise time a migration's start may be: the alert is raised at the start as
   * known then, and an event that comes later can only move the start earlier, by the span of one migration's
   * chain.
   */
  static final Duration START_BEFORE_RAISE = Duration.ofHours(1);

  private final StoreSource stores;

  LocalStoreReader(StoreSource stores) {
    this.stores = stores;
  }

  /** The rows of the migrations that started within {@code [from, to]}, in start order. */
  List<MigrationRow> migrations(Instant from, Instant to) {
    List<MigrationRow> out = new ArrayList<>();
    try (KeyValueIterator<String, MigrationRow> it = this.<MigrationRow>kv(StoreNames.MIGRATIONS_BY_START)
        .range(StartKeys.from(from), StartKeys.to(to))) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /** The annotation blocks of the hours {@code from} to {@code to}. */
  List<AnnotationBlock> annotationBlocks(Instant from, Instant to) {
    List<AnnotationBlock> out = new ArrayList<>();
    try (KeyValueIterator<String, AnnotationBlock> it = this.<AnnotationBlock>kv(StoreNames.ANNOTATIONS_BY_HOUR)
        .range(StartKeys.hour(from), StartKeys.hour(to))) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /** Every row of the VM, at the last commit. */
  List<MigrationRow> migrationsOfVm(String vmId, StorePartition at) {
    List<MigrationRow> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, MigrationRow> byVm = stores.store(StoreNames.MIGRATIONS_BY_VM,
        QueryableStoreTypes.keyValueStore(), at);
    try (KeyValueIterator<String, MigrationRow> it = byVm.prefixScan(vmId + "|", Serdes.String().serializer())) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /**
   * Up to {@code n} of the VM's rows in {@code order} after position {@code after} (null: from the first), through
   * {@link StoreNames#MIGRATIONS_BY_VM_ORDER}, in that order, as at the last commit.
   *
   * <p>The index and the rows are two stores, and a commit reaches them one after the other (the rows first), so an
   * iterator opened on the index may predate the rows it reads by one commit. An entry whose row has moved since is
   * then not taken at the entry's place: the row is listed at its place now if that lies within the positions this
   * read covered, and is otherwise left to the read that covers it, so that it is listed once and in order.
   */
  List<MigrationRow> migrationsOfVm(String vmId, StorePartition at, VmOrderKeys.Order order, boolean desc, String after,
      int n) {
    ReadOnlyKeyValueStore<String, String> index = stores.store(StoreNames.MIGRATIONS_BY_VM_ORDER,
        QueryableStoreTypes.keyValueStore(), at);
    ReadOnlyKeyValueStore<String, MigrationRow> rows = stores.store(StoreNames.MIGRATIONS_BY_VM,
        QueryableStoreTypes.keyValueStore(), at);
    String prefix = VmOrderKeys.prefix(vmId, order);
    String from = after == null || desc ? prefix : prefix + after;
    String to = after == null || !desc ? prefix + '\uffff' : prefix + after;
    List<Placed> out = new ArrayList<>();
    List<MigrationRow> moved = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    String last = null;
    boolean ended;
    try (KeyValueIterator<String, String> it = desc ? index.reverseRange(from, to) : index.range(from, to)) {
      while (out.size() < n && it.hasNext()) {
        KeyValue<String, String> kv = it.next();
        String place = VmOrderKeys.positionOf(kv.key, prefix);
        if (place.equals(after)) {
          continue; // the cursor's own row: the range is inclusive
        }
        last = place;
        MigrationRow r = committed(rows, VmOrderKeys.rowKey(vmId, kv.value));
        if (r == null) {
          continue; // removed by a later commit
        }
        if (VmOrderKeys.position(order, r).equals(place)) {
          if (ids.add(r.id())) {
            out.add(new Placed(place, r));
          }
        } else {
          moved.add(r);
        }
      }
      ended = !it.hasNext();
    }
    for (MigrationRow r : moved) {
      String place = VmOrderKeys.position(order, r);
      boolean pastCursor = after == null || (desc ? place.compareTo(after) < 0 : place.compareTo(after) > 0);
      boolean covered = ended || last == null || (desc ? place.compareTo(last) >= 0 : place.compareTo(last) <= 0);
      if (pastCursor && covered && ids.add(r.id())) {
        out.add(new Placed(place, r));
      }
    }
    Comparator<Placed> byPlace = Comparator.comparing(Placed::place);
    return out.stream().sorted(desc ? byPlace.reversed() : byPlace).limit(n).map(Placed::row).toList();
  }

  /** A row and its position in the order read. */
  private record Placed(String place, MigrationRow row) {
  }

  /**
   * The value of {@code key} at the last commit, as an iterator sees it: a point {@code get} on the processor's
   * deferred stores also sees the writes of the commit in progress, a range does not.
   */
  static <V> V committed(ReadOnlyKeyValueStore<String, V> store, String key) {
    try (KeyValueIterator<String, V> it = store.range(key, key)) {
      return it.hasNext() ? it.next().value : null;
    }
  }

  /** The migration's summary, or none when this instance does not hold it. */
  List<MigrationSummary> migration(String id) {
    Migration m = this.<Migration>kv(StoreNames.MIGRATIONS).get(id);
    return m == null ? List.of() : List.of(MigrationSummary.of(m,
        this.<MigrationAlert>kv(StoreNames.ALERTS).get(id), this.<MigrationImpact>kv(StoreNames.IMPACTS).get(id)));
  }

  /**
   * The key of the VM whose partition holds migration {@code id}, from this instance's partition {@code at} of the
   * owners index ({@link StoreNames#MIGRATION_OWNERS}), or null when the index does not know it.
   */
  String ownerOf(String id, StorePartition at) {
    MigrationOwner o = stores.<ReadOnlyKeyValueStore<String, MigrationOwner>>store(StoreNames.MIGRATION_OWNERS,
        QueryableStoreTypes.keyValueStore(), at).get(id);
    return o == null ? null : o.vmKey();
  }

  /**
   * Migration {@code id} as {@code GET /api/migrations/{id}} shows it, from this instance's stores: its impact once
   * settled, else its summary; null when this instance does not hold it.
   */
  Object migrationRecord(String id) {
    MigrationImpact i = this.<MigrationImpact>kv(StoreNames.IMPACTS).get(id);
    if (i != null) {
      return i;
    }
    List<MigrationSummary> m = migration(id);
    return m.isEmpty() ? null : m.get(0);
  }

  /** The migration's impact, or none when this instance does not hold it. */
  List<MigrationImpact> impact(String id) {
    MigrationImpact i = this.<MigrationImpact>kv(StoreNames.IMPACTS).get(id);
    return i == null ? List.of() : List.of(i);
  }

  /**
   * This instance's alerts raised within {@code [from, to]}, in {@code state} (null: any), newest first, at most
   * {@code limit}: those of the migrations the start index marks under load.
   */
  List<MigrationAlert> alerts(Instant from, Instant to, MigrationAlert.AlertState state, int limit) {
    List<String> ids = new ArrayList<>();
    try (KeyValueIterator<String, MigrationRow> it = this.<MigrationRow>kv(StoreNames.MIGRATIONS_BY_START)
        .range(StartKeys.from(from.minus(START_BEFORE_RAISE)), StartKeys.to(to))) {
      it.forEachRemaining(kv -> {
        if (kv.value.underLoad()) {
          ids.add(kv.value.id());
        }
      });
    }
    ReadOnlyKeyValueStore<String, MigrationAlert> alerts = kv(StoreNames.ALERTS);
    List<MigrationAlert> out = new ArrayList<>();
    for (String id : ids) {
      MigrationAlert a = alerts.get(id);
      if (a != null && !a.raisedAt().isBefore(from) && !a.raisedAt().isAfter(to)
          && (state == null || a.state() == state)) {
        out.add(a);
      }
    }
    return newestFirst(out.stream(), limit);
  }

  /** Alerts newest first (by raise time, then id), at most {@code limit}. */
  static List<MigrationAlert> newestFirst(Stream<MigrationAlert> alerts, int limit) {
    return alerts.sorted(Comparator.comparing(MigrationAlert::raisedAt).reversed()
        .thenComparing(MigrationAlert::migrationId)).limit(limit).toList();
  }

  /** The VM's current load, keyed by its load key, or null. */
  CurrentLoad currentLoad(String loadKey, StorePartition at) {
    VmLive live = live(loadKey, at);
    return live == null ? null : live.current();
  }

  private VmLive live(String loadKey, StorePartition at) {
    return stores.store(StoreNames.VM_LIVE, QueryableStoreTypes.<String, VmLive>keyValueStore(), at).get(loadKey);
  }

  /**
   * The VM's load windows of {@code size} ({@code 10s}, {@code 1m}, {@code 1h}) starting within the range: the closed
   * ones from their store, the open one from the VM's live state.
   */
  List<LoadWindow> loadWindows(String loadKey, StorePartition at, String size, Instant from, Instant to) {
    String name = switch (size) {
      case "1h" -> StoreNames.VM_LOAD_1H;
      case "1m" -> StoreNames.VM_LOAD_1M;
      default -> StoreNames.VM_LOAD_10S;
    };
    ReadOnlyWindowStore<String, LoadAggregate> s = stores.store(name, QueryableStoreTypes.windowStore(), at);
    long width = switch (size) {
      case "1h" -> 3_600_000;
      case "1m" -> 60_000;
      default -> 10_000;
    };
    VmLive live = live(loadKey, at);
    VmLive.Open<LoadAggregate> open = live == null ? null : live.loadWindow(name);
    List<KeyValue<Long, LoadAggregate>> windows;
    try (WindowStoreIterator<LoadAggregate> it = s.fetch(loadKey, from, to)) {
      windows = LiveReads.merged(it, open == null ? 0 : open.start(), open == null ? null : open.value(),
          from.toEpochMilli(), to.toEpochMilli());
    }
    List<LoadWindow> out = new ArrayList<>();
    windows.forEach(kv -> out.add(new LoadWindow(Instant.ofEpochMilli(kv.key), Instant.ofEpochMilli(kv.key + width),
        kv.value)));
    return out;
  }

  /** This instance's host GPUs; a GPU several tasks hold is given once, as last reported. */
  List<HostGpu> hostGpus() {
    Map<String, HostGpu> newest = new LinkedHashMap<>();
    try (KeyValueIterator<String, HostGpu> it = this.<HostGpu>kv(StoreNames.HOST_GPUS).all()) {
      it.forEachRemaining(kv -> newest.merge(kv.key, kv.value, HostGpu::newer));
    }
    return new ArrayList<>(newest.values());
  }

  /** The VMs this instance's tasks protect. */
  List<GuardState> guarded() {
    List<GuardState> out = new ArrayList<>();
    try (KeyValueIterator<String, GuardState> it = this.<GuardState>kv(StoreNames.GUARD_STATE).all()) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /** The guard's audit trails held by this instance's tasks. */
  List<GuardTrail> guardTrails() {
    List<GuardTrail> out = new ArrayList<>();
    try (KeyValueIterator<String, GuardTrail> it = this.<GuardTrail>kv(StoreNames.GUARD_TRAIL).all()) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /**
   * The daily utilization rows of the days within the range, one per VM, host and load source: the closed days from
   * their store, each VM's open day from its live state.
   */
  List<UtilizationRow> utilization(Instant from, Instant to) {
    ReadOnlyWindowStore<String, UtilizationDay> s = stores.store(StoreNames.UTILIZATION_DAILY,
        QueryableStoreTypes.windowStore());
    Map<DayKey, UtilizationDay> days = new LinkedHashMap<>();
    try (KeyValueIterator<Windowed<String>, UtilizationDay> it = s.fetchAll(from, to)) {
      it.forEachRemaining(kv -> days.put(new DayKey(kv.key.key(), kv.key.window().start()), kv.value));
    }
    try (KeyValueIterator<String, VmLive> it = this.<VmLive>kv(StoreNames.VM_LIVE).all()) {
      while (it.hasNext()) {
        KeyValue<String, VmLive> kv = it.next();
        VmLive.Open<UtilizationDay> day = kv.value.day();
        if (day != null && day.start() >= from.toEpochMilli() && day.start() <= to.toEpochMilli()) {
          days.put(new DayKey(kv.key, day.start()), day.value());
        }
      }
    }
    List<UtilizationRow> out = new ArrayList<>();
    days.forEach((key, day) -> day.byHost().forEach((host, sec) -> out.add(new UtilizationRow(
        Instant.ofEpochMilli(key.start()), LoadKeys.vmId(key.loadKey()), host, sec.busy(), sec.idle(), sec.unknown(),
        LoadKeys.source(key.loadKey())))));
    return out;
  }

  /** A VM's day: its load key and the day's start, epoch ms. */
  private record DayKey(String loadKey, long start) {
  }

  /** Every value of a global store (the model, the inventories): every instance holds all of it. */
  <V> List<V> global(String store) {
    List<V> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, ValueAndTimestamp<V>> s = stores.store(store,
        QueryableStoreTypes.timestampedKeyValueStore());
    try (KeyValueIterator<String, ValueAndTimestamp<V>> it = s.all()) {
      it.forEachRemaining(kv -> out.add(kv.value.value()));
    }
    return out;
  }

  private <V> ReadOnlyKeyValueStore<String, V> kv(String name) {
    return stores.store(name, QueryableStoreTypes.keyValueStore());
  }
}
