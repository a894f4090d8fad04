package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Where a vCenter collector has got to, so a restart resumes with no gap and no duplicate. Compacted topic keyed by
 * {@code vcenterUuid}.
 *
 * <p>Events are ordered by {@code (createdTime, key)}. Each poll re-reads an overlap window behind
 * {@link #lastCreatedTime()} and skips the keys of {@link #recentEvents()}: an event that becomes visible late, with
 * an older createdTime, is still published, and none twice.
 *
 * @param vcenterUuid        instance UUID of the vCenter
 * @param lastCreatedTime    createdTime of the newest event published
 * @param keysAtLastCreated  event keys already published with exactly {@code lastCreatedTime}
 * @param savedAt            when the checkpoint was written
 * @param lastStunByVm       per VM moref, the time of the newest vmware.log stun published, so a stun is published
 *                           once even when the log is read again after a restart
 * @param pendingTasks       migration tasks not yet final, followed until they are, across restarts too
 * @param recentEvents       the events published within the overlap window behind {@code lastCreatedTime}; empty in
 *                           a checkpoint written before the window existed
 * @param protections        the DRS overrides the guard set in this vCenter and has not released, each with the
 *                           override it replaced; empty when the guard set none
 * @param guardDecisionsReadAt when this collector last read a decision of the DRS guard, or began to read them if it
 *                           has read none since it started; null when the guard is off in this collector. Protections
 *                           with an old value here are held while nobody decides on them (the alert
 *                           {@code StunwatchGuardDecisionsStopped})
 * @param hostsInMaintenance the hosts the guard saw entering maintenance mode and not leaving it since, where it
 *                           protects no VM: kept here so that a collector that starts again, however long after the
 *                           event, does not block an evacuation still under way; empty when none or the guard is off
 */
@Schema(name = "vcenter-checkpoint")
public record VcenterCheckpoint(
    String vcenterUuid,
    Instant lastCreatedTime,
    List<Long> keysAtLastCreated,
    Instant savedAt,
    Map<String, Instant> lastStunByVm,
    List<PendingTask> pendingTasks,
    List<RecentEvent> recentEvents,
    List<Protection> protections,
    Instant guardDecisionsReadAt,
    List<Maintenance> hostsInMaintenance) {

  /** A checkpoint with no overlap window: only the keys at exactly {@code lastCreatedTime} are known. */
  public VcenterCheckpoint(String vcenterUuid, Instant lastCreatedTime, List<Long> keysAtLastCreated, Instant savedAt,
      Map<String, Instant> lastStunByVm, List<PendingTask> pendingTasks) {
    this(vcenterUuid, lastCreatedTime, keysAtLastCreated, savedAt, lastStunByVm, pendingTasks, List.of(), List.of(),
        null, List.of());
  }

  /** A checkpoint of a vCenter where the guard has set nothing. */
  public VcenterCheckpoint(String vcenterUuid, Instant lastCreatedTime, List<Long> keysAtLastCreated, Instant savedAt,
      Map<String, Instant> lastStunByVm, List<PendingTask> pendingTasks, List<RecentEvent> recentEvents) {
    this(vcenterUuid, lastCreatedTime, keysAtLastCreated, savedAt, lastStunByVm, pendingTasks, recentEvents,
        List.of(), null, List.of());
  }

  /**
   * This checkpoint with the guard's protections as {@code now}, saved at {@code at}, its decisions last read at
   * {@code decisionsReadAt}, the hosts in maintenance as {@code maintenance}.
   */
  public VcenterCheckpoint withProtections(List<Protection> now, Instant at, Instant decisionsReadAt,
      List<Maintenance> maintenance) {
    return new VcenterCheckpoint(vcenterUuid, lastCreatedTime, keysAtLastCreated, at, lastStunByVm, pendingTasks,
        recentEvents, now, decisionsReadAt, maintenance);
  }

  /** The protections the guard set in vCenter: those of dry-run left out. */
  public long enforcedProtections() {
    return protections.stream().filter(p -> !p.dryRun()).count();
  }

  public VcenterCheckpoint {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.required(lastCreatedTime, "lastCreatedTime");
    keysAtLastCreated = Checks.list(keysAtLastCreated);
    Checks.required(savedAt, "savedAt");
    lastStunByVm = Checks.map(lastStunByVm);
    pendingTasks = Checks.list(pendingTasks);
    recentEvents = Checks.list(recentEvents);
    protections = Checks.list(protections);
    hostsInMaintenance = Checks.list(hostsInMaintenance);
  }

  /**
   * An event published recently.
   *
   * @param key         its event key
   * @param createdTime its createdTime
   */
  public record RecentEvent(long key, Instant createdTime) {

    public RecentEvent {
      Checks.required(createdTime, "createdTime");
    }
  }

  /**
   * A migration task being followed until it is final.
   *
   * @param taskKey    task key (the Task moref value), e.g. {@code task-77}
   * @param eventKey   key of the TaskEvent that announced it
   * @param chainId    its event chain id
   * @param vmMoref    the VM it moves
   * @param vmName     the VM's name
   * @param lastState  the last state published: {@code queued}, {@code running}
   */
  public record PendingTask(String taskKey, long eventKey, Long chainId, String vmMoref, String vmName,
      String lastState) {

    public PendingTask {
      Checks.requiredText(taskKey, "taskKey");
      Checks.requiredText(lastState, "lastState");
    }
  }

  /**
   * A DRS override the guard set for a VM and has not released.
   *
   * @param vmId         the VM's id
   * @param vmMoref      the VM
   * @param clusterMoref its cluster, where the override is
   * @param previous     the override it replaced, null when the VM had none: releasing restores exactly this
   * @param set          what the guard set
   * @param since        when it was set (wall clock)
   * @param dryRun       set in {@code guard.mode=dry-run}: recorded and reported, vCenter untouched
   */
  public record Protection(String vmId, String vmMoref, String clusterMoref, DrsOverride previous, DrsOverride set,
      Instant since, boolean dryRun) {

    public Protection {
      Checks.requiredText(vmId, "vmId");
      Checks.requiredText(vmMoref, "vmMoref");
      Checks.requiredText(clusterMoref, "clusterMoref");
      Checks.required(set, "set");
      Checks.required(since, "since");
    }
  }

  /**
   * A host entering or in maintenance mode, as the guard saw it.
   *
   * @param hostMoref the host
   * @param hostName  its name, for the log
   * @param since     the createdTime of its {@code EnteringMaintenanceModeEvent}
   */
  public record Maintenance(String hostMoref, String hostName, Instant since) {

    public Maintenance {
      Checks.requiredText(hostMoref, "hostMoref");
      Checks.required(since, "since");
    }
  }
}
