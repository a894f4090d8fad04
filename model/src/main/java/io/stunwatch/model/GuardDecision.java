package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * What the DRS guard decided for a VM: protect it from DRS moving it on its own (a per-VM {@code manual} override),
 * keep protecting it, or release it. Decided by the processor, where the VM's load is known, from the VM's readings
 * and their event time alone; to be applied by the one component with vCenter credentials, which judges whether a
 * decision is recent enough to act on. Compacted topic keyed by VM id: the newest decision of each VM is what an
 * applier that starts again reconciles against.
 *
 * @param vmId            canonical SMBIOS UUID of the VM
 * @param action          what is decided
 * @param reasons         the alert's thresholds the VM's load crosses (empty when released for being below them)
 * @param load            the VM's load over the alert window that ends at {@code at}, by the alert's own rule
 * @param forecast        the forecast stun of moving the VM now, from which its p95 is compared
 * @param maxStunSeconds  {@code guard.max-stun}: a VM under load whose p95 is over this is protected
 * @param protectedSince  event time of the decision that first protected the VM
 * @param at              event time of the reading this decision was made on
 */
@Schema(name = "guard-decision")
public record GuardDecision(
    String vmId,
    Action action,
    List<MigrationAlert.Reason> reasons,
    MigrationAlert.Load load,
    StunForecast forecast,
    double maxStunSeconds,
    Instant protectedSince,
    Instant at) {

  public GuardDecision {
    Checks.requiredText(vmId, "vmId");
    Checks.required(action, "action");
    reasons = Checks.list(reasons);
    Checks.required(load, "load");
    Checks.required(protectedSince, "protectedSince");
    Checks.required(at, "at");
  }

  /** What the guard decides for a VM. */
  public enum Action {
    /** The VM is under load and its forecast stun is over the limit: DRS must not move it on its own. */
    PROTECT,
    /**
     * Still protected, said again every {@code guard.hold-every} of the VM's readings, so that an applier that no
     * longer hears it can tell that the VM's readings or the processor stopped.
     */
    HOLD,
    /** Below the thresholds for {@code guard.release-after}: DRS may move the VM again. */
    RELEASE
  }
}
