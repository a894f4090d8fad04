package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One reading of one GPU as the worker's nvidia-smi sees it (in a vGPU guest, on bare metal or with pass-through).
 *
 * <p>Every measurement is nullable: nvidia-smi's {@code [N/A]}, {@code [Not Supported]} and similar mean
 * "unknown", and are absent here, never 0. A vGPU guest, for example, has no power or temperature.
 *
 * @param vmId                canonical SMBIOS UUID of the VM (see {@link VmIds}); the Kafka key
 * @param hostname            guest hostname
 * @param timestamp           when nvidia-smi took the reading (its {@code timestamp} column, converted to UTC)
 * @param gpuIndex            nvidia-smi's GPU index
 * @param gpuUuid             GPU UUID ({@code GPU-...})
 * @param name                product name, e.g. {@code GRID T4-16C} or {@code NVIDIA H100 80GB HBM3}
 * @param pciBusId            PCI bus id, e.g. {@code 00000000:02:00.0}
 * @param utilizationGpuPct   {@code utilization.gpu}, percent of time a kernel ran, 0–100
 * @param utilizationMemoryPct {@code utilization.memory}, percent of time memory was read or written, 0–100
 * @param memoryUsedMiB       {@code memory.used}: framebuffer used, MiB
 * @param memoryTotalMiB      {@code memory.total}: framebuffer size, MiB
 * @param powerDrawW          {@code power.draw}, watts
 * @param temperatureC        {@code temperature.gpu}, degrees Celsius
 * @param smClockMHz          {@code clocks.sm}, MHz
 * @param pstate              performance state, {@code P0}–{@code P12}
 * @param vgpuProfile         the vGPU profile parsed from {@code name}; absent on a physical GPU
 */
@Schema(name = "gpu-sample")
public record GpuSample(
    String vmId,
    String hostname,
    Instant timestamp,
    int gpuIndex,
    String gpuUuid,
    String name,
    String pciBusId,
    Double utilizationGpuPct,
    Double utilizationMemoryPct,
    Long memoryUsedMiB,
    Long memoryTotalMiB,
    Double powerDrawW,
    Double temperatureC,
    Long smClockMHz,
    String pstate,
    VgpuProfile vgpuProfile) {

  public GpuSample {
    Checks.requiredText(vmId, "vmId");
    Checks.required(timestamp, "timestamp");
    if (gpuIndex < 0) {
      throw new IllegalArgumentException("gpuIndex must not be negative, was " + gpuIndex);
    }
    Checks.range(utilizationGpuPct, 0, 100, "utilizationGpuPct");
    Checks.range(utilizationMemoryPct, 0, 100, "utilizationMemoryPct");
    Checks.nonNegative(memoryUsedMiB, "memoryUsedMiB");
    Checks.nonNegative(memoryTotalMiB, "memoryTotalMiB");
    Checks.nonNegative(powerDrawW, "powerDrawW");
    Checks.nonNegative(smClockMHz, "smClockMHz");
  }
}
