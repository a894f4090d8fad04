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
 * @param source              which view read it: the guest's driver or the hypervisor's; absent means
 *                            {@link LoadSource#GUEST}, as in records written before the two were told apart
 * @param migInstanceId       the MIG GPU instance ({@code GPU_I_ID}, nvidia-smi's {@code gpu_instance_id}) this
 *                            reading is of; absent for a whole GPU or vGPU
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
    VgpuProfile vgpuProfile,
    LoadSource source,
    Integer migInstanceId) implements VmInput {

  /** A whole GPU read by the guest's own driver. */
  public GpuSample(String vmId, String hostname, Instant timestamp, int gpuIndex, String gpuUuid, String name,
      String pciBusId, Double utilizationGpuPct, Double utilizationMemoryPct, Long memoryUsedMiB, Long memoryTotalMiB,
      Double powerDrawW, Double temperatureC, Long smClockMHz, String pstate, VgpuProfile vgpuProfile) {
    this(vmId, hostname, timestamp, gpuIndex, gpuUuid, name, pciBusId, utilizationGpuPct, utilizationMemoryPct,
        memoryUsedMiB, memoryTotalMiB, powerDrawW, temperatureC, smClockMHz, pstate, vgpuProfile, null, null);
  }

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
    if (migInstanceId != null && migInstanceId < 0) {
      throw new IllegalArgumentException("migInstanceId must not be negative, was " + migInstanceId);
    }
  }

  /** Which view read it; {@link LoadSource#GUEST} when the record does not say. */
  public LoadSource loadSource() {
    return LoadSource.orGuest(source);
  }

  /**
   * What tells this GPU apart from the VM's others: its UUID (or index), and the MIG instance when it is one. The
   * sums of a VM's framebuffer take each GPU's latest reading once.
   */
  public String gpuKey() {
    String gpu = gpuUuid != null ? gpuUuid : "index:" + gpuIndex;
    return migInstanceId == null ? gpu : gpu + "/mig:" + migInstanceId;
  }

  /**
   * The bit of a per-second point's 32-bit set of GPUs that this reading's framebuffer is counted under: its index,
   * or, for a MIG instance, the GPU's index and the instance's (up to eight instances a GPU).
   */
  public int maskBit() {
    return 1 << ((migInstanceId == null ? gpuIndex : gpuIndex * 8 + migInstanceId) & 31);
  }
}
