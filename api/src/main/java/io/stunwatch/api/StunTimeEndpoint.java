package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.processor.view.Forecasts;
import io.vertx.ext.web.Router;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Collectors;

/** {@code GET /api/stun-time/stats?groupBy=…} and {@code GET /api/stun-time/forecast?vm=…}. */
final class StunTimeEndpoint {

  static final Map<String, StunModelEntry.Group> GROUPS = Map.of("profile", StunModelEntry.Group.PROFILE,
      "fbbucket", StunModelEntry.Group.FB_BUCKET, "hostpair", StunModelEntry.Group.HOST_PAIR);

  private final StoreReader stores;

  StunTimeEndpoint(StoreReader stores) {
    this.stores = stores;
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
      respond.json(rc, LoadViews.of(stores, vm).compose(views -> {
        var load = views.load().orElseThrow(() -> ApiException.notFound("load of VM " + vm));
        if (load.fbUsedMiB() == null) {
          throw new ApiException(409, "vm", "the VM's framebuffer use is unknown ([N/A]): no forecast");
        }
        return stores.model().map(model -> {
          Map<String, StunModelEntry> byKey = model.stream().collect(Collectors.toMap(StunModelEntry::key, e -> e,
              (a, b) -> a));
          String profile = load.vgpuProfile() == null ? null : load.vgpuProfile().name();
          StunForecast f = Forecasts.forecast(profile, load.fbUsedMiB(), byKey::get);
          return new ForecastAnswer(load.vmId(), new ForecastInputs(profile == null ? "" : profile,
              load.fbUsedMiB(), Forecasts.bucket(load.fbUsedMiB()), String.valueOf(load.latest()),
              views.chosen().orElseThrow()), f,
              new Uncertainty(f.p50Seconds(), f.p95Seconds(), f.observations(), f.basis()));
        });
      }));
    });
  }

  /** A row of {@code /api/stun-time/stats}: one model group. Unknown figures are written as null. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record StatsRow(String group, long count, Double p50Seconds, Double p95Seconds, Double secondsPerGiB,
      Double p50SecondsPerGiB, Double p95SecondsPerGiB, Instant updatedAt) {
  }

  /** The answer of {@code /api/stun-time/forecast}. */
  record ForecastAnswer(String vmId, ForecastInputs inputs, StunForecast forecast, Uncertainty uncertainty) {
  }

  /** What the forecast was made from, and which view of the VM's load ({@link LoadViews}) gave it. */
  record ForecastInputs(String vgpuProfile, long fbUsedMiB, String fbBucket, String sampledAt, LoadSource source) {
  }

  /** The forecast's spread and what it rests on. */
  record Uncertainty(double p50Seconds, double p95Seconds, long observations, StunForecast.Basis basis) {
  }
}
