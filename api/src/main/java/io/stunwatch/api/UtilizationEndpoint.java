package io.stunwatch.api;

import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
      Instant[] range = p.range(now.truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(6)), now,
          config.maxRange());
      // Every UTC day that overlaps [from, to]: Grafana's "last 30 days" does not start at midnight, and the day
      // it starts in must not be left out.
      respond.json(rc, stores.utilization(range[0].truncatedTo(ChronoUnit.DAYS), range[1]).map(rows -> {
        Map<String, double[]> sums = new TreeMap<>();
        for (StoreReader.UtilizationRow r : rows) {
          String key = r.day() + "|" + ("host".equals(groupBy) ? r.host() : r.vmId());
          double[] s = sums.computeIfAbsent(key, k -> new double[3]);
          s[0] += r.busySeconds();
          s[1] += r.idleSeconds();
          s[2] += r.unknownSeconds();
        }
        List<Map<String, Object>> out = new ArrayList<>();
        sums.forEach((k, s) -> {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("day", k.substring(0, k.indexOf('|')));
          row.put(groupBy, k.substring(k.indexOf('|') + 1));
          row.put("busyGpuHours", s[0] / 3600);
          row.put("idleGpuHours", s[1] / 3600);
          row.put("unknownGpuHours", s[2] / 3600);
          double known = s[0] + s[1];
          row.put("busyPct", known == 0 ? null : 100 * s[0] / known);
          out.add(row);
        });
        return out;
      }));
    });
  }
}
