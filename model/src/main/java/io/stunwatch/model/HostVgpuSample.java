package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One vGPU instance as the hypervisor sees it ({@code nvidia-smi vgpu -q} on the ESXi host). This is the view
 * that survives a guest stun and allows comparing the scheduler policies of the physical GPU.
 *
 * @param vmId                 canonical SMBIOS UUID of the VM that owns the vGPU, when the host reports it (KVM
 *                             does; ESXi reports the VM's name and world id instead)
 * @param hostname             hypervisor host name
 * @param timestamp            when the reading was taken
 * @param gpuPciBusId          PCI bus id of the physical GPU
 * @param gpuName              product name of the physical GPU
 * @param vmName               VM name as the host reports it
 * @param vgpuInstanceId       vGPU instance id on the host
 * @param vgpuType             vGPU type name, e.g. {@code GRID T4-16C}
 * @param vgpuProfile          profile parsed from {@code vgpuType}, absent when it does not parse
 * @param fbTotalMiB           framebuffer assigned, MiB
 * @param fbUsedMiB            framebuffer in use, MiB
 * @param utilizationGpuPct    GPU utilization of this vGPU, percent
 * @param utilizationMemoryPct memory utilization of this vGPU, percent
 * @param schedulerPolicy      the physical GPU's vGPU scheduler: best effort, equal share or fixed share
 * @param vmWorldId            the VM's id on the host as the driver prints it ({@code VM ID}: the world id on ESXi,
 *                             the domain id elsewhere); shown, never used as identity, since it changes with every
 *                             power-on and migration
 * @param gpuInstanceId        the MIG GPU instance that backs the vGPU, absent for time-sliced vGPUs
 */
@Schema(name = "host-vgpu-sample")
public record HostVgpuSample(
    String vmId,
    String hostname,
    Instant timestamp,
    String gpuPciBusId,
    String gpuName,
    String vmName,
    String vgpuInstanceId,
    String vgpuType,
    VgpuProfile vgpuProfile,
    Long fbTotalMiB,
    Long fbUsedMiB,
    Double utilizationGpuPct,
    Double utilizationMemoryPct,
    String schedulerPolicy,
    String vmWorldId,
    Integer gpuInstanceId) implements HostGpuReading {

  public HostVgpuSample {
    if (vmId != null) {
      vmId = VmIds.canonical(vmId);
    } else if (vmName == null || vmName.isBlank()) {
      throw new IllegalArgumentException("vmId or vmName is required");
    }
    Checks.requiredText(hostname, "hostname");
    Checks.required(timestamp, "timestamp");
    Checks.nonNegative(fbTotalMiB, "fbTotalMiB");
    Checks.nonNegative(fbUsedMiB, "fbUsedMiB");
    Checks.range(utilizationGpuPct, 0, 100, "utilizationGpuPct");
    Checks.range(utilizationMemoryPct, 0, 100, "utilizationMemoryPct");
    Checks.nonNegative(gpuInstanceId == null ? null : gpuInstanceId.longValue(), "gpuInstanceId");
  }

  /**
   * The Kafka key: the VM id when known, else {@code name:<hostname>/<vmName>}, which the processor resolves
   * through the inventory (VM names are unique per host at a given time).
   */
  public String key() {
    return vmId != null ? vmId : "name:" + hostname + "/" + vmName;
  }
}
