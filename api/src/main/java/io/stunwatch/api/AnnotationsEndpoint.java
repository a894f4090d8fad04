package io.stunwatch.api;

import io.stunwatch.model.VmIds;
import io.stunwatch.processor.MigrationAnnotation;
import io.stunwatch.processor.MigrationRow;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/grafana/annotations?from&to&vm}: one region annotation per migration (start to end) for Grafana,
 * as the flat array the Infinity datasource reads: {@code time}, {@code timeEnd} (epoch ms), {@code title},
 * {@code text}, {@code tags} ({@link MigrationAnnotation}, which each stored row carries rendered).
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
      Instant[] range = p.range(now.minus(Duration.ofHours(24)), now, config.maxRange());
      String vm = p.text("vm");
      int limit = p.limit(1000, config.maxPageSize());
      // A migration that started before the range but ended in it is shown too; none runs longer than the
      // processor's migration timeout, so the start index is read from that far back and no further.
      String vmId = vm != null && VmIds.isUuid(vm) ? VmIds.canonical(vm) : null;
      var source = vmId != null ? stores.migrationsOfVm(vmId)
          : stores.migrations(range[0].minus(longestMigration), range[1]);
      respond.json(rc, source.map(all -> {
        List<MigrationRow> kept = new ArrayList<>();
        for (MigrationRow r : all) {
          // a VM's own index holds only its rows; a name is compared only when the time index was read
          if (r.compareEndTo(range[0]) >= 0 && r.compareStartTo(range[1]) <= 0
              && (vm == null || vmId != null || vm.equalsIgnoreCase(r.vmId()) || vm.equals(r.vmName()))) {
            kept.add(r);
          }
        }
        kept.sort(MigrationRow.BY_START);
        return new ApiServer.JsonBody(RowArrays.annotations(kept.subList(0, Math.min(limit, kept.size()))));
      }));
    });
  }
}
