package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * One vMotion as a VM's {@code vmware.log} tells it: when each phase began, how long the destination waited, and the
 * messages of a failure. The source host writes the precopy, stun and failure lines into the log it rotates out; the
 * destination writes {@code Migrate_Open} and the resume into the new one, so one vMotion may come as two
 * observations, one from each file, which the processor joins by {@link #vmotionId()} (or, without one, by time).
 * Keyed like the stun observations: the VM id, else {@code <vcenterUuid>/<vm moref>}.
 *
 * @param vcenterUuid            instance UUID of the vCenter the VM belongs to
 * @param vmMoref                VM moref value
 * @param vmName                 VM name
 * @param vmotionId              the vMotion (migration) id in decimal, as vmkernel.log prints it; absent when the
 *                               log names none
 * @param timestamp              the time of its newest line read (required: the live collector publishes only what it
 *                               can date)
 * @param precopyStart           {@code MigrateSetState: Transitioning from state 0 to 1} (or {@code MigrateSetInfo:
 *                               state=1}) on the source: the precopy begins
 * @param restoreStart           {@code Migrate_Open: Restoring from <ip>} on the destination: it starts restoring the
 *                               checkpoint, at switchover
 * @param stunStart              {@code Migrate: VM starting stun}
 * @param stunned                {@code Migrate: VM successfully stunned}
 * @param unstun                 {@code Checkpoint_Unstun: vm stopped for N us}: the VM runs again
 * @param stunMicros             the N of that line
 * @param destinationWaitSeconds {@code Migrate: Remote Log: Destination waited for N seconds}
 * @param failureMessages        the {@code [msg.*]} entries of the failure's message list, in log order; empty when
 *                               the log shows no failure
 * @param logFile                the file read, e.g. {@code [ds1] vm01/vmware-3.log}
 * @param lineNumber             1-based line of its first line in {@code logFile}
 */
@Schema(name = "vmotion-observation")
public record VmotionObservation(
    String vcenterUuid,
    String vmMoref,
    String vmName,
    String vmotionId,
    Instant timestamp,
    Instant precopyStart,
    Instant restoreStart,
    Instant stunStart,
    Instant stunned,
    Instant unstun,
    Long stunMicros,
    Double destinationWaitSeconds,
    List<LogMessage> failureMessages,
    String logFile,
    int lineNumber) implements VmInput {

  public VmotionObservation {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(vmMoref, "vmMoref");
    Checks.required(timestamp, "timestamp");
    Checks.nonNegative(stunMicros, "stunMicros");
    Checks.nonNegative(destinationWaitSeconds, "destinationWaitSeconds");
    failureMessages = Checks.list(failureMessages);
  }

  /** The Kafka key. */
  public String key() {
    return Keys.vm(vcenterUuid, vmMoref);
  }

  /** Whether the log shows this vMotion failed. */
  public boolean failed() {
    return !failureMessages.isEmpty();
  }
}
