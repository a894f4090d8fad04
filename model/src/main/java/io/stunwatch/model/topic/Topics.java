package io.stunwatch.model.topic;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.ExporterGpuSample;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic.Cleanup;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The catalog of every topic on the Stunwatch bus: the single place a topic name is spelled. {@code docs/events.md}
 * documents each one, and a test keeps the two in step.
 */
public final class Topics {

  /** Prefix of every Stunwatch topic, so one ACL or one {@code kcat -L} filter covers them. */
  public static final String PREFIX = "stunwatch.";

  private static final Duration SAMPLE_RETENTION = Duration.ofDays(7);
  private static final Duration EVENT_RETENTION = Duration.ofDays(30);
  private static final Duration TOMBSTONE_RETENTION = Duration.ofDays(1);
  /** An audit trail outlives the events it follows: a year. */
  private static final Duration AUDIT_RETENTION = Duration.ofDays(365);

  /** nvidia-smi readings from workers. Key: VM id (canonical SMBIOS UUID). */
  public static final Topic<String, GpuSample> GPU_SAMPLES =
      delete("gpu-samples", GpuSample.class, SAMPLE_RETENTION);

  /** nvidia-smi -q -x snapshots: processes, MIG devices, virtualization mode. Key: VM id. */
  public static final Topic<String, GpuSnapshot> GPU_SNAPSHOTS =
      delete("gpu-snapshots", GpuSnapshot.class, SAMPLE_RETENTION);

  /** Per-vGPU readings from hypervisor hosts. Key: {@link HostVgpuSample#key()}. */
  public static final Topic<String, HostVgpuSample> HOST_VGPU_SAMPLES =
      delete("host-vgpu-samples", HostVgpuSample.class, SAMPLE_RETENTION);

  /**
   * GPU readings scraped from dcgm-exporter or nvidia_gpu_exporter. Key: {@link ExporterGpuSample#key()}: the VM id,
   * else {@code name:<vm name>} or {@code guest:<host name>}, which the processor resolves through the inventory.
   */
  public static final Topic<String, ExporterGpuSample> EXPORTER_GPU_SAMPLES =
      delete("exporter-gpu-samples", ExporterGpuSample.class, SAMPLE_RETENTION);

  /** Raw cumulative RDMA port counters. Key: VM id. */
  public static final Topic<String, RdmaCounterSample> RDMA_SAMPLES =
      delete("rdma-samples", RdmaCounterSample.class, SAMPLE_RETENTION);

  /** Training throughput from job logs. Key: VM id. */
  public static final Topic<String, ThroughputSample> THROUGHPUT_SAMPLES =
      delete("throughput-samples", ThroughputSample.class, SAMPLE_RETENTION);

  /** Normalized vim25 events and migration TaskInfo changes. Key: {@code <vcenterUuid>/<vm moref>}. */
  public static final Topic<String, VcenterEvent> VCENTER_EVENTS =
      delete("vcenter-events", VcenterEvent.class, EVENT_RETENTION);

  /** Current VM inventory. Key: {@code <vcenterUuid>/<vm moref>}. Compacted. */
  public static final Topic<String, VmInventoryEntry> VM_INVENTORY =
      compact("vm-inventory", VmInventoryEntry.class);

  /** Current host inventory. Key: {@code <vcenterUuid>/<host moref>}. Compacted. */
  public static final Topic<String, HostInventoryEntry> HOST_INVENTORY =
      compact("host-inventory", HostInventoryEntry.class);

  /** Stun times read from vmware.log. Key: {@code <vcenterUuid>/<vm moref>}. Kept a year: the stun model's input. */
  public static final Topic<String, StunObservation> STUN_OBSERVATIONS =
      delete("stun-observations", StunObservation.class, Duration.ofDays(365));

  /**
   * vMotions as VMs' vmware.log files tell them: phases, destination wait, failure messages. Key: like
   * {@link #STUN_OBSERVATIONS}. Kept a year, beside the stuns.
   */
  public static final Topic<String, VmotionObservation> VMOTION_OBSERVATIONS =
      delete("vmotion-observations", VmotionObservation.class, Duration.ofDays(365));

  /** Precopy bandwidth from source hosts' vmkernel.log. Key: the vMotion id. Kept a year: a forecast input. */
  public static final Topic<String, VmotionBandwidth> VMOTION_BANDWIDTH =
      delete("vmotion-bandwidth", VmotionBandwidth.class, Duration.ofDays(365));

  /** vCenter collector resume points. Key: vCenter instance UUID. Compacted. */
  public static final Topic<String, VcenterCheckpoint> VCENTER_CHECKPOINTS =
      compact("vcenter-checkpoints", VcenterCheckpoint.class);

  /** Migrations as they progress, newest state per migration. Key: migration id. Compacted. */
  public static final Topic<String, Migration> MIGRATIONS =
      compact("migrations", Migration.class);

  /** Final impact record per migration. Key: migration id. Compacted, so history is kept. */
  public static final Topic<String, MigrationImpact> MIGRATION_IMPACTS =
      compact("migration-impacts", MigrationImpact.class);

  /** The stun-time model, newest state per group. Key: {@code <group>:<groupKey>}. Compacted. */
  public static final Topic<String, StunModelEntry> STUN_MODEL =
      compact("stun-model", StunModelEntry.class);

  /** "Migration under load" alerts, newest state per migration. Key: migration id. Compacted. */
  public static final Topic<String, MigrationAlert> MIGRATION_ALERTS =
      compact("migration-alerts", MigrationAlert.class);

  /**
   * The DRS guard's decisions, newest per VM: protect, hold, release. Key: VM id. Compacted, so a collector that
   * starts again finds every VM's last decision.
   */
  public static final Topic<String, GuardDecision> GUARD_DECISIONS =
      compact("guard-decisions", GuardDecision.class);

  /**
   * The DRS guard's audit trail: every protection and release {@code collect vcenter} made, would have made (dry-run)
   * or left to the admin. Key: VM id.
   */
  public static final Topic<String, GuardAction> GUARD_ACTIONS =
      delete("guard-actions", GuardAction.class, AUDIT_RETENTION);

  /** Records that could not be decoded or processed. Key: source topic name. */
  public static final Topic<String, DeadLetter> DEAD_LETTERS =
      delete("dead-letters", DeadLetter.class, EVENT_RETENTION);

  /**
   * What a worker collector writes (on a GPU VM or an ESXi host), and the exporter scraper: the only topics its login
   * may touch.
   */
  public static final List<Topic<?, ?>> WORKER_OUTPUTS = List.of(GPU_SAMPLES, GPU_SNAPSHOTS, HOST_VGPU_SAMPLES,
      EXPORTER_GPU_SAMPLES, RDMA_SAMPLES, THROUGHPUT_SAMPLES);
  /** What {@code collect hosts} writes: the hosts' vGPU readings and the precopy bandwidth of their vmkernel.log. */
  public static final List<Topic<?, ?>> HOSTS_OUTPUTS = List.of(HOST_VGPU_SAMPLES, VMOTION_BANDWIDTH);
  /**
   * What the vCenter collector writes; it also reads back its checkpoints. A support bundle's replay writes the
   * vmkernel.log bandwidth beside the vmware.log it reads.
   */
  public static final List<Topic<?, ?>> VCENTER_OUTPUTS = List.of(VCENTER_EVENTS, VM_INVENTORY, HOST_INVENTORY,
      STUN_OBSERVATIONS, VMOTION_OBSERVATIONS, VMOTION_BANDWIDTH, VCENTER_CHECKPOINTS, GUARD_ACTIONS);

  /** Every topic, in documentation order. */
  public static final List<Topic<?, ?>> ALL = List.of(
      GPU_SAMPLES, GPU_SNAPSHOTS, HOST_VGPU_SAMPLES, EXPORTER_GPU_SAMPLES, RDMA_SAMPLES, THROUGHPUT_SAMPLES,
      VCENTER_EVENTS, VM_INVENTORY, HOST_INVENTORY, STUN_OBSERVATIONS, VMOTION_OBSERVATIONS, VMOTION_BANDWIDTH,
      VCENTER_CHECKPOINTS, MIGRATIONS, MIGRATION_IMPACTS, STUN_MODEL, MIGRATION_ALERTS, GUARD_DECISIONS, GUARD_ACTIONS,
      DEAD_LETTERS);

  private Topics() {
  }

  /** The catalog entry of a topic name, if it is one of ours. */
  public static Optional<Topic<?, ?>> byName(String name) {
    return ALL.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  private static <V> Topic<String, V> delete(String name, Class<V> type, Duration retention) {
    return new Topic<>(PREFIX + name, Serdes.String(), JsonSerde.of(type), Cleanup.DELETE, retention);
  }

  private static <V> Topic<String, V> compact(String name, Class<V> type) {
    return new Topic<>(PREFIX + name, Serdes.String(), JsonSerde.of(type), Cleanup.COMPACT, TOMBSTONE_RETENTION);
  }
}
