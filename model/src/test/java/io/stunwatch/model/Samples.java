package io.stunwatch.model;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/** One fully populated instance of every bus record, for round-trip and schema tests. */
public final class Samples {

  public static final String VM = "4c4c4544-0042-3510-8052-b4c04f4e3232";
  public static final String VC = "0b6e3a1c-7d2e-4f5a-9b8c-1d2e3f4a5b6c";
  public static final Instant T0 = Instant.parse("2026-11-21T12:00:00.125Z");

  private Samples() {
  }

  public static GpuSample gpu() {
    return new GpuSample(VM, "worker-01", T0, 0, "GPU-6a1b", "GRID T4-16C", "00000000:02:00.0", 88.0, 41.0, 15360L,
        16384L, null, null, 1590L, "P0", VgpuProfile.parse("GRID T4-16C").orElseThrow());
  }

  public static EntityRef host(String moref) {
    return new EntityRef("HostSystem", moref, "esx-" + moref + ".lab");
  }

  public static Migration migration() {
    return new Migration(Keys.migration(VC, 5636613), VC, "vm-42", "train-01", VM, "T4-16C",
        MigrationState.SUCCEEDED, Initiator.DRS, "Drm.ExecuteVMotionLRO", false, host("host-1"), host("host-2"),
        new EntityRef("ClusterComputeResource", "domain-c7", "gpu"), null, null, null, T0, T0.plusSeconds(180),
        null, T0.plusSeconds(180));
  }

  public static StunTime stun() {
    return new StunTime(30.5, StunTime.Source.VMWARE_LOG);
  }

  /** The instance of {@code type} in {@link #all()}. */
  public static <T> T of(Class<T> type) {
    return all().stream().filter(type::isInstance).map(type::cast).findFirst().orElseThrow();
  }

  /** One instance of each value type in the topic catalog, in catalog order. */
  public static List<Object> all() {
    PhaseStats phase = new PhaseStats(T0, T0.plusSeconds(300), 300, 88.0, 15000.0, 16384.0, 1.2e9, 245.3);
    return List.of(
        new GpuSample(VM, "worker-01", T0, 0, "GPU-6a1b", "NVIDIA A100-SXM4-40GB", "00000000:02:00.0", 88.0, 41.0,
            15360L, 19968L, 250.0, 61.0, 1410L, "P0", null, LoadSource.GUEST, 3),
        new GpuSnapshot(VM, "worker-01", T0, "535.54.03", "12.2", List.of(new GpuSnapshot.Gpu("00000000:02:00.0",
            "GPU-6a1b", "GRID T4-16C", 0, "VGPU", null, "Disabled", 16384L, 15360L, 88.0,
            VgpuProfile.parse("GRID T4-16C").orElseThrow(),
            List.of(new GpuSnapshot.MigDevice(0, 3, 0, 19968L, 12L)),
            List.of(new GpuSnapshot.GpuProcess(5762L, "C", "python train.py", 15000L, null, null))))),
        new HostVgpuSample(VM, "esx01", T0, "0000:3b:00.0", "Tesla T4", "train-01", "3251634213", "GRID T4-16C",
            VgpuProfile.parse("GRID T4-16C").orElseThrow(), 16384L, 15360L, 90.0, 40.0, "Equal Share", "2103582", null),
        new ExporterGpuSample(null, "train-01", "trainer-01.lab", "dcgm-exporter", "http://trainer-01.lab:9400/metrics",
            T0, 1, "GPU-7c2d", "NVIDIA A100-SXM4-40GB", 2, 81.25, 30.0, 14592L, 19456L),
        new RdmaCounterSample(VM, "worker-01", T0, "mlx5_0", 1, "Ethernet",
            Map.of("port_xmit_data", CounterReading.valid(123456789L),
                "port_rcv_data", CounterReading.saturated(4294967295L, "32-bit PMA counter latched at all ones"),
                "port_xmit_packets", CounterReading.unavailable("N/A (no PMA)")),
            Map.of("rx_write_requests", CounterReading.valid(42L)), null),
        new ThroughputSample(VM, "worker-01", T0, "resnet50", ThroughputSample.ThroughputScope.STEP, 245.3,
            "images/sec"),
        new VcenterEvent(VC, 5636626, 5636613L, T0, "VmMigratedEvent", null, VcenterEventCategory.MIGRATION_COMPLETED,
            "VSPHERE.LOCAL\\Administrator", new EntityRef("VirtualMachine", "vm-42", "train-01"), host("host-2"),
            host("host-1"), null, new EntityRef("ClusterComputeResource", "domain-c7", "gpu"),
            new EntityRef("Datacenter", "datacenter-3", "dc"), new EntityRef("Datastore", "datastore-1", "ds1"), null,
            null, "Virtual machine train-01 was migrated", null,
            new TaskSnapshot("task-1", "VirtualMachine.relocate", new EntityRef("VirtualMachine", "vm-42", null),
                "success", false, T0.minusSeconds(181), T0.minusSeconds(180), T0, null, null, 5636613L,
                "TaskReasonUser", "VSPHERE.LOCAL\\Administrator")),
        new VmInventoryEntry(VC, "vm-42", "train-01", VM.toUpperCase(), "5012abcd-0000-1111-2222-333344445555",
            host("host-1"), new EntityRef("ClusterComputeResource", "domain-c7", "gpu"), "dc",
            "[ds1] train-01/train-01.vmx", 65536L, List.of("grid_t4-16c"),
            VgpuProfile.parse("grid_t4-16c").orElseThrow(), T0, "trainer-01.lab"),
        new HostInventoryEntry(VC, "host-1", "esx01.lab", new EntityRef("ClusterComputeResource", "domain-c7", "gpu"),
            List.of(new HostInventoryEntry.HostGpu("0000:3b:00.0", "NVIDIA Tesla T4", "NVIDIA Corporation", 16384L)),
            25000L, T0),
        new StunObservation(VC, "vm-42", "train-01", "1637000000123456", T0, 188405,
            StunObservation.StunSource.CHECKPOINT_UNSTUN, "[ds1] train-01/vmware.log", 1234),
        new VmotionObservation(VC, "vm-42", "train-01", "1637000000123456", T0, T0.minusSeconds(120),
            T0.minusMillis(9_500), T0.minusSeconds(10), T0.minusMillis(9_925), T0, 9_800_000L, 9.75,
            List.of(new LogMessage("msg.checkpoint.migration.maxSwitchoverTimeExceeded", "The migration has exceeded "
                + "the maximum switchover time of 100 second(s).")), "[ds1] train-01/vmware-1.log", 1204),
        new VmotionBandwidth("1637000000123456", "esx01", T0.minusSeconds(10), 145.404, 1296L, 0.5,
            "esx01:/var/log/vmkernel.log", 88),
        new VcenterCheckpoint(VC, T0, List.of(5636626L, 5636627L), T0.plusSeconds(1), Map.of("vm-42", T0),
            List.of(new VcenterCheckpoint.PendingTask("task-77", 9001, 9001L, "vm-42", "train-01", "running")),
            List.of(new VcenterCheckpoint.RecentEvent(5636626L, T0)),
            List.of(new VcenterCheckpoint.Protection(VM, "vm-42", "domain-c7",
                new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, true), DrsOverride.MANUAL, T0, false)), T0,
            List.of(new VcenterCheckpoint.Maintenance("host-7", "esx07", T0))),
        migration(),
        new MigrationImpact(migration(), 180.0, stun(), phase, phase, phase, 12.5,
            List.of(new TimelinePoint(T0, 88.0, 15360.0, null, 245.3)), T0.plusSeconds(300),
            new StunTime(29.0, StunTime.Source.SAMPLE_GAP_ESTIMATE), 1.5, LoadSource.HOST, "1637000000123456",
            new VmotionPhases(T0.minusSeconds(120), T0.minusSeconds(10), T0.minusMillis(9_925), T0, 110.0, 0.075, 9.8,
                9.75), 145.404, 1296L, new MigrationFailure(FailureCause.SWITCHOVER_TIME_EXCEEDED,
                "msg.checkpoint.migration.maxSwitchoverTimeExceeded", "The migration has exceeded the maximum "
                + "switchover time of 100 second(s).", MigrationFailure.Source.VMWARE_LOG)),
        new StunModelEntry(StunModelEntry.Group.PROFILE, "T4-16C", 12, 30.0, 45.0, 2.0, 3.0, 2.1,
            List.of(new StunModelEntry.Observation(migration().id(), 30.5, 15.0, StunTime.Source.VMWARE_LOG)), T0),
        new MigrationAlert(migration().id(), MigrationAlert.AlertState.RESOLVED, "vm-42", "train-01", VM,
            host("host-1"), host("host-2"), Initiator.DRS, "T4-16C",
            new MigrationAlert.Load(88.0, 60L, 15360L, 93.75, 2.0e9, LoadSource.HOST),
            List.of(MigrationAlert.Reason.GPU_UTILIZATION, MigrationAlert.Reason.FB_USED),
            new StunForecast(30.0, 45.0, 2.0, 15.0, 12, StunForecast.Basis.SITE_MEDIAN_RATIO), T0, T0.plusSeconds(180),
            new MigrationAlert.Measured(MigrationState.SUCCEEDED, 180.0, stun(), 12.5)),
        new GuardDecision(VM, GuardDecision.Action.PROTECT, List.of(MigrationAlert.Reason.GPU_UTILIZATION),
            new MigrationAlert.Load(95.0, 60L, 12288L, 75.0, null, LoadSource.GUEST),
            new StunForecast(24.0, 36.0, 2.0, 12.0, 0, StunForecast.Basis.VMWARE_REFERENCE), 30.0, T0,
            T0.plusSeconds(1)),
        new GuardAction(VM, VC, "vm-42", "train-01", new EntityRef("ClusterComputeResource", "domain-c7", "gpu"),
            GuardAction.Kind.PROTECT, GuardAction.Result.APPLIED, DrsOverride.MANUAL, null, null,
            "DRS set to manual for this VM", T0.plusSeconds(2)),
        DeadLetter.of("stunwatch.gpu-samples", 0, 41, T0, null, new byte[] {0, (byte) 0xff},
            DeadLetter.Stage.DESERIALIZATION, "not valid JSON", "stream-processor", T0));
  }
}
