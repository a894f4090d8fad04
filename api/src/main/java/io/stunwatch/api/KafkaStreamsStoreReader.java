package io.stunwatch.api;

import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreType;

/**
 * {@link StoreReader} over Kafka Streams interactive queries, for the whole application. It is wired from four
 * parts, each with one job:
 * <ul>
 *   <li>{@link LocalStoreReader} reads this instance's stores, on {@link ReadThreads} (RocksDB blocks);</li>
 *   <li>{@link StoreLocator} knows from {@code application.server} metadata which instance holds what;</li>
 *   <li>{@link InstanceClient} asks the other instances for their parts;</li>
 *   <li>{@link InternalEndpoint} answers them ({@link #internalEndpoint}).</li>
 * </ul>
 * A key-partitioned store (by VM id) is asked only of the instance that owns the key, or of a standby when that
 * instance does not answer; stores keyed otherwise are asked of every instance and merged.
 */
public final class KafkaStreamsStoreReader implements StoreReader {

  private final KafkaStreams streams;
  private final ReadThreads threads;
  private final LocalStoreReader local;
  private final StoreLocator locator;
  private final InstanceClient instances;
  private final InternalEndpoint internal;
  private final MigrationRecords records;

  /**
   * @param config the instance's settings: other instances are called with its internal token, over HTTPS when it
   *               serves HTTPS, trusting {@code api.tls.ca}
   */
  public KafkaStreamsStoreReader(Vertx vertx, KafkaStreams streams, HostInfo self, ApiConfig config) {
    this.streams = streams;
    this.threads = new ReadThreads(vertx);
    this.local = new LocalStoreReader(new InteractiveQueries());
    this.locator = new StoreLocator(StoreLocator.Metadata.of(streams), self, System::nanoTime);
    this.instances = new InstanceClient(vertx, config);
    this.records = new MigrationRecords(local, locator, instances, threads);
    this.internal = new InternalEndpoint(local, locator, threads, config, records);
  }

  /** The routes the other instances call for this one's parts. */
  InternalEndpoint internalEndpoint() {
    return internal;
  }

  /**
   * Why part of the application's state cannot be queried (an instance that owns partitions serves no queries), or
   * empty.
   */
  public Optional<String> whyNotQueryable() {
    return locator.whyNotQueryable();
  }

  @Override
  public Future<List<MigrationRow>> migrations(Instant from, Instant to) {
    String query = "migrations?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli();
    return everywhere(() -> local.migrations(from, to), h -> instances.stored(h, query, MigrationRow::decode));
  }

  @Override
  public Future<List<MigrationRow>> migrationsOfVm(String vmId) {
    return ofVm(vmId, at -> local.migrationsOfVm(vmId, at),
        (host, stale) -> instances.stored(host, "vm-migrations?vm=" + enc(vmId) + stale, MigrationRow::decode));
  }

  @Override
  public Future<List<MigrationRow>> migrationsOfVm(String vmId, VmOrderKeys.Order order, boolean desc, String after,
      int n) {
    return ofVm(vmId, at -> local.migrationsOfVm(vmId, at, order, desc, after, n),
        (host, stale) -> instances.stored(host, "vm-migrations-page?vm=" + enc(vmId) + "&order="
            + order.name().toLowerCase(Locale.ROOT) + "&desc=" + desc + (after == null ? "" : "&after=" + enc(after))
            + "&limit=" + n + stale, MigrationRow::decode));
  }

  @Override
  public Future<List<AnnotationBlock>> annotationBlocks(Instant from, Instant to) {
    String query = "annotation-blocks?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli();
    return everywhere(() -> local.annotationBlocks(from, to),
        h -> instances.stored(h, query, AnnotationBlock::decode));
  }

  @Override
  public Future<Optional<MigrationSummary>> migration(String migrationId) {
    // Migrations are partitioned by VM, not by their id: one point lookup per instance.
    return everywhere(() -> local.migration(migrationId),
        h -> instances.json(h, "migration?id=" + enc(migrationId), MigrationSummary.class))
        .map(list -> list.stream().findFirst());
  }

  @Override
  public Future<Optional<Buffer>> migrationRecord(String migrationId) {
    return records.find(migrationId);
  }

  @Override
  public Future<Optional<MigrationImpact>> impact(String migrationId) {
    // Impacts are partitioned by VM, not by their id: any instance may hold it.
    return everywhere(() -> local.impact(migrationId),
        h -> instances.json(h, "impact?id=" + enc(migrationId), MigrationImpact.class))
        .map(list -> list.stream().findFirst());
  }

  @Override
  public Future<List<MigrationAlert>> alerts(Instant from, Instant to, MigrationAlert.AlertState state, int limit) {
    String query = "alerts?from=" + from.toEpochMilli() + "&to=" + to.toEpochMilli()
        + (state == null ? "" : "&state=" + state.name().toLowerCase(Locale.ROOT)) + "&limit=" + limit;
    return everywhere(() -> local.alerts(from, to, state, limit), h -> instances.json(h, query, MigrationAlert.class))
        .map(all -> LocalStoreReader.newestFirst(all.stream(), limit));
  }

  @Override
  public Future<Optional<CurrentLoad>> currentLoad(String loadKey) {
    return ofVm(LoadKeys.vmId(loadKey), at -> Optional.ofNullable(local.currentLoad(loadKey, at)),
        (host, stale) -> instances.json(host, "current-load?vm=" + enc(loadKey) + stale, CurrentLoad.class)
            .map(l -> l.stream().findFirst()));
  }

  @Override
  public Future<List<LoadWindow>> loadWindows(String loadKey, String size, Instant from, Instant to) {
    String q = "load-windows?vm=" + enc(loadKey) + "&size=" + enc(size) + "&from=" + from.toEpochMilli() + "&to="
        + to.toEpochMilli();
    return ofVm(LoadKeys.vmId(loadKey), at -> local.loadWindows(loadKey, at, size, from, to),
        (host, stale) -> instances.json(host, q + stale, LoadWindow.class));
  }

  @Override
  public Future<List<StunModelEntry>> model() {
    // The global copy: every instance has the whole model.
    return threads.run(() -> local.global(StoreNames.STUN_MODEL_GLOBAL));
  }

  @Override
  public Future<List<VmInventoryEntry>> vmInventory() {
    return threads.run(() -> local.global(StoreNames.VM_INVENTORY));
  }

  @Override
  public Future<List<HostInventoryEntry>> hostInventory() {
    return threads.run(() -> local.global(StoreNames.HOST_INVENTORY));
  }

  @Override
  public Future<List<HostGpu>> hostGpus() {
    return everywhere(local::hostGpus, h -> instances.json(h, "host-gpus", HostGpu.class));
  }

  @Override
  public Future<List<GuardState>> guarded() {
    return everywhere(local::guarded, h -> instances.json(h, "guarded", GuardState.class));
  }

  @Override
  public Future<List<GuardTrail>> guardTrails() {
    return everywhere(local::guardTrails, h -> instances.json(h, "guard-trails", GuardTrail.class));
  }

  @Override
  public Future<List<UtilizationRow>> utilization(Instant from, Instant to) {
    return everywhere(() -> local.utilization(from, to), h -> instances.json(h, "utilization?from="
        + from.toEpochMilli() + "&to=" + to.toEpochMilli(), UtilizationRow.class));
  }

  /** This instance's part and every other instance's, as {@code remote} asks for it, concatenated. */
  private <V> Future<List<V>> everywhere(Callable<List<V>> here, Function<HostInfo, Future<List<V>>> remote) {
    List<HostInfo> others;
    try {
      others = locator.others();
    } catch (StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
    List<Future<List<V>>> parts = new ArrayList<>();
    parts.add(threads.run(here));
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
   * A read of one VM's keys, on the instance whose active task holds them. When that instance does not answer (it
   * was killed, its host is gone) the read goes to a standby of the task ({@code process.standby-replicas}), this
   * instance's or another's, whose copy trails the active by what its last commits wrote: the VM is answered at once
   * rather than after the group has moved the task ({@code process.session-timeout}, then a rebalance). The owner is
   * found on the caller's thread: an in-memory lookup of the assignment costs less than a hop to a worker and back.
   *
   * @param here   the read on this instance, of a store partition (active, or a standby's copy)
   * @param remote the read on another instance, given the query suffix that asks it for its standby's copy
   */
  private <T> Future<T> ofVm(String vmId, Function<StorePartition, T> here,
      BiFunction<HostInfo, String, Future<T>> remote) {
    KeyQueryMetadata m;
    try {
      m = locator.owner(vmId);
    } catch (StoresUnavailableException | StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
    Future<T> active = locator.isLocal(m) ? threads.run(() -> here.apply(new StorePartition(m.partition(), false)))
        : remote.apply(m.activeHost(), "");
    return active.recover(failure -> {
      if (failure instanceof ApiException || m.standbyHosts().isEmpty()) {
        return Future.failedFuture(failure);
      }
      Future<T> copy = m.standbyHosts().contains(locator.self())
          ? threads.run(() -> here.apply(new StorePartition(m.partition(), true)))
          : remote.apply(m.standbyHosts().iterator().next(), "&stale=true");
      return copy.recover(again -> Future.failedFuture(failure));
    });
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /**
   * This instance's stores through interactive queries: only while the processor runs, or, for a standby's copy,
   * while it rebalances too. A read of every local partition (Streams' default) opened an iterator, with its metrics,
   * on each of them to find one VM's rows in one: a VM's stores are asked for its partition alone.
   */
  private final class InteractiveQueries implements StoreSource {

    @Override
    public <T> T store(String name, QueryableStoreType<T> type) {
      return query(StoreQueryParameters.fromNameAndType(name, type));
    }

    @Override
    public <T> T store(String name, QueryableStoreType<T> type, StorePartition at) {
      StoreQueryParameters<T> query = StoreQueryParameters.fromNameAndType(name, type).withPartition(at.partition());
      return query(at.stale() ? query.enableStaleStores() : query);
    }

    private <T> T query(StoreQueryParameters<T> query) {
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
  }
}
