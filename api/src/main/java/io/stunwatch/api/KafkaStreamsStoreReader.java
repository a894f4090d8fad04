package io.stunwatch.api;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.view.AnnotationBlock;
import io.stunwatch.processor.view.CurrentLoad;
import io.stunwatch.processor.view.HostGpu;
import io.stunwatch.processor.view.LoadAggregate;
import io.stunwatch.processor.view.LoadKeys;
import io.stunwatch.processor.view.MigrationRow;
import io.stunwatch.processor.view.MigrationSummary;
import io.stunwatch.processor.view.StartKeys;
import io.stunwatch.processor.view.StoreNames;
import io.stunwatch.processor.view.UtilizationDay;
import io.stunwatch.processor.view.VmOrderKeys;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * {@link StoreReader} over Kafka Streams interactive queries. This instance's stores are read on a worker thread
 * (RocksDB blocks); the other instances' parts come from their {@code /internal/...} routes ({@link #addRoutes}),
 * found through {@code application.server} metadata. A key-partitioned store (by VM id) is asked only of the
 * instance that owns the key; stores keyed otherwise are asked of every instance and merged.
 */
public final class KafkaStreamsStoreReader implements StoreReader {

  static final String INTERNAL = "/internal/";

  /** The partitioned stores the API reads: each must be reachable on some instance. */
  private static final List<String> QUERIED_STORES = List.of(StoreNames.VM_LOAD_CURRENT, StoreNames.MIGRATIONS,
      StoreNames.MIGRATIONS_BY_START, StoreNames.MIGRATIONS_BY_VM, StoreNames.IMPACTS, StoreNames.ALERTS,
      StoreNames.UTILIZATION_DAILY, StoreNames.ANNOTATIONS_BY_HOUR);

  private final Vertx vertx;
  private final KafkaStreams streams;
  private final HostInfo self;
  private final WebClient client;
  private final String token;
  private final ApiConfig config;
  private final ObjectMapper json = Json.mapper();
  /**
   * One thread per core for store reads. With Vert.x's twenty shared workers, twenty range reads time-shared the
   * cores and every one of them finished late; queued instead, most finish sooner and the tail shrinks.
   */
  private final WorkerExecutor reads;

  /**
   * @param config the instance's settings: other instances are called with its internal token, over HTTPS when it
   *               serves HTTPS (they share the scheme), trusting {@code api.tls.ca} and verifying their names
   */
  public KafkaStreamsStoreReader(Vertx vertx, KafkaStreams streams, HostInfo self, ApiConfig config) {
    this.vertx = vertx;
    this.reads = vertx.createSharedWorkerExecutor("stunwatch-store-reads",
        Runtime.getRuntime().availableProcessors());
    this.streams = streams;
    this.self = self;
    WebClientOptions options = new WebClientOptions()
        .setUserAgent("stunwatch-api (internal)");
    if (config.tlsCert() != null) {
      options.setSsl(true).setVerifyHost(true);
      if (config.tlsCa() != null) {
        options.setTrustOptions(new PemTrustOptions().addCertPath(config.tlsCa().toString()));
      }
    }
    this.client = WebClient.create(vertx, options);
    this.token = config.internalToken();
    this.config = config;
  }

  // --- the whole application -------------------------------------------------------------------------------------

  @Override
  public Future<List<MigrationRow>> migrations(Instant from, Instant to) {
    String query = "migrations?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli();
    return everywhere(() -> localMigrations(from, to), h -> remoteStored(h, query, MigrationRow::decode));
  }

  @Override
  public Future<List<MigrationRow>> migrationsOfVm(String vmId) {
    return ofVm(vmId, at -> localMigrationsOfVm(vmId, at),
        (host, stale) -> remoteStored(host, "vm-migrations?vm=" + enc(vmId) + stale, MigrationRow::decode));
  }

  @Override
  public Future<List<MigrationRow>> migrationsOfVm(String vmId, VmOrderKeys.Order order, boolean desc, String after,
      int n) {
    return ofVm(vmId, at -> localMigrationsOfVm(vmId, at, order, desc, after, n),
        (host, stale) -> remoteStored(host, "vm-migrations-page?vm=" + enc(vmId) + "&order="
            + order.name().toLowerCase(Locale.ROOT) + "&desc=" + desc + (after == null ? "" : "&after=" + enc(after))
            + "&limit=" + n + stale, MigrationRow::decode));
  }

  @Override
  public Future<List<AnnotationBlock>> annotationBlocks(Instant from, Instant to) {
    String query = "annotation-blocks?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli();
    return everywhere(() -> localBlocks(from, to), h -> remoteStored(h, query, AnnotationBlock::decode));
  }

  @Override
  public Future<Optional<MigrationSummary>> migration(String migrationId) {
    // Migrations are partitioned by VM, not by their id: one point lookup per instance.
    return everywhere("migration?id=" + enc(migrationId), MigrationSummary.class, () -> localMigration(migrationId))
        .map(list -> list.stream().findFirst());
  }

  @Override
  public Future<Optional<MigrationImpact>> impact(String migrationId) {
    // Impacts are partitioned by VM, not by their id: any instance may hold it.
    return everywhere("impact?id=" + URLEncoder.encode(migrationId, StandardCharsets.UTF_8),
        MigrationImpact.class, () -> localImpact(migrationId))
        .map(list -> list.stream().findFirst());
  }

  @Override
  public Future<List<MigrationAlert>> alerts(Instant from, Instant to, MigrationAlert.AlertState state, int limit) {
    String query = "alerts?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli()
        + (state == null ? "" : "&state=" + state.name().toLowerCase(Locale.ROOT)) + "&limit=" + limit;
    return everywhere(query, MigrationAlert.class, () -> localAlerts(from, to, state, limit))
        .map(all -> newestFirst(all.stream(), limit));
  }

  /** Alerts newest first (by raise time, then id), at most {@code limit}. */
  static List<MigrationAlert> newestFirst(Stream<MigrationAlert> alerts, int limit) {
    return alerts.sorted(Comparator.comparing(MigrationAlert::raisedAt).reversed()
        .thenComparing(MigrationAlert::migrationId)).limit(limit).toList();
  }

  /**
   * How much earlier than its alert's raise time a migration's start may be: the alert is raised at the start as
   * known then, and an event that comes later can only move the start earlier, by the span of one migration's
   * chain.
   */
  static final Duration START_BEFORE_RAISE = Duration.ofHours(1);

  private List<MigrationAlert> localAlerts(Instant from, Instant to, MigrationAlert.AlertState state, int limit) {
    List<String> ids = new ArrayList<>();
    try (KeyValueIterator<String, MigrationRow> it = this.<MigrationRow>kv(StoreNames.MIGRATIONS_BY_START)
        .range(StartKeys.from(from.minus(START_BEFORE_RAISE)),
            StartKeys.to(to))) {
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

  @Override
  public Future<Optional<CurrentLoad>> currentLoad(String loadKey) {
    return ofVm(LoadKeys.vmId(loadKey), at -> Optional.ofNullable(localCurrentLoad(loadKey, at)),
        (host, stale) -> remote(host, "current-load?vm=" + enc(loadKey) + stale, CurrentLoad.class)
            .map(l -> l.stream().findFirst()));
  }

  @Override
  public Future<List<LoadWindow>> loadWindows(String loadKey, String size, Instant from, Instant to) {
    String q = "load-windows?vm=" + enc(loadKey) + "&size=" + enc(size) + "&from=" + from.toEpochMilli() + "&to="
        + to.toEpochMilli();
    return ofVm(LoadKeys.vmId(loadKey), at -> localWindows(loadKey, at, size, from, to),
        (host, stale) -> remote(host, q + stale, LoadWindow.class));
  }

  @Override
  public Future<List<StunModelEntry>> model() {
    // The global copy: every instance has the whole model.
    return global(StoreNames.STUN_MODEL_GLOBAL);
  }

  @Override
  public Future<List<VmInventoryEntry>> vmInventory() {
    return global(StoreNames.VM_INVENTORY);
  }

  @Override
  public Future<List<HostInventoryEntry>> hostInventory() {
    return global(StoreNames.HOST_INVENTORY);
  }

  /** Every value of a global store: every instance holds all of it. */
  private <V> Future<List<V>> global(String store) {
    return blocking(() -> {
      List<V> out = new ArrayList<>();
      ReadOnlyKeyValueStore<String, ValueAndTimestamp<V>> s = store(store,
          QueryableStoreTypes.timestampedKeyValueStore());
      try (KeyValueIterator<String, ValueAndTimestamp<V>> it = s.all()) {
        it.forEachRemaining(kv -> out.add(kv.value.value()));
      }
      return out;
    });
  }

  @Override
  public Future<List<HostGpu>> hostGpus() {
    return everywhere("host-gpus", HostGpu.class, this::localHostGpus);
  }

  @Override
  public Future<List<UtilizationRow>> utilization(Instant from, Instant to) {
    return everywhere("utilization?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli(), UtilizationRow.class,
        () -> localUtilization(from, to));
  }

  // --- this instance ----------------------------------------------------------------------------------------------

  private List<MigrationRow> localMigrations(Instant from, Instant to) {
    List<MigrationRow> out = new ArrayList<>();
    try (KeyValueIterator<String, MigrationRow> it = this.<MigrationRow>kv(StoreNames.MIGRATIONS_BY_START)
        .range(StartKeys.from(from), StartKeys.to(to))) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  private List<AnnotationBlock> localBlocks(Instant from, Instant to) {
    List<AnnotationBlock> out = new ArrayList<>();
    try (KeyValueIterator<String, AnnotationBlock> it = this.<AnnotationBlock>kv(StoreNames.ANNOTATIONS_BY_HOUR)
        .range(StartKeys.hour(from), StartKeys.hour(to))) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  private List<MigrationRow> localMigrationsOfVm(String vmId, StoreAt partition) {
    List<MigrationRow> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, MigrationRow> byVm = storeOf(StoreNames.MIGRATIONS_BY_VM,
        QueryableStoreTypes.keyValueStore(), partition);
    try (KeyValueIterator<String, MigrationRow> it = byVm.prefixScan(vmId + "|", Serdes.String().serializer())) {
      it.forEachRemaining(kv -> out.add(kv.value));
    }
    return out;
  }

  /**
   * The VM's rows in one order from {@code after} on, through {@link StoreNames#MIGRATIONS_BY_VM_ORDER}. An index
   * entry that no longer names the row's place (the index and the rows reach RocksDB one after the other at a
   * commit) is skipped: the row is listed at its new place, never twice.
   */
  private List<MigrationRow> localMigrationsOfVm(String vmId, StoreAt partition, VmOrderKeys.Order order, boolean desc,
      String after, int n) {
    ReadOnlyKeyValueStore<String, String> index = storeOf(StoreNames.MIGRATIONS_BY_VM_ORDER,
        QueryableStoreTypes.keyValueStore(), partition);
    ReadOnlyKeyValueStore<String, MigrationRow> rows = storeOf(StoreNames.MIGRATIONS_BY_VM,
        QueryableStoreTypes.keyValueStore(), partition);
    String prefix = VmOrderKeys.prefix(vmId, order);
    String from = after == null || desc ? prefix : prefix + after;
    String to = after == null || !desc ? prefix + '\uffff' : prefix + after;
    List<MigrationRow> out = new ArrayList<>();
    try (KeyValueIterator<String, String> it = desc ? index.reverseRange(from, to) : index.range(from, to)) {
      while (out.size() < n && it.hasNext()) {
        KeyValue<String, String> kv = it.next();
        if (after != null && kv.key.length() == prefix.length() + after.length() && kv.key.endsWith(after)) {
          continue; // the cursor's own row: the range is inclusive
        }
        MigrationRow r = rows.get(VmOrderKeys.rowKey(vmId, kv.value));
        if (r != null && VmOrderKeys.position(order, r).equals(VmOrderKeys.positionOf(kv.key, prefix))) {
          out.add(r);
        }
      }
    }
    return out;
  }

  private List<MigrationSummary> localMigration(String id) {
    Migration m = this.<Migration>kv(StoreNames.MIGRATIONS).get(id);
    return m == null ? List.of() : List.of(MigrationSummary.of(m,
        this.<MigrationAlert>kv(StoreNames.ALERTS).get(id), this.<MigrationImpact>kv(StoreNames.IMPACTS).get(id)));
  }

  private List<MigrationImpact> localImpact(String id) {
    MigrationImpact i = this.<MigrationImpact>kv(StoreNames.IMPACTS).get(id);
    return i == null ? List.of() : List.of(i);
  }

  private CurrentLoad localCurrentLoad(String vmId, StoreAt partition) {
    return this.<ReadOnlyKeyValueStore<String, CurrentLoad>>storeOf(StoreNames.VM_LOAD_CURRENT,
        QueryableStoreTypes.keyValueStore(), partition).get(vmId);
  }

  private List<LoadWindow> localWindows(String vmId, StoreAt partition, String size, Instant from, Instant to) {
    String name = switch (size) {
      case "1h" -> StoreNames.VM_LOAD_1H;
      case "1m" -> StoreNames.VM_LOAD_1M;
      default -> StoreNames.VM_LOAD_10S;
    };
    ReadOnlyWindowStore<String, LoadAggregate> s = storeOf(name, QueryableStoreTypes.windowStore(), partition);
    long width = switch (size) {
      case "1h" -> 3_600_000;
      case "1m" -> 60_000;
      default -> 10_000;
    };
    List<LoadWindow> out = new ArrayList<>();
    try (WindowStoreIterator<LoadAggregate> it = s.fetch(vmId, from, to)) {
      it.forEachRemaining(kv -> out.add(new LoadWindow(Instant.ofEpochMilli(kv.key),
          Instant.ofEpochMilli(kv.key + width), kv.value)));
    }
    return out;
  }

  /** This instance's host GPUs; a GPU several tasks hold is given once, as last reported. */
  private List<HostGpu> localHostGpus() {
    Map<String, HostGpu> newest = new LinkedHashMap<>();
    ReadOnlyKeyValueStore<String, HostGpu> s = kv(StoreNames.HOST_GPUS);
    try (KeyValueIterator<String, HostGpu> it = s.all()) {
      it.forEachRemaining(kv -> newest.merge(kv.key, kv.value, HostGpu::newer));
    }
    return new ArrayList<>(newest.values());
  }

  private List<UtilizationRow> localUtilization(Instant from, Instant to) {
    ReadOnlyWindowStore<String, UtilizationDay> s = store(StoreNames.UTILIZATION_DAILY,
        QueryableStoreTypes.windowStore());
    List<UtilizationRow> out = new ArrayList<>();
    try (KeyValueIterator<Windowed<String>, UtilizationDay> it = s.fetchAll(from, to)) {
      while (it.hasNext()) {
        KeyValue<Windowed<String>, UtilizationDay> kv = it.next();
        kv.value.byHost().forEach((host, sec) -> out.add(new UtilizationRow(kv.key.window().startTime(),
            LoadKeys.vmId(kv.key.key()), host, sec.busy(), sec.idle(), sec.unknown(),
            LoadKeys.source(kv.key.key()))));
      }
    }
    return out;
  }

  private <V> ReadOnlyKeyValueStore<String, V> kv(String name) {
    return store(name, QueryableStoreTypes.keyValueStore());
  }

  private <T> T store(String name, QueryableStoreType<T> type) {
    return store(StoreQueryParameters.fromNameAndType(name, type));
  }

  /**
   * The store {@code name} of one partition: the one that holds a VM's keys. A read of every local partition
   * (Streams' default) opened an iterator, with its metrics, on each of them to find one VM's rows in one.
   */
  private <T> T storeOf(String name, QueryableStoreType<T> type, StoreAt at) {
    StoreQueryParameters<T> query = StoreQueryParameters.fromNameAndType(name, type).withPartition(at.partition());
    return store(at.stale() ? query.enableStaleStores() : query);
  }

  /**
   * Where a VM's keys are read: the partition, and whether a standby's copy (or a task still restoring) may answer,
   * which trails the active task by what its last commits wrote.
   */
  private record StoreAt(int partition, boolean stale) {
  }

  private <T> T store(StoreQueryParameters<T> query) {
    if (streams.state() != KafkaStreams.State.RUNNING && !(query.staleStoresEnabled()
        && streams.state() == KafkaStreams.State.REBALANCING)) {
      throw new StoresUnavailableException("the processor is " + streams.state());
    }
    try {
      return streams.store(query);
    } catch (InvalidStateStoreException e) {
      throw new StoresUnavailableException(query.storeName() + " is not queryable now: " + e.getMessage());
    }
  }

  private <T> Future<T> blocking(Callable<T> read) {
    return reads.executeBlocking(() -> {
      try {
        return read.call();
      } catch (InvalidStateStoreException e) {
        throw new StoresUnavailableException(e.getMessage());
      }
    }, false);
  }

  // --- the other instances ----------------------------------------------------------------------------------------

  /** This instance's part and every other instance's, concatenated. */
  private <V> Future<List<V>> everywhere(String query, Class<V> type, Callable<List<V>> local) {
    return everywhere(local, h -> remote(h, query, type));
  }

  /** This instance's part and every other instance's, as {@code remote} asks for it, concatenated. */
  private <V> Future<List<V>> everywhere(Callable<List<V>> local, Function<HostInfo, Future<List<V>>> remote) {
    List<HostInfo> others;
    try {
      others = others();
    } catch (StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
    List<Future<List<V>>> parts = new ArrayList<>();
    parts.add(blocking(local));
    for (HostInfo h : others) {
      parts.add(remote.apply(h));
    }
    return Future.all(parts).map(all -> {
      List<V> out = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        out.addAll(all.<List<V>>resultAt(i));
      }
      return out;
    });
  }

  /**
   * The other instances; fails when an instance that owns partitions serves no queries, rather than answer without
   * its part.
   */
  private List<HostInfo> others() {
    if (streams.state() == KafkaStreams.State.RUNNING) { // while rebalancing, partitions are between owners
      cachedWhyNotQueryable().ifPresent(why -> {
        throw new StateOutOfReachException(why);
      });
    }
    List<HostInfo> out = new ArrayList<>();
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      if (!m.hostInfo().equals(self) && m.hostInfo().port() > 0) {
        out.add(m.hostInfo());
      }
    }
    return out;
  }

  /**
   * Why part of the application's state cannot be queried: an instance of the group owns partitions but gave no
   * address ({@code application.server}), as {@code stunwatch process} does. A list would lack its part without a
   * word, and a lookup of one of its VMs would go nowhere. Empty when every part can be reached.
   */
  private volatile long checkedAt = Long.MIN_VALUE;
  private volatile Optional<String> lastCheck = Optional.empty();

  /** {@link #whyNotQueryable}, asked at most once a second: lists ask it on every request. */
  private Optional<String> cachedWhyNotQueryable() {
    long now = System.nanoTime();
    if (checkedAt == Long.MIN_VALUE || now - checkedAt > 1_000_000_000L) {
      lastCheck = whyNotQueryable();
      checkedAt = now;
    }
    return lastCheck;
  }

  public Optional<String> whyNotQueryable() {
    // Streams knows the address of every member that gave one; a partition of a member that gave none shows as
    // owned by the "unavailable" host. Every store the API reads is asked, partition by partition.
    Set<String> unreachable = new TreeSet<>();
    for (String store : QUERIED_STORES) {
      int[] partitions = {0};
      try {
        streams.queryMetadataForKey(store, "", (topic, key, value, n) -> {
          partitions[0] = n;
          return Optional.of(Set.of(0));
        });
        for (int p = 0; p < partitions[0]; p++) {
          int partition = p;
          KeyQueryMetadata m = streams.queryMetadataForKey(store, "",
              (topic, key, value, n) -> Optional.of(Set.of(partition)));
          if (m != null && !m.equals(KeyQueryMetadata.NOT_AVAILABLE) && m.activeHost() != null
              && m.activeHost().port() <= 0) {
            unreachable.add(store + "-" + partition);
          }
        }
      } catch (InvalidStateStoreException | IllegalArgumentException e) {
        // rebalancing, or a store this topology does not have: nothing to say about it now
      }
    }
    return unreachable.isEmpty() ? Optional.empty() : Optional.of(unreachable.size()
        + " store partitions of this application (" + String.join(", ", unreachable.stream().limit(4).toList())
        + (unreachable.size() > 4 ? ", ..." : "") + ") are owned by an instance that serves no queries (a "
        + "`stunwatch process` under the same process.application-id): run only `stunwatch api` instances where "
        + "the API is used");
  }

  /**
   * Where {@code vmId}'s keys are: the instance whose active task holds them, and the partition. Every VM-keyed
   * store is in the one sub-topology (they share the per-second history), whose sources Streams keeps
   * co-partitioned, so one answer serves them all. Answered on the caller's thread: it is an in-memory lookup of
   * the assignment, and a hop to a worker thread and back cost more than it.
   */
  private Future<KeyQueryMetadata> owner(String vmId) {
    try {
      return Future.succeededFuture(locate(vmId));
    } catch (StoresUnavailableException | StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
  }

  /** {@link #owner}, answered where it is asked. */
  private KeyQueryMetadata locate(String vmId) {
    KeyQueryMetadata m;
    try {
      m = streams.queryMetadataForKey(StoreNames.VM_LOAD_CURRENT, vmId, Serdes.String().serializer());
    } catch (InvalidStateStoreException e) {
      throw new StoresUnavailableException(e.getMessage());
    }
    if (m == null || m.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
      throw new StoresUnavailableException("no instance owns " + vmId + "'s partition right now");
    }
    if (m.activeHost() != null && m.activeHost().port() <= 0) {
      throw new StateOutOfReachException(vmId + "'s partition is owned by an instance that serves no queries (a "
          + "`stunwatch process` under the same process.application-id): run only `stunwatch api` instances where "
          + "the API is used");
    }
    return m;
  }

  /**
   * A read of one VM's keys, on the instance whose active task holds them. When that instance does not answer (it
   * was killed, its host is gone) the read goes to a standby of the task ({@code process.standby-replicas}), this
   * instance's or another's, whose copy trails the active by what its last commits wrote: the VM is answered at once
   * rather than after the group has moved the task ({@code process.session-timeout}, then a rebalance).
   *
   * @param local  the read on this instance, of a store partition (active, or a standby's copy)
   * @param remote the read on another instance, given the query suffix that asks it for its standby's copy
   */
  private <T> Future<T> ofVm(String vmId, Function<StoreAt, T> local, BiFunction<HostInfo, String, Future<T>> remote) {
    return owner(vmId).compose(m -> {
      Future<T> active = isLocal(m) ? blocking(() -> local.apply(new StoreAt(m.partition(), false)))
          : remote.apply(m.activeHost(), "");
      return active.recover(failure -> {
        if (failure instanceof ApiException || m.standbyHosts().isEmpty()) {
          return Future.failedFuture(failure);
        }
        Future<T> copy = m.standbyHosts().contains(self)
            ? blocking(() -> local.apply(new StoreAt(m.partition(), true)))
            : remote.apply(m.standbyHosts().iterator().next(), "&stale=true");
        return copy.recover(again -> Future.failedFuture(failure));
      });
    });
  }

  /** Where an internal route reads {@code vmId}'s keys: its partition, and a standby's copy when asked for. */
  private StoreAt at(Params p, String vmId) {
    return new StoreAt(locate(vmId).partition(), Boolean.TRUE.equals(p.bool("stale")));
  }

  private boolean isLocal(KeyQueryMetadata m) {
    return m.activeHost() == null || m.activeHost().equals(self);
  }

  private <V> Future<List<V>> remote(HostInfo host, String query, Class<V> type) {
    JavaType listType = json.getTypeFactory().constructCollectionType(List.class, type);
    return internal(host, query).compose(body -> {
      try {
        return Future.<List<V>>succeededFuture(json.readValue(body.getBytes(), listType));
      } catch (IOException e) {
        return Future.failedFuture(e);
      }
    });
  }

  /** Stored values (index rows, annotation blocks) from another instance ({@link RowArrays#stored}). */
  private <T> Future<List<T>> remoteStored(HostInfo host, String query, Function<byte[], T> decode) {
    return internal(host, query).compose(body -> {
      try {
        return Future.succeededFuture(RowArrays.read(body, decode));
      } catch (IllegalStateException e) {
        return Future.failedFuture(new IllegalStateException(host + " answered " + query + " with " + e.getMessage(),
            e));
      }
    });
  }

  /** The body of another instance's answer to {@code /internal/<query>}. */
  private Future<Buffer> internal(HostInfo host, String query) {
    return client.request(HttpMethod.GET, host.port(), host.host(), INTERNAL + query)
        .bearerTokenAuthentication(token)
        .timeout(5000)
        .send()
        .compose(r -> {
          if (r.statusCode() == 503) {
            return Future.failedFuture(new StoresUnavailableException(host + " is not ready"));
          }
          if (r.statusCode() != 200) {
            return Future.failedFuture(new IllegalStateException(host + " answered " + r.statusCode() + " to "
                + query));
          }
          return Future.succeededFuture(r.body() == null ? Buffer.buffer() : r.body());
        });
  }

  /**
   * The routes other instances call: this instance's part of each query, as a JSON array, or index rows stored.
   * They take the internal token only, and bound their parameters as the public routes that call them do: a range
   * no longer than the public one (plus what that route reads beyond it), a required VM or id, a known window.
   *
   * @param longestMigration how far before its range the annotations route reads blocks
   */
  public void addRoutes(Router router, ApiServer.Responder respond, Duration longestMigration) {
    Duration day = Duration.ofDays(1);
    router.get(INTERNAL + "migrations").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange());
      respond.json(rc, blocking(() -> localMigrations(r.from(), r.to()))
          .map(rows -> new ApiServer.BinaryBody(RowArrays.stored(rows))));
    });
    router.get(INTERNAL + "vm-migrations").handler(rc -> {
      Params p = new Params(rc);
      String vm = vmId(p);
      StoreAt at = at(p, vm);
      respond.json(rc, blocking(() -> localMigrationsOfVm(vm, at))
          .map(rows -> new ApiServer.BinaryBody(RowArrays.stored(rows))));
    });
    router.get(INTERNAL + "vm-migrations-page").handler(rc -> {
      Params p = new Params(rc);
      String vm = vmId(p);
      VmOrderKeys.Order order = VmOrderKeys.Order.valueOf(p.choice("order",
          Set.of("start", "stun", "duration"), "start").toUpperCase(Locale.ROOT));
      boolean desc = Boolean.TRUE.equals(p.bool("desc"));
      String after = p.text("after");
      int n = p.limit(config.maxPageSize(), MigrationsEndpoint.MAX_VM_CHUNK);
      StoreAt at = at(p, vm);
      respond.json(rc, blocking(() -> localMigrationsOfVm(vm, at, order, desc, after, n))
          .map(rows -> new ApiServer.BinaryBody(RowArrays.stored(rows))));
    });
    router.get(INTERNAL + "annotation-blocks").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange().plus(longestMigration));
      respond.json(rc, blocking(() -> localBlocks(r.from(), r.to()))
          .map(blocks -> new ApiServer.BinaryBody(RowArrays.stored(blocks, AnnotationBlock::storedLength,
              AnnotationBlock::writeStored))));
    });
    router.get(INTERNAL + "alerts").handler(rc -> {
      Params p = new Params(rc);
      TimeRange r = p.range(Instant.EPOCH, Instant.now(), config.maxRange());
      String state = p.choice("state", Set.of("firing", "resolved"), null);
      int limit = p.limit(config.maxPageSize(), config.maxPageSize());
      respond.json(rc, blocking(() -> localAlerts(r.from(), r.to(), state == null ? null
          : MigrationAlert.AlertState.valueOf(state.toUpperCase(Locale.ROOT)), limit)));
    });
    router.get(INTERNAL + "migration").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, blocking(() -> localMigration(id)));
    });
    router.get(INTERNAL + "impact").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, blocking(() -> localImpact(id)));
    });
    router.get(INTERNAL + "current-load").handler(rc -> {
      Params p = new Params(rc);
      String vm = vmId(p);
      StoreAt at = at(p, LoadKeys.vmId(vm));
      respond.json(rc, blocking(() -> {
        CurrentLoad l = localCurrentLoad(vm, at);
        return l == null ? List.of() : List.of(l);
      }));
    });
    router.get(INTERNAL + "load-windows").handler(rc -> {
      Params p = new Params(rc);
      String vm = vmId(p);
      String size = p.choice("size", Set.of("10s", "1m", "1h"), null);
      if (size == null) {
        throw ApiException.badParameter("size", "is required");
      }
      TimeRange r = p.range(Instant.EPOCH, Instant.now(), config.maxRange());
      StoreAt at = at(p, LoadKeys.vmId(vm));
      respond.json(rc, blocking(() -> localWindows(vm, at, size, r.from(), r.to())));
    });
    router.get(INTERNAL + "host-gpus").handler(rc -> respond.json(rc, blocking(this::localHostGpus)));
    router.get(INTERNAL + "utilization").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange().plus(day));
      respond.json(rc, blocking(() -> localUtilization(r.from(), r.to())));
    });
  }

  private static String required(Params p, String name) {
    String v = p.text(name);
    if (v == null) {
      throw ApiException.badParameter(name, "is required");
    }
    return v;
  }

  /** The {@code vm} parameter, as the public route took it (bounded in length, no control characters). */
  private static String vmId(Params p) {
    return required(p, "vm");
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
