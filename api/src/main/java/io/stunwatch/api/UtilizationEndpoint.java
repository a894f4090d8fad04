package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.LoadSource;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code GET /api/utilization?groupBy=vm|host&from&to}: the fleet audit, one row per VM (or host) and UTC day, in
 * GPU-hours busy, idle and unknown.
 */
final class UtilizationEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Clock clock;

  UtilizationEndpoint(StoreReader stores, ApiConfig config, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/utilization").handler(rc -> {
      Params p = new Params(rc);
      String groupBy = p.choice("groupBy", Set.of("vm", "host"), "vm");
      Instant now = clock.instant();
      TimeRange range = p.range(now.truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(6)), now,
          config.maxRange());
      // Every UTC day that overlaps [from, to]: Grafana's "last 30 days" does not start at midnight, and the day
      // it starts in must not be left out.
      respond.json(rc, stores.utilization(range.from().truncatedTo(ChronoUnit.DAYS), range.to()).map(rows -> {
        // A VM's day is counted in one view: the guest's where it has one, else the ESXi host's (never both, which
        // would count its GPU twice).
        Set<String> guestDays = new HashSet<>();
        for (StoreReader.UtilizationRow r : rows) {
          if (r.source() != LoadSource.HOST) {
            guestDays.add(r.day() + "|" + r.vmId());
          }
        }
        Map<String, double[]> sums = new TreeMap<>();
        Map<String, Set<LoadSource>> sources = new HashMap<>();
        for (StoreReader.UtilizationRow r : rows) {
          if (r.source() == LoadSource.HOST && guestDays.contains(r.day() + "|" + r.vmId())) {
            continue;
          }
          String key = r.day() + "|" + ("host".equals(groupBy) ? r.host() : r.vmId());
          double[] s = sums.computeIfAbsent(key, k -> new double[3]);
          s[0] += r.busySeconds();
          s[1] += r.idleSeconds();
          s[2] += r.unknownSeconds();
          sources.computeIfAbsent(key, k -> EnumSet.noneOf(LoadSource.class)).add(LoadSource.orGuest(r.source()));
        }
        List<Row> out = new ArrayList<>();
        sums.forEach((k, s) -> {
          String key = k.substring(k.indexOf('|') + 1);
          double known = s[0] + s[1];
          out.add(new Row(k.substring(0, k.indexOf('|')), "vm".equals(groupBy) ? key : null,
              "host".equals(groupBy) ? key : null, s[0] / 3600, s[1] / 3600, s[2] / 3600,
              known == 0 ? null : 100 * s[0] / known, List.copyOf(sources.get(k))));
        });
        return out;
      }));
    });
  }

  /**
   * One VM's (or host's) UTC day. Only the grouping's key is written ({@code vm} or {@code host}); a day with no
   * known second has a null {@code busyPct}, never 0. {@code sources} names the views its seconds were read in
   * (a VM's day: the guest's, or the ESXi host's for a VM with no guest readings that day).
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Row(String day, @JsonInclude(JsonInclude.Include.NON_NULL) String vm,
      @JsonInclude(JsonInclude.Include.NON_NULL) String host, double busyGpuHours, double idleGpuHours,
      double unknownGpuHours, Double busyPct, List<LoadSource> sources) {
  }
}
