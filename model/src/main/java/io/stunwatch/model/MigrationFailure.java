package io.stunwatch.model;

/**
 * Why a migration failed, as a cause one can filter and count by, with what it was derived from.
 *
 * @param cause   the cause
 * @param id      the message id ESXi gave ({@code msg.checkpoint.migration.maxSwitchoverTimeExceeded}), else
 *                vCenter's fault type ({@code GenericVmConfigFault}); absent when neither is known
 * @param message the message that goes with it
 * @param source  where it was read
 */
public record MigrationFailure(FailureCause cause, String id, String message, Source source) {

  public MigrationFailure {
    Checks.required(cause, "failure.cause");
    Checks.required(source, "failure.source");
  }

  /** Where a failure's cause was read. */
  public enum Source {
    /** The message list in the VM's {@code vmware.log}. */
    VMWARE_LOG,
    /** vCenter's task fault or failure event. */
    VCENTER
  }
}
