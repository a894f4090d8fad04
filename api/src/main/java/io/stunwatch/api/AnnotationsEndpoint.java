package io.stunwatch.api;

import io.stunwatch.model.Migration;
import io.stunwatch.processor.MigrationSummary;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /api/grafana/annotations?from&to&vm}: one region annotation per migration (start to end) for Grafana,
 * as the flat array the Infinity datasource reads: {@code time}, {@code timeEnd} (epoch ms), {@code title},
 * {@code text}, {@code tags}.
 */
final class AnnotationsEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Duration longestMigration;
  private final JsonFragments<MigrationSummary> rendered;
  private final Clock clock;

  /** @param rendered the annotations' JSON by summary instance ({@link Annotation#of}) */
  AnnotationsEndpoint(StoreReader stores, ApiConfig config, Duration longestMigration,
      JsonFragments<MigrationSummary> rendered, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.longestMigration = longestMigration;
    this.rendered = rendered;
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
      var source = vm != null && io.stunwatch.model.VmIds.isUuid(vm)
          ? stores.migrationsOfVm(io.stunwatch.model.VmIds.canonical(vm))
          : stores.migrations(range[0].minus(longestMigration), range[1]);
      respond.json(rc, source.map(all -> all.stream().filter(s -> s.migration().startTime() != null)
          .filter(s -> {
            Migration m = s.migration();
            Instant end = m.endTime() != null ? m.endTime() : m.startTime();
            return !end.isBefore(range[0]) && !m.startTime().isAfter(range[1])
                && (vm == null || vm.equalsIgnoreCase(m.vmId()) || vm.equals(m.vmName()));
          })
          .sorted(Comparator.comparing(s -> s.migration().startTime()))
          .limit(limit)
          .toList()).map(page -> new ApiServer.JsonBody(rendered.array(page))));
    });
  }

  /**
   * One region annotation, in the fields Grafana's Infinity datasource maps.
   *
   * @param time        start, epoch ms
   * @param timeEnd     end (the start while running), epoch ms
   * @param title       {@code vMotion <vm> <state>}
   * @param text        hosts, initiator, stun time and whether it ran under load
   * @param tags        {@code vmotion}, the initiator, the state, and {@code under-load} when it was
   * @param migrationId the migration, for a link to its drill-down
   * @param vmId        the VM
   */
  record Annotation(long time, long timeEnd, String title, String text, List<String> tags, String migrationId,
      String vmId) {

    static Annotation of(MigrationSummary s) {
      Migration m = s.migration();
      String text = (m.sourceHost() == null ? "?" : m.sourceHost().name()) + " → "
          + (m.destHost() == null ? "?" : m.destHost().name()) + ", " + m.initiator()
          + (s.stun() != null && s.stun().seconds() != null ? ", stun " + s.stun().seconds() + " s" : "")
          + (s.underLoad() ? ", under load" : "");
      String initiator = String.valueOf(m.initiator()).toLowerCase(Locale.ROOT);
      String state = m.state().name().toLowerCase(Locale.ROOT);
      List<String> tags = s.underLoad() ? List.of("vmotion", initiator, state, "under-load")
          : List.of("vmotion", initiator, state);
      return new Annotation(m.startTime().toEpochMilli(),
          (m.endTime() != null ? m.endTime() : m.startTime()).toEpochMilli(), "vMotion " + m.vmName() + " " + m.state(),
          text, tags, m.id(), m.vmId());
    }
  }
}
