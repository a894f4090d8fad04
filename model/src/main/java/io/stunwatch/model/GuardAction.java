package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * The audit trail of the DRS guard in a vCenter: each protection and release {@code collect vcenter} made, or would
 * have made in {@code guard.mode=dry-run}, or left to the admin, and why. Keyed by VM id.
 *
 * @param vmId        the VM's id
 * @param vcenterUuid the vCenter
 * @param vmMoref     the VM in it
 * @param vmName      its name
 * @param cluster     its cluster, where the override is
 * @param kind        protecting or releasing
 * @param result      what came of it
 * @param set         the override set ({@code PROTECT}), or restored ({@code RELEASE}); null when removed
 * @param previous    the override there was before
 * @param decision    the processor's decision acted on; null for a release of a protection whose decisions stopped
 * @param why         in words: the load and forecast, the admin's override left alone, vCenter's refusal
 * @param at          when (the collector's clock)
 */
@Schema(name = "guard-action")
public record GuardAction(
    String vmId,
    String vcenterUuid,
    String vmMoref,
    String vmName,
    EntityRef cluster,
    Kind kind,
    Result result,
    DrsOverride set,
    DrsOverride previous,
    GuardDecision decision,
    String why,
    Instant at) {

  public GuardAction {
    Checks.requiredText(vmId, "vmId");
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(vmMoref, "vmMoref");
    Checks.required(kind, "kind");
    Checks.required(result, "result");
    Checks.requiredText(why, "why");
    Checks.required(at, "at");
  }

  /** What the guard did to a VM. */
  public enum Kind {
    PROTECT, RELEASE
  }

  /** What came of it. */
  public enum Result {
    /** vCenter made the change. */
    APPLIED,
    /** {@code guard.mode=dry-run}: recorded and reported, vCenter untouched. */
    DRY_RUN,
    /** The VM has an override the guard did not set: never changed, only reported. */
    LEFT_TO_ADMIN,
    /**
     * vCenter refused (a missing privilege, ...): counted, and not asked again for a while. A session that fails is
     * no answer: the change is tried again once the collector is logged in again, and audited then.
     */
    REFUSED
  }
}
