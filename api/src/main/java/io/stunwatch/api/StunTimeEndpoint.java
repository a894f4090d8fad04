package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.processor.view.ForecastAccuracy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/stun-time/stats?groupBy=…}, {@code GET /api/stun-time/forecast?vm=…[&to=HOST]} and
 * {@code GET /api/stun-time/accuracy}.
 */
final class StunTimeEndpoint {

  static final Map<String, StunModelEntry.Group> GROUPS = Map.of("profile", StunModelEntry.Group.PROFILE,
      "fbbucket", StunModelEntry.Group.FB_BUCKET, "hostpair", StunModelEntry.Group.HOST_PAIR);

  private final StoreReader stores;
  private final Planner planner;
  private final Vertx vertx;

  StunTimeEndpoint(StoreReader stores, Planner planner, Vertx vertx) {
    this.stores = stores;
    this.planner = planner;
    this.vertx = vertx;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/stun-time/stats").handler(rc -> {
      StunModelEntry.Group g = GROUPS.get(new Params(rc).choice("groupBy", GROUPS.keySet(), "profile"));
      respond.json(rc, stores.model().map(all -> all.stream().filter(e -> e.group() == g)
          .sorted(Comparator.comparing(StunModelEntry::groupKey))
          .map(e -> new StatsRow(e.groupKey(), e.observations(), e.p50Seconds(), e.p95Seconds(),
              e.fittedSecondsPerGiB(), e.p50SecondsPerGiB(), e.p95SecondsPerGiB(), e.updatedAt()))
          .toList()));
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

  /** A row of {@code /api/stun-time/stats}: one model group. Unknown figures are written as null. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record StatsRow(String group, long count, Double p50Seconds, Double p95Seconds, Double secondsPerGiB,
      Double p50SecondsPerGiB, Double p95SecondsPerGiB, Instant updatedAt) {
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
