package io.stunwatch.api;

import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.processor.view.Forecasts;
import io.vertx.ext.web.Router;
import java.util.LinkedHashMap;
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
          .sorted(java.util.Comparator.comparing(StunModelEntry::groupKey))
          .map(e -> {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("group", e.groupKey());
            row.put("count", e.observations());
            row.put("p50Seconds", e.p50Seconds());
            row.put("p95Seconds", e.p95Seconds());
            row.put("secondsPerGiB", e.fittedSecondsPerGiB());
            row.put("p50SecondsPerGiB", e.p50SecondsPerGiB());
            row.put("p95SecondsPerGiB", e.p95SecondsPerGiB());
            row.put("updatedAt", e.updatedAt());
            return row;
          }).toList()));
    });
    router.get("/api/stun-time/forecast").handler(rc -> {
      Params p = new Params(rc);
      String vm = p.text("vm");
      if (vm == null) {
        throw ApiException.badParameter("vm", "is required");
      }
      respond.json(rc, stores.currentLoad(vm).compose(c -> {
        var load = c.orElseThrow(() -> ApiException.notFound("load of VM " + vm));
        if (load.fbUsedMiB() == null) {
          throw new ApiException(409, "vm", "the VM's framebuffer use is unknown ([N/A]): no forecast");
        }
        return stores.model().map(model -> {
          Map<String, StunModelEntry> byKey = model.stream().collect(Collectors.toMap(StunModelEntry::key, e -> e,
              (a, b) -> a));
          String profile = load.vgpuProfile() == null ? null : load.vgpuProfile().name();
          StunForecast f = Forecasts.forecast(profile, load.fbUsedMiB(), byKey::get);
          Map<String, Object> out = new LinkedHashMap<>();
          out.put("vmId", load.vmId());
          out.put("inputs", Map.of("vgpuProfile", profile == null ? "" : profile, "fbUsedMiB", load.fbUsedMiB(),
              "fbBucket", Forecasts.bucket(load.fbUsedMiB()), "sampledAt", String.valueOf(load.latest())));
          out.put("forecast", f);
          out.put("uncertainty", Map.of("p50Seconds", f.p50Seconds(), "p95Seconds", f.p95Seconds(),
              "observations", f.observations(), "basis", f.basis()));
          return out;
        });
      }));
    });
  }

}
