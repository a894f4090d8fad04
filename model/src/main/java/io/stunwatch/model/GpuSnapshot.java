package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * What {@code nvidia-smi -q -x} adds to the streamed CSV samples, taken now and then: processes, MIG devices and
 * virtualization mode per GPU. Keyed by VM id.
 *
 * @param vmId          canonical SMBIOS UUID of the VM; the Kafka key
 * @param hostname      guest hostname
 * @param timestamp     the log's {@code timestamp} (host local time converted to UTC), else when it was taken
 * @param driverVersion driver version
 * @param cudaVersion   CUDA version, when reported
 * @param gpus          one entry per {@code <gpu>} element, in file order
 */
@Schema(name = "gpu-snapshot")
public record GpuSnapshot(
    String vmId,
    String hostname,
    Instant timestamp,
    String driverVersion,
    String cudaVersion,
    List<Gpu> gpus) {

  public GpuSnapshot {
    Checks.requiredText(vmId, "vmId");
    Checks.required(timestamp, "timestamp");
    gpus = Checks.list(gpus);
  }

  /**
   * One GPU of the snapshot.
   *
   * @param pciBusId           the {@code id} attribute, e.g. {@code 00000000:01:00.0}
   * @param uuid               GPU UUID
   * @param productName        e.g. {@code GRID T4-16C}
   * @param minorNumber        {@code /dev/nvidiaN} minor number
   * @param virtualizationMode {@code None}, {@code Pass-Through}, {@code VGPU}, {@code Host VGPU}
   * @param hostVgpuMode       {@code SR-IOV}, {@code Non SR-IOV}, when reported
   * @param migMode            current MIG mode, {@code Enabled} or {@code Disabled}, when reported
   * @param fbTotalMiB         framebuffer size, MiB
   * @param fbUsedMiB          framebuffer used, MiB
   * @param utilizationGpuPct  GPU utilization, percent
   * @param vgpuProfile        parsed from {@code productName}
   * @param migDevices         MIG devices, empty when MIG is off
   * @param processes          processes using the GPU
   */
  public record Gpu(
      String pciBusId,
      String uuid,
      String productName,
      Integer minorNumber,
      String virtualizationMode,
      String hostVgpuMode,
      String migMode,
      Long fbTotalMiB,
      Long fbUsedMiB,
      Double utilizationGpuPct,
      VgpuProfile vgpuProfile,
      List<MigDevice> migDevices,
      List<GpuProcess> processes) {

    public Gpu {
      Checks.nonNegative(fbTotalMiB, "fbTotalMiB");
      Checks.nonNegative(fbUsedMiB, "fbUsedMiB");
      Checks.range(utilizationGpuPct, 0, 100, "utilizationGpuPct");
      migDevices = Checks.list(migDevices);
      processes = Checks.list(processes);
    }
  }

  /**
   * A MIG device.
   *
   * @param index             MIG device index
   * @param gpuInstanceId     GPU instance id
   * @param computeInstanceId compute instance id
   * @param fbTotalMiB        its framebuffer, MiB
   * @param fbUsedMiB         framebuffer used, MiB
   */
  public record MigDevice(int index, Integer gpuInstanceId, Integer computeInstanceId, Long fbTotalMiB,
      Long fbUsedMiB) {
  }

  /**
   * A process using the GPU.
   *
   * @param pid               process id
   * @param type              {@code C} (compute), {@code G} (graphics) or {@code C+G}
   * @param name              process name or command line
   * @param usedMemoryMiB     framebuffer it uses, MiB
   * @param gpuInstanceId     MIG GPU instance, when MIG is on
   * @param computeInstanceId MIG compute instance, when MIG is on
   */
  public record GpuProcess(Long pid, String type, String name, Long usedMemoryMiB, Integer gpuInstanceId,
      Integer computeInstanceId) {
  }
}
