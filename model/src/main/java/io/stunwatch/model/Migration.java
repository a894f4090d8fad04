package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One vMotion migration as assembled from its task and events; published each time it changes, to a compacted
 * topic keyed by {@link #id()}.
 *
 * @param id              {@code <vcenterUuid>/<chainId>} (see {@link Keys#migration})
 * @param vcenterUuid     instance UUID of the vCenter
 * @param vmMoref         VM moref value
 * @param vmName          VM name
 * @param vmId            canonical SMBIOS UUID of the VM, when the inventory knows it
 * @param vgpuProfile     the VM's vGPU profile name, e.g. {@code T4-16C}, when known
 * @param state           where it stands
 * @param initiator       user or DRS
 * @param initiatorName   the user name, or the DRS task description
 * @param encrypted       whether it was an encrypted vMotion, when known
 * @param sourceHost      source host
 * @param destHost        destination host
 * @param sourceCluster   source cluster
 * @param destCluster     destination cluster
 * @param sourceDatastore source datastore
 * @param destDatastore   destination datastore
 * @param startTime       start: the task's startTime, else the first event's createdTime
 * @param endTime         end: the task's completeTime, else the completing event's createdTime
 * @param failureReason   the fault message of a failed migration
 * @param updatedAt       event time of the newest input that changed this record
 * @param faultType       vim25 fault class of a failed migration: its task's, else its failure event's, e.g.
 *                        {@code GenericVmConfigFault}; absent when neither names one
 */
@Schema(name = "migration")
public record Migration(
    String id,
    String vcenterUuid,
    String vmMoref,
    String vmName,
    String vmId,
    String vgpuProfile,
    MigrationState state,
    Initiator initiator,
    String initiatorName,
    Boolean encrypted,
    EntityRef sourceHost,
    EntityRef destHost,
    EntityRef sourceCluster,
    EntityRef destCluster,
    EntityRef sourceDatastore,
    EntityRef destDatastore,
    Instant startTime,
    Instant endTime,
    String failureReason,
    Instant updatedAt,
    String faultType) {

  /** A migration whose fault type is not known. */
  public Migration(String id, String vcenterUuid, String vmMoref, String vmName, String vmId, String vgpuProfile,
      MigrationState state, Initiator initiator, String initiatorName, Boolean encrypted, EntityRef sourceHost,
      EntityRef destHost, EntityRef sourceCluster, EntityRef destCluster, EntityRef sourceDatastore,
      EntityRef destDatastore, Instant startTime, Instant endTime, String failureReason, Instant updatedAt) {
    this(id, vcenterUuid, vmMoref, vmName, vmId, vgpuProfile, state, initiator, initiatorName, encrypted, sourceHost,
        destHost, sourceCluster, destCluster, sourceDatastore, destDatastore, startTime, endTime, failureReason,
        updatedAt, null);
  }

  public Migration {
    Checks.requiredText(id, "id");
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(vmMoref, "vmMoref");
    Checks.required(state, "state");
    Checks.required(initiator, "initiator");
    if (startTime != null && endTime != null && endTime.isBefore(startTime)) {
      throw new IllegalArgumentException("endTime " + endTime + " is before startTime " + startTime);
    }
  }

  /** This migration with another outcome: where it stands, its end, the fault of a failure, as of {@code at}. */
  public Migration withOutcome(MigrationState newState, Instant newEnd, String newFailureReason, Instant at) {
    return new Migration(id, vcenterUuid, vmMoref, vmName, vmId, vgpuProfile, newState, initiator, initiatorName,
        encrypted, sourceHost, destHost, sourceCluster, destCluster, sourceDatastore, destDatastore, startTime, newEnd,
        newFailureReason, at, newState == MigrationState.FAILED ? faultType : null);
  }

  /** This migration moved in time: another start, end and update time (a replayed site, a test's clock). */
  public Migration withTimes(Instant newStart, Instant newEnd, Instant at) {
    return new Migration(id, vcenterUuid, vmMoref, vmName, vmId, vgpuProfile, state, initiator, initiatorName,
        encrypted, sourceHost, destHost, sourceCluster, destCluster, sourceDatastore, destDatastore, newStart, newEnd,
        failureReason, at, faultType);
  }

  /** Duration in seconds, absent until both ends are known. */
  public Double durationSeconds() {
    return startTime == null || endTime == null ? null
        : (endTime.toEpochMilli() - startTime.toEpochMilli()) / 1000.0;
  }
}
