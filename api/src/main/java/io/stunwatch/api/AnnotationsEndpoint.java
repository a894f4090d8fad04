package io.stunwatch.api;

import io.stunwatch.model.VmIds;
import io.stunwatch.processor.readmodel.AnnotatedMigration;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.MigrationAnnotation;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/grafana/annotations?from&to&vm}: one region annotation per migration (start to end) for Grafana,
 * as the flat array the Infinity datasource reads: {@code time}, {@code timeEnd} (epoch ms), {@code title},
 * {@code text}, {@code tags} ({@link MigrationAnnotation}), read from the hourly annotation blocks, or from the VM's
 * rows when {@code vm} is its id; both carry the annotation rendered.
 */
final class AnnotationsEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Duration longestMigration;
  private final Clock clock;

  AnnotationsEndpoint(StoreReader stores, ApiConfig config, Duration longestMigration, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.longestMigration = longestMigration;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/grafana/annotations").handler(rc -> {
      Params p = new Params(rc);
      Instant now = clock.instant();
      TimeRange range = p.range(now.minus(Duration.ofHours(24)), now, config.maxRange());
      String vm = p.text("vm");
      int limit = p.limit(1000, config.maxPageSize());
      // A migration that started before the range but ended in it is shown too; none runs longer than the
      // processor's migration timeout, so the hours are read from that far back and no further.
      String vmId = vm != null && VmIds.isUuid(vm) ? VmIds.canonical(vm) : null;
      if (vmId != null) {
        // a VM's own index holds only its rows
        respond.json(rc, stores.migrationsOfVm(vmId).map(rows -> answer(rows, range, null, limit)));
      } else {
        respond.json(rc, stores.annotationBlocks(range.from().minus(longestMigration), range.to()).map(blocks -> {
          List<AnnotationBlock.Entry> entries = new ArrayList<>();
          blocks.forEach(b -> entries.addAll(b.entries()));
          return answer(entries, range, vm, limit);
        }));
      }
    });
  }

  /**
   * The annotations of {@code candidates} that overlap {@code range} and, when {@code vm} is given, are of the VM
   * with that id or name, oldest first, at most {@code limit}.
   */
  private static ApiServer.JsonBody answer(List<? extends AnnotatedMigration> candidates, TimeRange range, String vm,
      int limit) {
    List<AnnotatedMigration> kept = new ArrayList<>();
    for (AnnotatedMigration a : candidates) {
      if (a.compareEndTo(range.from()) >= 0 && a.compareStartTo(range.to()) <= 0
          && (vm == null || vm.equalsIgnoreCase(a.vmId()) || vm.equals(a.vmName()))) {
        kept.add(a);
      }
    }
    kept.sort(AnnotatedMigration.BY_START);
    return new ApiServer.JsonBody(RenderedRows.annotations(kept.subList(0, Math.min(limit, kept.size()))));
  }
}
