package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckpointBoundsTest {

  private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");

  @Test
  void theCheckpointOfAHundredThousandStunnedVmsStaysFarBelowKafkasRecordLimit() {
    Map<String, Instant> lastStun = new HashMap<>();
    for (int i = 0; i < 100_000; i++) {
      // the worst case: every VM stunned within the last hour, none old enough to forget by time
      lastStun.put("vm-" + (100_000 + i), NOW.minusMillis(3_600_000L * i / 100_000));
    }
    CheckpointBounds.prune(lastStun, NOW);
    VcenterCheckpoint c = new VcenterCheckpoint("f1e2d3c4-0000-4000-8000-000000000001", NOW, List.of(1L, 2L), NOW,
        lastStun, List.of());
    int bytes = Topics.VCENTER_CHECKPOINTS.encodeValue(c).length;
    assertThat(bytes).as("encoded checkpoint").isLessThan(256 * 1024);
    assertThat(lastStun).hasSize(CheckpointBounds.MAX_REMEMBERED_STUNS)
        .as("the newest are kept").containsKey("vm-100000").doesNotContainKey("vm-199999");
  }

  @Test
  void aCheckpointAfterAStormOfAHundredThousandVmsFitsKafkasRecordLimitKeepingTheNewest() {
    // every VM migrated within the overlap window, each migration's task still running: the window's events and the
    // followed tasks are what grows with a storm, and 1 MB is Kafka's default record limit
    List<VcenterCheckpoint.RecentEvent> recent = new ArrayList<>();
    List<VcenterCheckpoint.PendingTask> pending = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      recent.add(new VcenterCheckpoint.RecentEvent(5_000_000L + i, NOW.minusMillis(600_000L - i * 6L)));
      pending.add(new VcenterCheckpoint.PendingTask("task-" + (900_000 + i), 5_000_000L + i, 5_000_000L + i,
          "vm-" + (100_000 + i), "gpu-trainer-" + i, "running"));
    }
    // the guard's protections are what it must restore: trimming never drops them
    List<VcenterCheckpoint.Protection> protections = List.of(new VcenterCheckpoint.Protection(
        "42000000-0000-4000-8000-000000000001", "vm-1", "domain-c7", null, DrsOverride.MANUAL, NOW, false));
    VcenterCheckpoint full = new VcenterCheckpoint("f1e2d3c4-0000-4000-8000-000000000001", NOW, List.of(5_099_999L),
        NOW, Map.of(), pending, recent, protections, NOW,
        List.of(new VcenterCheckpoint.Maintenance("host-7", "esx07", NOW)));
    assertThat(Topics.VCENTER_CHECKPOINTS.encodeValue(full).length).as("unbounded").isGreaterThan(1_000_000);

    CheckpointBounds.Bounded b = CheckpointBounds.bound(full);
    int bytes = Topics.VCENTER_CHECKPOINTS.encodeValue(b.checkpoint()).length;
    assertThat(bytes).as("bounded").isLessThanOrEqualTo(CheckpointBounds.MAX_CHECKPOINT_BYTES);
    assertThat(b.droppedRecent() + b.checkpoint().recentEvents().size()).isEqualTo(100_000);
    assertThat(b.droppedPending() + b.checkpoint().pendingTasks().size()).isEqualTo(100_000);
    // the newest events and tasks are kept: the oldest are the ones a re-read is least likely to meet again
    assertThat(b.checkpoint().recentEvents()).contains(recent.get(99_999)).doesNotContain(recent.get(0));
    assertThat(b.checkpoint().pendingTasks()).contains(pending.get(99_999)).doesNotContain(pending.get(0));
    assertThat(b.checkpoint().protections()).isEqualTo(protections);
    assertThat(b.checkpoint().hostsInMaintenance()).isEqualTo(full.hostsInMaintenance());
    // a checkpoint that fits is left as it is
    VcenterCheckpoint small = new VcenterCheckpoint("f1e2d3c4-0000-4000-8000-000000000001", NOW, List.of(1L), NOW,
        Map.of(), pending.subList(0, 10), recent.subList(0, 10));
    assertThat(CheckpointBounds.bound(small).checkpoint()).isSameAs(small);
  }

  @Test
  void aStunOlderThanTheLookbehindOfAnyCompletionToComeIsForgotten() {
    Map<String, Instant> lastStun = new HashMap<>(Map.of(
        "vm-1", NOW.minus(PollBatches.STUN_LOOKBEHIND).minusSeconds(1),
        "vm-2", NOW.minus(PollBatches.STUN_LOOKBEHIND).plusSeconds(1),
        "vm-3", NOW.minusSeconds(5)));
    CheckpointBounds.prune(lastStun, NOW);
    assertThat(lastStun).containsOnlyKeys("vm-2", "vm-3");
  }
}
