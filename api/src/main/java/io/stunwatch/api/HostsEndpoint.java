package io.stunwatch.api;

import io.stunwatch.processor.readmodel.HostGpu;
import io.vertx.ext.web.Router;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code GET /api/hosts/gpus} and {@code GET /api/hosts/{host}/gpus}: each physical GPU of the ESXi hosts that run the
 * host collector ({@code nvidia-smi vgpu -q}), with its vGPU scheduler policy (best effort, equal share, fixed share)
 * and when the host last reported it. A policy the driver did not print is null, not a guess.
 */
final class HostsEndpoint {

  private final StoreReader stores;

  HostsEndpoint(StoreReader stores) {
    this.stores = stores;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/hosts/gpus").handler(rc -> respond.json(rc, stores.hostGpus().map(HostsEndpoint::sorted)));
    router.get("/api/hosts/:host/gpus").handler(rc -> {
      String host = new Params(rc).path("host");
      respond.json(rc, stores.hostGpus().map(all -> {
        List<HostGpu> of = sorted(all.stream().filter(g -> g.host().equals(host)).toList());
        if (of.isEmpty()) {
          throw ApiException.notFound("GPUs of host " + host);
        }
        return of;
      }));
    });
  }

  /** One row per GPU, by host and bus id; a GPU reported by several tasks is the newest report. */
  private static List<HostGpu> sorted(List<HostGpu> gpus) {
    return gpus.stream().collect(Collectors.toMap(g -> HostGpu.key(g.host(), g.pciBusId()), g -> g,
            HostGpu::newer)).values().stream()
        .sorted(Comparator.comparing(HostGpu::host).thenComparing(HostGpu::pciBusId)).toList();
  }
}
