package io.stunwatch.launcher.sim;

/**
 * The cluster's DRS as the fleet's vCenter runs it. A DRS migration goes ahead only if DRS may move the VM on its
 * own; one held back (a per-VM override of {@code manual}, which the DRS guard sets) sends nothing, and the VM stays
 * where it is. A user's migration is not DRS's: it always goes ahead.
 */
public interface FleetDrs {
  /** DRS moves every VM on its own: no override. */
  FleetDrs AUTOMATIC = new FleetDrs() {
    @Override
    public boolean movesOnItsOwn(FleetScenario.Vm vm) {
      return true;
    }

    @Override
    public void heldBack(FleetScenario.Plan plan, boolean underLoad) {
      throw new IllegalStateException("no DRS migration is held back without an override");
    }
  };

  /** Whether DRS may move {@code vm} on its own now. */
  boolean movesOnItsOwn(FleetScenario.Vm vm);

  /**
   * A DRS migration that did not happen, at its planned start.
   *
   * @param underLoad whether the VM was under load then (a training VM, busy but for its allreduce dips)
   */
  void heldBack(FleetScenario.Plan plan, boolean underLoad);
}
