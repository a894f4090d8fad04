package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.FailureCause;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.processor.readmodel.ForecastAccuracy;
import io.stunwatch.processor.readmodel.ForecastInputs;
import io.stunwatch.processor.readmodel.Forecasts;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code GET /api/stun-time/stats?groupBy=…}, {@code GET /api/stun-time/forecast?vm=…[&to=HOST]} and
 * {@code GET /api/stun-time/accuracy}.
 */
final class StunTimeEndpoint {

  static final Map<String, StunModelEntry.Group> GROUPS = Map.of("profile", StunModelEntry.Group.PROFILE,
      "fbbucket", StunModelEntry.Group.FB_BUCKET, "hostpair", StunModelEntry.Group.HOST_PAIR, "site",
      StunModelEntry.Group.SITE);

  private final StoreReader stores;
  private final Planner planner;
  private final Vertx vertx;
  private final ApiConfig config;
  private final Clock clock;

  StunTimeEndpoint(StoreReader stores, Planner planner, Vertx vertx, ApiConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.stores = stores;
    this.planner = planner;
    this.vertx = vertx;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/stun-time/stats").handler(rc -> {
      Params p = new Params(rc);
      StunModelEntry.Group g = GROUPS.get(p.choice("groupBy", GROUPS.keySet(), "profile"));
      TimeRange range = p.rangeUpTo(clock.instant().plus(Duration.ofDays(1)), config.maxRange());
      rc.response().putHeader(MigrationsEndpoint.RANGE_HEADER, range.from() + "/" + range.to());
      respond.json(rc, Future.all(stores.model(), stores.migrations(range.from(), range.to())).map(x -> {
        List<StunModelEntry> model = x.resultAt(0);
        Map<String, Failures> failures = failures(x.<List<MigrationRow>>resultAt(1), g);
        Map<String, StatsRow> rows = new TreeMap<>();
        for (StunModelEntry e : model) {
          if (e.group() == g) {
            rows.put(e.groupKey(), new StatsRow(e.groupKey(), e.observations(), e.p50Seconds(), e.p95Seconds(),
                e.fittedSecondsPerGiB(), e.p50SecondsPerGiB(), e.p95SecondsPerGiB(), e.p50BandwidthMBps(),
                e.updatedAt(), Failures.NONE));
          }
        }
        failures.forEach((key, f) -> rows.merge(key, new StatsRow(key, 0, null, null, null, null, null, null, null,
            f), (row, none) -> row.withFailures(f)));
        return List.copyOf(rows.values());
      }));
    });
    router.get("/api/stun-time/forecast").handler(rc -> {
      Params p = new Params(rc);
      String vm = p.text("vm");
      if (vm == null) {
        throw ApiException.badParameter("vm", "is required");
      }
      String to = p.text("to");
      respond.json(rc, Future.all(LoadViews.of(stores, vm), planner.site()).map(x -> {
        LoadViews views = x.resultAt(0);
        Planner.Site site = x.resultAt(1);
        var load = views.load().orElseThrow(() -> ApiException.notFound("load of VM " + vm));
        if (load.fbUsedMiB() == null) {
          throw new ApiException(409, "vm", "the VM's framebuffer use is unknown ([N/A]): no forecast");
        }
        if (to != null && site.hostNamed(site.vm(vm) == null ? null : site.vm(vm).vcenterUuid(), to) == null) {
          throw ApiException.badParameter("to", "names no host of the inventory: " + to);
        }
        Planner.Forecast f = planner.forecast(site, site.vm(vm), Planner.LoadNow.latest(load,
            views.chosen().orElseThrow()), load.host(), to);
        StunForecast fc = f.forecast();
        return new ForecastAnswer(load.vmId(), f.inputs(), fc,
            new Uncertainty(fc.p50Seconds(), fc.p95Seconds(), fc.observations(), fc.basis()));
      }));
    });
    router.get("/api/stun-time/accuracy").handler(rc -> respond.json(rc, planner.site().compose(site -> {
      List<String> versions = site.hosts().stream().map(HostInventoryEntry::vcenterVersion).filter(v -> v != null)
          .distinct().toList();
      String version = versions.size() == 1 ? versions.get(0) : null;
      // A backtest refits the model once per kept stun: worker-thread work, not the event loop's.
      return vertx.executeBlocking(() -> {
        ForecastAccuracy.Result r = ForecastAccuracy.backtest(site.model().values(), version);
        return new AccuracyAnswer(version, r.warmup(), r.overall(), r.overallAfterWarmup(), r.profiles());
      }, false);
    })));
  }

  /**
   * The failed migrations of each group that started in the range, from the migrations index: a group's key as the
   * model keys it (a failure has no stun, so it is never one of the model's observations).
   */
  static Map<String, Failures> failures(List<MigrationRow> rows, StunModelEntry.Group g) {
    Map<String, Failures> out = new TreeMap<>();
    for (MigrationRow r : rows) {
      if (r.state() != MigrationState.FAILED) {
        continue;
      }
      MigrationSummary s = r.summary();
      String key = switch (g) {
        case PROFILE -> r.vgpuProfile();
        case FB_BUCKET -> r.vgpuProfile() == null || s.fbUsedMiB() == null ? null
            : r.vgpuProfile() + "|" + Forecasts.bucket(s.fbUsedMiB() / 1024.0);
        case HOST_PAIR -> ForecastInputs.hostPair(r.sourceHost(), r.destHost());
        case SITE -> StunModelEntry.SITE_KEY;
      };
      if (key != null) {
        out.merge(key, Failures.of(s.failureCause(), r.underLoad()), Failures::plus);
      }
    }
    return out;
  }

  /**
   * A group's failed migrations.
   *
   * @param count     how many failed
   * @param underLoad how many of them started under load
   * @param byCause   how many failed of each cause; a failure whose impact is not closed yet has no cause yet
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Failures(long count, long underLoad, Map<FailureCause, Long> byCause) {
    static final Failures NONE = new Failures(0, 0, Map.of());

    static Failures of(FailureCause cause, boolean underLoad) {
      return new Failures(1, underLoad ? 1 : 0, cause == null ? Map.of() : Map.of(cause, 1L));
    }

    Failures plus(Failures o) {
      Map<FailureCause, Long> causes = new EnumMap<>(FailureCause.class);
      causes.putAll(byCause);
      o.byCause.forEach((c, n) -> causes.merge(c, n, Long::sum));
      return new Failures(count + o.count, underLoad + o.underLoad, causes);
    }
  }

  /**
   * A row of {@code /api/stun-time/stats}: one model group, with its failed migrations of the range. Unknown figures
   * are written as null.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record StatsRow(String group, long count, Double p50Seconds, Double p95Seconds, Double secondsPerGiB,
      Double p50SecondsPerGiB, Double p95SecondsPerGiB, Double p50BandwidthMBps, Instant updatedAt,
      Failures failures) {

    StatsRow withFailures(Failures f) {
      return new StatsRow(group, count, p50Seconds, p95Seconds, secondsPerGiB, p50SecondsPerGiB, p95SecondsPerGiB,
          p50BandwidthMBps, updatedAt, f);
    }
  }

  /** The answer of {@code /api/stun-time/forecast}. */
  record ForecastAnswer(String vmId, Planner.Inputs inputs, StunForecast forecast, Uncertainty uncertainty) {
  }

  /**
   * The answer of {@code /api/stun-time/accuracy}: the backtest of {@link ForecastAccuracy}.
   *
   * @param vcenterVersion the version VMware's figure was chosen by: the one the inventory's hosts agree on, else null
   */
  record AccuracyAnswer(String vcenterVersion, int warmup, ForecastAccuracy.Score overall,
      ForecastAccuracy.Score overallAfterWarmup, List<ForecastAccuracy.ProfileScore> profiles) {
  }

  /** The forecast's spread and what it rests on. */
  record Uncertainty(double p50Seconds, double p95Seconds, long observations, StunForecast.Basis basis) {
  }
}
