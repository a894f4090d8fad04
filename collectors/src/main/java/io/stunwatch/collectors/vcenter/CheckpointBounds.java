package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.Topics;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Keeps a vCenter's checkpoint within one Kafka record: it is published in every poll's transaction, and a checkpoint
 * past the broker's record limit would fail every transaction of that vCenter from then on.
 */
final class CheckpointBounds {

  /**
   * The most VMs the checkpoint remembers a last stun for: 100k VMs would make it several MB, past Kafka's record
   * limit, and then every transaction of the vCenter would fail. A VM forgotten early can have a stun published
   * twice; the processor keeps a VM's stuns as a set, so that changes nothing downstream.
   */
  static final int MAX_REMEMBERED_STUNS = 2_000;
  /**
   * The most a checkpoint may take encoded: well below Kafka's default record limit (1 MB), with room for the
   * transaction's other records. Only a storm of thousands of migrations within {@code vcenter.event-overlap} comes
   * near it; see {@link #bound}.
   */
  static final int MAX_CHECKPOINT_BYTES = 768 * 1024;

  /** A checkpoint within {@link #MAX_CHECKPOINT_BYTES}, and what was left out to fit. */
  record Bounded(VcenterCheckpoint checkpoint, int droppedRecent, int droppedPending) {
  }

  /**
   * {@code c}, or, when it would take more than {@link #MAX_CHECKPOINT_BYTES}, {@code c} with only the newest
   * events of its overlap window and the newest of its followed tasks: halved until it fits. The stuns are bounded
   * already ({@link #prune}).
   */
  static Bounded bound(VcenterCheckpoint c) {
    if (Topics.VCENTER_CHECKPOINTS.encodeValue(c).length <= MAX_CHECKPOINT_BYTES) {
      return new Bounded(c, 0, 0);
    }
    List<VcenterCheckpoint.RecentEvent> recent = c.recentEvents().stream()
        .sorted(Comparator.comparing(VcenterCheckpoint.RecentEvent::createdTime)
            .thenComparingLong(VcenterCheckpoint.RecentEvent::key)).toList();
    List<VcenterCheckpoint.PendingTask> pending = c.pendingTasks().stream()
        .sorted(Comparator.comparingLong(VcenterCheckpoint.PendingTask::eventKey)).toList();
    int keepRecent = recent.size();
    int keepPending = pending.size();
    VcenterCheckpoint trimmed = c;
    while (Topics.VCENTER_CHECKPOINTS.encodeValue(trimmed).length > MAX_CHECKPOINT_BYTES
        && (keepRecent > 0 || keepPending > 0)) {
      keepRecent /= 2;
      keepPending /= 2;
      trimmed = new VcenterCheckpoint(c.vcenterUuid(), c.lastCreatedTime(), c.keysAtLastCreated(), c.savedAt(),
          c.lastStunByVm(), pending.subList(pending.size() - keepPending, pending.size()),
          recent.subList(recent.size() - keepRecent, recent.size()), c.protections(),
          c.guardDecisionsReadAt(), c.hostsInMaintenance());
    }
    return new Bounded(trimmed, recent.size() - keepRecent, pending.size() - keepPending);
  }

  /**
   * Forgets the last stun of VMs whose stun is too old to matter: a completion still to come is at or after
   * {@code position}, and its stun is looked for no earlier than {@link PollBatches#STUN_LOOKBEHIND} before it.
   * Of the rest, the newest {@link #MAX_REMEMBERED_STUNS} are kept, so the checkpoint stays far below Kafka's record
   * limit.
   */
  static void prune(Map<String, Instant> lastStun, Instant position) {
    Instant horizon = position.minus(PollBatches.STUN_LOOKBEHIND);
    lastStun.values().removeIf(t -> !t.isAfter(horizon));
    if (lastStun.size() > MAX_REMEMBERED_STUNS) {
      List<Map.Entry<String, Instant>> newest = lastStun.entrySet().stream()
          .sorted(Map.Entry.<String, Instant>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
          .limit(MAX_REMEMBERED_STUNS).map(e -> Map.entry(e.getKey(), e.getValue())).toList();
      lastStun.clear();
      newest.forEach(e -> lastStun.put(e.getKey(), e.getValue()));
    }
  }

  private CheckpointBounds() {
  }
}
