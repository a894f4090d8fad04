package io.stunwatch.api;

import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.view.GuardState;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.util.Comparator;
import java.util.List;

/**
 * {@code GET /api/guard}: the DRS guard as the processor decides it ({@code guard.enabled}): the VMs it protects now,
 * why (the reasons, load and forecast of the protection as last said) and since when, the newest protection first.
 * With the guard off it says so and lists none, rather than an empty list that would read as "no VM is busy".
 */
final class GuardEndpoint {

  /**
   * The guard's answer.
   *
   * @param enabled             whether the processor runs the guard
   * @param maxStunSeconds      {@code guard.max-stun}
   * @param releaseAfterSeconds {@code guard.release-after}
   * @param protectedVms        the VMs protected now
   */
  record Guard(boolean enabled, double maxStunSeconds, long releaseAfterSeconds, List<GuardState> protectedVms) {
  }

  private final StoreReader stores;
  private final GuardConfig guard;

  GuardEndpoint(StoreReader stores, GuardConfig guard) {
    this.stores = stores;
    this.guard = guard;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/guard").handler(rc -> respond.json(rc, (guard.enabled() ? stores.guarded()
        : Future.succeededFuture(List.<GuardState>of())).map(vms -> new Guard(guard.enabled(),
        guard.maxStun().toMillis() / 1000.0, guard.releaseAfter().toSeconds(), vms.stream()
        .sorted(Comparator.comparing(GuardState::since).reversed().thenComparing(GuardState::vmId)).toList()))));
  }
}
