package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * "Migration under load": raised when a migration starts while its VM is busy, and updated with the measured impact
 * when it ends. Compacted topic keyed by the migration id, so the newest state of each alert is kept.
 *
 * @param migrationId  the migration this alert is about
 * @param state        firing while the migration runs, resolved when it ended
 * @param vmMoref      VM moref value
 * @param vmName       VM name
 * @param vmId         canonical SMBIOS UUID
 * @param sourceHost   source host
 * @param destHost     destination host, when known at start
 * @param initiator    user or DRS
 * @param vgpuProfile  the VM's vGPU profile name
 * @param load         the load that crossed a threshold
 * @param reasons      which thresholds were crossed
 * @param forecast     forecast stun time when it was raised
 * @param raisedAt     the migration's start (event time)
 * @param updatedAt    event time of the last update
 * @param measured     the measured impact, once the migration has ended
 */
@Schema(name = "migration-alert")
public record MigrationAlert(
    String migrationId,
    AlertState state,
    String vmMoref,
    String vmName,
    String vmId,
    EntityRef sourceHost,
    EntityRef destHost,
    Initiator initiator,
    String vgpuProfile,
    Load load,
    List<Reason> reasons,
    StunForecast forecast,
    Instant raisedAt,
    Instant updatedAt,
    Measured measured) {

  public MigrationAlert {
    Checks.requiredText(migrationId, "migrationId");
    Checks.required(state, "state");
    Checks.required(initiator, "initiator");
    Checks.required(load, "load");
    reasons = Checks.list(reasons);
    if (reasons.isEmpty()) {
      throw new IllegalArgumentException("reasons must name at least one crossed threshold");
    }
    Checks.required(raisedAt, "raisedAt");
    Checks.required(updatedAt, "updatedAt");
  }

  /**
   * This alert resolved: the migration's identity and hosts as it settled (not as they were when the alert was
   * decided, which depends on when each record arrived), the load, reasons and forecast of the raise kept.
   *
   * @param settled  the migration as it ended
   * @param at       when this resolution was decided
   * @param measured what the migration did
   */
  public MigrationAlert resolved(Migration settled, Instant at, Measured measured) {
    return new MigrationAlert(migrationId, AlertState.RESOLVED, settled.vmMoref(), settled.vmName(), settled.vmId(),
        settled.sourceHost(), settled.destHost(), settled.initiator(), settled.vgpuProfile(), load, reasons,
        forecast, raisedAt, at, measured);
  }

  /** This alert with other measurements, nothing else changed. */
  public MigrationAlert withMeasured(Measured measured) {
    return new MigrationAlert(migrationId, state, vmMoref, vmName, vmId, sourceHost, destHost, initiator,
        vgpuProfile, load, reasons, forecast, raisedAt, updatedAt, measured);
  }

  /** Alert lifecycle. */
  public enum AlertState {
    FIRING,
    RESOLVED
  }

  /** A threshold that a migration crossed. */
  public enum Reason {
    GPU_UTILIZATION,
    FB_USED,
    RDMA_RATE
  }

  /**
   * The VM's load when the migration started; absent figures had no samples.
   *
   * @param gpuUtilizationAvgPct GPU utilization averaged over the look-back window, percent
   * @param gpuUtilizationWindowSeconds the look-back window, seconds
   * @param fbUsedMiB            framebuffer used, MiB
   * @param fbUsedPct            framebuffer used, percent of total
   * @param rdmaBitsPerSec       RDMA rate, rx plus tx, bits per second
   * @param source               which view the GPU figures came from: the guest's, or the ESXi host's for a VM
   *                             with no guest readings in the window; absent without GPU figures
   */
  public record Load(
      Double gpuUtilizationAvgPct,
      Long gpuUtilizationWindowSeconds,
      Long fbUsedMiB,
      Double fbUsedPct,
      Double rdmaBitsPerSec,
      LoadSource source) {

    /** A load whose GPU figures' source is not told. */
    public Load(Double gpuUtilizationAvgPct, Long gpuUtilizationWindowSeconds, Long fbUsedMiB, Double fbUsedPct,
        Double rdmaBitsPerSec) {
      this(gpuUtilizationAvgPct, gpuUtilizationWindowSeconds, fbUsedMiB, fbUsedPct, rdmaBitsPerSec, null);
    }
  }

  /**
   * The measured impact, filled in when the migration ends.
   *
   * @param result           how the migration ended
   * @param durationSeconds  seconds
   * @param stun             stun time and its source
   * @param throughputDipPct throughput dip, percent
   */
  public record Measured(MigrationState result, Double durationSeconds, StunTime stun, Double throughputDipPct) {

    public Measured {
      Checks.required(result, "measured.result");
    }

    /** These measurements with another stun time, and the throughput dip that counts it. */
    public Measured withStun(StunTime stun, Double throughputDipPct) {
      return new Measured(result, durationSeconds, stun, throughputDipPct);
    }
  }
}
