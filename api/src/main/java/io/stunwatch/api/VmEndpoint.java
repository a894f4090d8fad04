package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.GpuSample;
import io.stunwatch.processor.view.CurrentLoad;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/** {@code GET /api/vms/{vm}/load}: the latest samples and the 10 s or 1 min windows of a VM. */
final class VmEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Clock clock;

  VmEndpoint(StoreReader stores, ApiConfig config, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/vms/:vm/load").handler(rc -> {
      Params p = new Params(rc);
      String vm = p.path("vm");
      String size = p.choice("window", Set.of("10s", "1m"), "1m");
      Instant now = clock.instant();
      Instant[] range = p.range(now.minus(Duration.ofHours(1)), now, config.maxRange());
      Future<CurrentLoad> current = stores.currentLoad(vm).map(c -> c.orElseThrow(
          () -> ApiException.notFound("load of VM " + vm)));
      respond.json(rc, current.compose(c -> stores.loadWindows(vm, size, range[0], range[1]).map(w -> {
        return new Load(c.vmId(), c.vmName(), c.host(), c.inInventory(), c.latest(), c.fbUsedMiB(),
            c.vgpuProfile() == null ? null : c.vgpuProfile().name(), c.byGpu().values(), size, w);
      })));
    });
  }

  /** The answer: the VM's latest sample of each GPU and its windows. Unknown figures are written as null. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Load(String vmId, String vmName, String host, boolean inInventory, Instant latest, Long fbUsedMiB,
      String vgpuProfile, Collection<GpuSample> gpus, String window, List<StoreReader.LoadWindow> windows) {
  }
}
