package io.stunwatch.processor;

import static io.stunwatch.processor.StunwatchTopologyTest.CLOCK;
import static io.stunwatch.processor.StunwatchTopologyTest.T0;
import static io.stunwatch.processor.StunwatchTopologyTest.VC;
import static io.stunwatch.processor.StunwatchTopologyTest.event;
import static io.stunwatch.processor.StunwatchTopologyTest.host;
import static io.stunwatch.processor.StunwatchTopologyTest.input;
import static io.stunwatch.processor.StunwatchTopologyTest.latest;
import static io.stunwatch.processor.StunwatchTopologyTest.userMigration;
import static io.stunwatch.processor.StunwatchTopologyTest.vm;
import static io.stunwatch.processor.StunwatchTopologyTest.vmUuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.FailureCause;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LogMessage;
import io.stunwatch.model.MigrationFailure;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.VmotionPhases;
import io.stunwatch.model.topic.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each vMotion's phases, id, precopy bandwidth and failure cause, from the VM's vmware.log files (the source's
 * rotated log and the destination's new one) and the source host's vmkernel.log, joined to its migration whatever
 * the order they come in.
 */
class VmotionPhasesTopologyTest {

  private static final String ID = "1446046703473901";

  @TempDir
  Path stateDir;

  private TopologyTestDriver open(String name) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "vmotion-" + name);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.resolve(name).toString());
    StunwatchTopology.errorHandling(p, CLOCK);
    return new TopologyTestDriver(StunwatchTopology.build(
        ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO), CLOCK), p);
  }

  /** The source's rotated log: the precopy from T0+1 s, the stop at T0+50 s, the destination's wait. */
  private static VmotionObservation sourceLog(String id, List<LogMessage> failure, Instant last) {
    return new VmotionObservation(VC, "vm-1", "train-1", id, last, T0.plusSeconds(1), null, T0.plusSeconds(50),
        T0.plusMillis(50_080), null, null, 9.5, failure, "[ds1] train-1/vmware-1.log", 1204);
  }

  /** The destination's new log: the restore at switchover, the resume 9.7 s later. */
  private static VmotionObservation destinationLog() {
    return new VmotionObservation(VC, "vm-1", "train-1", ID, T0.plusMillis(59_800), null, T0.plusMillis(50_100),
        null, null, T0.plusMillis(59_800), 9_700_000L, null, List.of(), "[ds1] train-1/vmware.log", 318);
  }

  private static VmotionBandwidth bandwidth(String id) {
    return new VmotionBandwidth(id, "esx01", T0.plusSeconds(50), 145.404, 1296L, 0.5, "esx01:/var/log/vmkernel.log",
        88);
  }

  private static void inventory(TopologyTestDriver d) {
    VmInventoryEntry e = new VmInventoryEntry(VC, "vm-1", "train-1", vmUuid(1), null, host(1), null, "dc",
        "[ds1] train-1/train-1.vmx", 65536L, List.of("grid_t4-16c"), VgpuProfile.parse("grid_t4-16c").orElseThrow(),
        T0);
    input(d, Topics.VM_INVENTORY).pipeInput(e.key(), e);
  }

  private static void load(TopologyTestDriver d, Instant from, int seconds) {
    for (int s = 0; s < seconds; s++) {
      Instant t = from.plusSeconds(s);
      input(d, Topics.GPU_SAMPLES).pipeInput(vmUuid(1), new GpuSample(vmUuid(1), "guest-1", t, 0, "GPU-1",
          "GRID T4-16C", null, 90.0, 20.0, 15000L, 16384L, null, null, 1590L, "P0",
          VgpuProfile.parse("GRID T4-16C").orElseThrow()), t);
    }
  }

  private static void events(TopologyTestDriver d, List<VcenterEvent> events) {
    for (VcenterEvent e : events) {
      input(d, Topics.VCENTER_EVENTS).pipeInput(e.vmKey(), e, e.createdTime());
    }
  }

  private static <V> void send(TopologyTestDriver d, io.stunwatch.model.topic.Topic<String, V> topic, String key,
      V value, Instant at) {
    input(d, topic).pipeInput(key, value, at);
  }

  @Test
  void aSuccessfulMovesTwoRotatedLogsAndItsSourceHostsBandwidthGiveItsPhases() {
    try (TopologyTestDriver d = open("ok")) {
      inventory(d);
      load(d, T0.minusSeconds(300), 300);
      events(d, userMigration(1, 100, T0, 60).subList(0, 2));
      load(d, T0, 50);
      // the source host's line comes first, before any log names the VM: it waits for the VM's claim on its id
      send(d, Topics.VMOTION_BANDWIDTH, ID, bandwidth(ID), T0.plusSeconds(50));
      events(d, userMigration(1, 100, T0, 60).subList(2, 4));
      send(d, Topics.VMOTION_OBSERVATIONS, VC + "/vm-1", destinationLog(), T0.plusMillis(59_800));
      send(d, Topics.VMOTION_OBSERVATIONS, VC + "/vm-1", sourceLog(ID, List.of(), T0.plusMillis(59_500)),
          T0.plusMillis(59_500));
      send(d, Topics.STUN_OBSERVATIONS, VC + "/vm-1", new StunObservation(VC, "vm-1", "train-1", ID,
          T0.plusMillis(59_800), 9_700_000L, StunObservation.StunSource.CHECKPOINT_UNSTUN, "[ds1] train-1/vmware.log",
          318), T0.plusMillis(59_800));
      load(d, T0.plusSeconds(60), 200);
      MigrationImpact i = latest(d, Topics.MIGRATION_IMPACTS).get(VC + "/100");
      assertThat(i.vmotionId()).isEqualTo(ID);
      assertThat(i.phases()).isEqualTo(new VmotionPhases(T0.plusSeconds(1), T0.plusSeconds(50), T0.plusMillis(50_080),
          T0.plusMillis(59_800), 49.0, 0.08, 9.7, 9.5));
      assertThat(i.stun()).isEqualTo(new StunTime(9.7, StunTime.Source.VMWARE_LOG));
      assertThat(i.vmotionBandwidthMBps()).isEqualTo(145.404);
      assertThat(i.pagesLeftAtSwitchover()).isEqualTo(1296L);
      assertThat(i.failure()).as("it did not fail").isNull();
    }
  }

  /** A vGPU VM's move ESXi failed at the switchover limit; vCenter's own fault says only "a general error". */
  private static List<VcenterEvent> failedMove() {
    TaskSnapshot running = new TaskSnapshot("task-300", "VirtualMachine.relocate", vm(1), "running", false,
        T0.minusSeconds(1), T0, null, null, null, 300L, "TaskReasonUser", "VSPHERE.LOCAL\\admin");
    TaskSnapshot error = new TaskSnapshot("task-300", "VirtualMachine.relocate", vm(1), "error", false,
        T0.minusSeconds(1), T0, T0.plusSeconds(110), "A general system error occurred: Migration failed",
        "GenericVmConfigFault", 300L, "TaskReasonUser", "VSPHERE.LOCAL\\admin");
    return List.of(
        event(300, 300, T0, "TaskEvent", VcenterEventCategory.MIGRATION_TASK, 1, null, null, running),
        event(301, 300, T0.plusMillis(200), "VmBeingHotMigratedEvent", VcenterEventCategory.MIGRATION_STARTED, 1,
            host(1), host(2), null),
        event(300, 300, T0.plusSeconds(110), VcenterEvent.TASK_INFO, VcenterEventCategory.MIGRATION_TASK, 1, null,
            null, error));
  }

  private static final List<LogMessage> SWITCHOVER = List.of(new LogMessage(
      "msg.checkpoint.migration.maxSwitchoverTimeExceeded", "The migration has exceeded the maximum switchover time "
      + "of 100 second(s). ESX has preemptively failed the migration to allow the VM to continue running on the "
      + "source."));

  private MigrationImpact failedImpact(String name, boolean logFirst, Consumer<MigrationImpact> beforeLog) {
    try (TopologyTestDriver d = open(name)) {
      inventory(d);
      load(d, T0.minusSeconds(300), 300);
      VmotionObservation log = sourceLog("77", SWITCHOVER, T0.plusSeconds(108));
      if (logFirst) {
        send(d, Topics.VMOTION_OBSERVATIONS, VC + "/vm-1", log, log.timestamp());
      }
      events(d, failedMove());
      load(d, T0, 300);
      MigrationImpact settled = latest(d, Topics.MIGRATION_IMPACTS).get(VC + "/300");
      if (!logFirst) {
        beforeLog.accept(settled);
        send(d, Topics.VMOTION_OBSERVATIONS, VC + "/vm-1", log, log.timestamp());
        settled = latest(d, Topics.MIGRATION_IMPACTS).get(VC + "/300");
      }
      return settled;
    }
  }

  @Test
  void aFailedMovesSwitchoverTimeoutIsItsCauseWhetherItsLogComesBeforeOrAfterItsEvents() {
    MigrationImpact before = failedImpact("log-first", true, i -> { });
    MigrationImpact after = failedImpact("log-last", false, i -> {
      assertThat(i.migration().state()).isEqualTo(MigrationState.FAILED);
      assertThat(i.failure()).as("vCenter's fault alone, until the log comes").isEqualTo(new MigrationFailure(
          FailureCause.OTHER, "GenericVmConfigFault", "A general system error occurred: Migration failed",
          MigrationFailure.Source.VCENTER));
    });
    assertThat(before.failure()).isEqualTo(new MigrationFailure(FailureCause.SWITCHOVER_TIME_EXCEEDED,
        "msg.checkpoint.migration.maxSwitchoverTimeExceeded", SWITCHOVER.get(0).text(),
        MigrationFailure.Source.VMWARE_LOG));
    assertThat(before.vmotionId()).isEqualTo("77");
    assertThat(before.phases().precopySeconds()).isEqualTo(49.0);
    assertThat(before.phases().destinationWaitSeconds()).isEqualTo(9.5);
    assertThat(after).as("the same record, in either order").isEqualTo(before);
  }

  @Test
  void aFailureWithoutAnyLogTakesItsCauseFromVcenter() {
    try (TopologyTestDriver d = open("vcenter-only")) {
      inventory(d);
      load(d, T0.minusSeconds(300), 300);
      VcenterEvent failed = event(402, 400, T0.plusSeconds(40), "VmFailedMigrateEvent",
          VcenterEventCategory.MIGRATION_FAILED, 1, host(1), host(2), null);
      events(d, List.of(
          event(401, 400, T0, "VmBeingHotMigratedEvent", VcenterEventCategory.MIGRATION_STARTED, 1, host(1),
              host(2), null),
          new VcenterEvent(failed.vcenterUuid(), failed.eventKey(), failed.chainId(), failed.createdTime(),
              failed.eventType(), null, failed.category(), failed.userName(), failed.vm(), failed.host(),
              failed.sourceHost(), failed.destHost(), failed.computeResource(), null, null, null, null, null,
              failed.faultMessage(), null, "MigrationFault")));
      load(d, T0, 300);
      MigrationImpact i = latest(d, Topics.MIGRATION_IMPACTS).get(VC + "/400");
      assertThat(i.migration().faultType()).as("the failure event's reason.fault").isEqualTo("MigrationFault");
      assertThat(i.failure()).as("its message says more than its type").isEqualTo(new MigrationFailure(
          FailureCause.NETWORK, "MigrationFault", "vMotion failed: destination unreachable",
          MigrationFailure.Source.VCENTER));
      assertThat(i.phases()).isNull();
      assertThat(i.vmotionId()).isNull();
    }
  }

}
