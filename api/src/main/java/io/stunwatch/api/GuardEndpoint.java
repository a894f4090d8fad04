package io.stunwatch.api;

import io.stunwatch.model.GuardAction;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.util.Comparator;
import java.util.List;

/**
 * {@code GET /api/guard}: the DRS guard as the processor decides it ({@code guard.enabled}): the VMs it protects now,
 * why (the reasons, load and forecast of the protection as last said) and since when, the newest protection first;
 * and its audit trail, what the vCenter collectors did about it ({@code stunwatch.guard-actions}), newest first.
 * With the guard off it says so and lists none, rather than an empty list that would read as "no VM is busy".
 */
final class GuardEndpoint {

  /** The most actions an answer lists. */
  static final int MAX_ACTIONS = 200;

  /**
   * The guard's answer.
   *
   * @param enabled             whether the processor runs the guard
   * @param maxStunSeconds      {@code guard.max-stun}
   * @param releaseAfterSeconds {@code guard.release-after}
   * @param protectedVms        the VMs protected now
   * @param actions             the newest actions of the vCenter collectors on the decisions, newest first, at most
   *                            {@link #MAX_ACTIONS} (each VM's newest {@link GuardTrail#KEPT} are kept)
   */
  record Guard(boolean enabled, double maxStunSeconds, long releaseAfterSeconds, List<GuardState> protectedVms,
      List<GuardAction> actions) {
  }

  private final StoreReader stores;
  private final GuardConfig guard;

  GuardEndpoint(StoreReader stores, GuardConfig guard) {
    this.stores = stores;
    this.guard = guard;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/guard").handler(rc -> {
      if (!guard.enabled()) {
        respond.json(rc, Future.succeededFuture(answer(List.of(), List.of())));
        return;
      }
      Future<List<GuardState>> vms = stores.guarded();
      Future<List<GuardTrail>> trails = stores.guardTrails();
      respond.json(rc, Future.all(vms, trails).map(all -> answer(vms.result(), trails.result())));
    });
  }

  private Guard answer(List<GuardState> vms, List<GuardTrail> trails) {
    return new Guard(guard.enabled(), guard.maxStun().toMillis() / 1000.0, guard.releaseAfter().toSeconds(),
        vms.stream().sorted(Comparator.comparing(GuardState::since).reversed().thenComparing(GuardState::vmId))
            .toList(),
        trails.stream().flatMap(t -> t.actions().stream()).sorted(GuardTrail.ORDER.reversed()).limit(MAX_ACTIONS)
            .toList());
  }
}
