package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One GPU (or MIG instance) as an existing exporter reports it: NVIDIA's dcgm-exporter or nvidia_gpu_exporter, scraped
 * by {@code stunwatch collect prometheus}. The exporter runs in the guest, so this is the guest's own view
 * ({@link LoadSource#GUEST}), but it names no VM: the collector identifies the VM from a mapped label, and the
 * processor resolves the rest through the inventory ({@link #key()}).
 *
 * <p>Figures the exporter did not report, or reported as {@code NaN}, are absent, never 0.
 *
 * @param vmId                canonical SMBIOS UUID, when a mapped label carries one
 * @param vmName              the VM's name in vCenter, when a mapped label carries it
 * @param guestHostName       the guest's host name (dcgm-exporter's {@code Hostname} label, or the target's host),
 *                            matched against {@code guest.hostName} in the inventory
 * @param exporter            which exporter's metric names were read: {@code dcgm-exporter} or
 *                            {@code nvidia_gpu_exporter}
 * @param target              the URL scraped, or the replayed file
 * @param timestamp           the sample's own timestamp when the page gave one, else when the page was scraped
 * @param gpuIndex            the GPU's index ({@code gpu} label), or 0 when the exporter gives none
 * @param gpuUuid             {@code UUID} / {@code uuid} label
 * @param name                {@code modelName} / {@code name} label, e.g. {@code NVIDIA A100-SXM4-40GB}
 * @param migInstanceId       {@code GPU_I_ID}: the MIG GPU instance, absent for a whole GPU
 * @param utilizationGpuPct   GPU utilization, percent
 * @param utilizationMemoryPct memory utilization, percent
 * @param memoryUsedMiB       framebuffer used, MiB
 * @param memoryTotalMiB      framebuffer size (used plus free, or the exporter's total), MiB
 */
@Schema(name = "exporter-gpu-sample")
public record ExporterGpuSample(
    String vmId,
    String vmName,
    String guestHostName,
    String exporter,
    String target,
    Instant timestamp,
    int gpuIndex,
    String gpuUuid,
    String name,
    Integer migInstanceId,
    Double utilizationGpuPct,
    Double utilizationMemoryPct,
    Long memoryUsedMiB,
    Long memoryTotalMiB) implements HostGpuReading {

  public ExporterGpuSample {
    if (vmId != null) {
      vmId = VmIds.canonical(vmId);
    } else if ((vmName == null || vmName.isBlank()) && (guestHostName == null || guestHostName.isBlank())) {
      throw new IllegalArgumentException("vmId, vmName or guestHostName is required");
    }
    Checks.requiredText(exporter, "exporter");
    Checks.required(timestamp, "timestamp");
    if (gpuIndex < 0) {
      throw new IllegalArgumentException("gpuIndex must not be negative, was " + gpuIndex);
    }
    Checks.range(utilizationGpuPct, 0, 100, "utilizationGpuPct");
    Checks.range(utilizationMemoryPct, 0, 100, "utilizationMemoryPct");
    Checks.nonNegative(memoryUsedMiB, "memoryUsedMiB");
    Checks.nonNegative(memoryTotalMiB, "memoryTotalMiB");
  }

  /**
   * The Kafka key: the VM id when a label gave it, else {@code name:<vm name>}, else {@code guest:<host name>}; the
   * processor resolves the last two through the inventory.
   */
  public String key() {
    if (vmId != null) {
      return vmId;
    }
    return vmName != null && !vmName.isBlank() ? "name:" + vmName : "guest:" + guestHostName;
  }
}
