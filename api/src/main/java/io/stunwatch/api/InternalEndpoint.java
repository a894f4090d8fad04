package io.stunwatch.api;

import io.stunwatch.model.MigrationAlert;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The routes other instances call ({@link InstanceClient}): this instance's part of each query, as a JSON array, or
 * index rows stored ({@link RenderedRows#stored}). They take the internal token only (checked by {@link ApiServer}),
 * and bound their parameters as the public routes that call them do: a range no longer than the public one (plus what
 * that route reads beyond it), a required VM or id, a known window. A VM's routes read the partition that holds it, or
 * a standby's copy when asked with {@code stale=true}.
 */
public final class InternalEndpoint {

  /** The path every internal route starts with. */
  static final String PATH = "/internal/";

  private final LocalStoreReader local;
  private final StoreLocator locator;
  private final ReadThreads threads;
  private final ApiConfig config;
  private final MigrationRecords records;

  InternalEndpoint(LocalStoreReader local, StoreLocator locator, ReadThreads threads, ApiConfig config,
      MigrationRecords records) {
    this.local = local;
    this.locator = locator;
    this.threads = threads;
    this.config = config;
    this.records = records;
  }

  /**
   * @param longestMigration how far before its range the annotations route reads blocks
   */
  void addRoutes(Router router, ApiServer.Responder respond, Duration longestMigration) {
    Duration day = Duration.ofDays(1);
    router.get(PATH + "migrations").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange());
      respond.json(rc, threads.run(() -> local.migrations(r.from(), r.to()))
          .map(rows -> new ApiServer.BinaryBody(RenderedRows.stored(rows))));
    });
    router.get(PATH + "vm-migrations").handler(rc -> {
      Params p = new Params(rc);
      String vm = required(p, "vm");
      StorePartition at = at(p, vm);
      respond.json(rc, threads.run(() -> local.migrationsOfVm(vm, at))
          .map(rows -> new ApiServer.BinaryBody(RenderedRows.stored(rows))));
    });
    router.get(PATH + "vm-migrations-page").handler(rc -> {
      Params p = new Params(rc);
      String vm = required(p, "vm");
      VmOrderKeys.Order order = VmOrderKeys.Order.valueOf(p.choice("order",
          Set.of("start", "stun", "duration"), "start").toUpperCase(Locale.ROOT));
      boolean desc = Boolean.TRUE.equals(p.bool("desc"));
      String after = p.text("after");
      int n = p.limit(config.maxPageSize(), MigrationPages.MAX_VM_CHUNK);
      StorePartition at = at(p, vm);
      respond.json(rc, threads.run(() -> local.migrationsOfVm(vm, at, order, desc, after, n))
          .map(rows -> new ApiServer.BinaryBody(RenderedRows.stored(rows))));
    });
    router.get(PATH + "annotation-blocks").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange().plus(longestMigration));
      respond.json(rc, threads.run(() -> local.annotationBlocks(r.from(), r.to()))
          .map(blocks -> new ApiServer.BinaryBody(RenderedRows.stored(blocks, AnnotationBlock::storedLength,
              AnnotationBlock::writeStored))));
    });
    router.get(PATH + "alerts").handler(rc -> {
      Params p = new Params(rc);
      TimeRange r = p.range(Instant.EPOCH, Instant.now(), config.maxRange());
      String state = p.choice("state", Set.of("firing", "resolved"), null);
      int limit = p.limit(config.maxPageSize(), config.maxPageSize());
      respond.json(rc, threads.run(() -> local.alerts(r.from(), r.to(), state == null ? null
          : MigrationAlert.AlertState.valueOf(state.toUpperCase(Locale.ROOT)), limit)));
    });
    router.get(PATH + "migration").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, threads.run(() -> local.migration(id)));
    });
    router.get(PATH + "migration-record").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, records.fromIndex(id).map(InternalEndpoint::recordWithVm));
    });
    router.get(PATH + "migration-record-here").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, records.here(id).map(InternalEndpoint::record));
    });
    router.get(PATH + "impact").handler(rc -> {
      String id = required(new Params(rc), "id");
      respond.json(rc, threads.run(() -> local.impact(id)));
    });
    router.get(PATH + "current-load").handler(rc -> {
      Params p = new Params(rc);
      String vm = required(p, "vm");
      StorePartition at = at(p, LoadKeys.vmId(vm));
      respond.json(rc, threads.run(() -> {
        CurrentLoad l = local.currentLoad(vm, at);
        return l == null ? List.of() : List.of(l);
      }));
    });
    router.get(PATH + "load-windows").handler(rc -> {
      Params p = new Params(rc);
      String vm = required(p, "vm");
      String size = p.choice("size", Set.of("10s", "1m", "1h"), null);
      if (size == null) {
        throw ApiException.badParameter("size", "is required");
      }
      TimeRange r = p.range(Instant.EPOCH, Instant.now(), config.maxRange());
      StorePartition at = at(p, LoadKeys.vmId(vm));
      respond.json(rc, threads.run(() -> local.loadWindows(vm, at, size, r.from(), r.to())));
    });
    router.get(PATH + "host-gpus").handler(rc -> respond.json(rc, threads.run(local::hostGpus)));
    router.get(PATH + "guarded").handler(rc -> respond.json(rc, threads.run(local::guarded)));
    router.get(PATH + "guard-trails").handler(rc -> respond.json(rc, threads.run(local::guardTrails)));
    router.get(PATH + "utilization").handler(rc -> {
      TimeRange r = new Params(rc).range(Instant.EPOCH, Instant.now(), config.maxRange().plus(day));
      respond.json(rc, threads.run(() -> local.utilization(r.from(), r.to())));
    });
  }

  /** A record and, where known, its VM's key in {@link MigrationRecords#VM_KEY_HEADER}; 204 where none is held. */
  private static Object recordWithVm(Optional<MigrationRecords.Held> held) {
    return held.<Object>map(h -> h.vmKey() == null ? new ApiServer.JsonBody(h.json())
        : new ApiServer.Answer(Map.of(MigrationRecords.VM_KEY_HEADER, MigrationRecords.enc(h.vmKey())),
            new ApiServer.JsonBody(h.json()))).orElse(ApiServer.NO_CONTENT);
  }

  /** A migration's record as rendered, or no content: this instance does not hold it. */
  private static Object record(Optional<Buffer> json) {
    return json.<Object>map(ApiServer.JsonBody::new).orElse(ApiServer.NO_CONTENT);
  }

  /** Where a route reads {@code vmId}'s keys: its partition, and a standby's copy when asked for. */
  private StorePartition at(Params p, String vmId) {
    return new StorePartition(locator.owner(vmId).partition(), Boolean.TRUE.equals(p.bool("stale")));
  }

  /** A required parameter, as the public route took it (bounded in length, no control characters). */
  private static String required(Params p, String name) {
    String v = p.text(name);
    if (v == null) {
      throw ApiException.badParameter(name, "is required");
    }
    return v;
  }
}
