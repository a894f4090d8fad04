package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.json.Schema;
import java.util.Map;

/**
 * A VM's GPU load over one window (10 s or 1 min, see {@link StoreNames#VM_LOAD_10S}): every sample of every GPU of
 * the VM that fell in the window. Figures nvidia-smi could not read are left out of both sum and count, so an
 * absent average means "unknown", never 0.
 *
 * @param samples            samples folded in
 * @param gpuUtilSum         sum of the known {@code utilization.gpu} values, percent
 * @param gpuUtilCount       how many were known
 * @param gpuUtilMax         the highest known one
 * @param memUtilSum         sum of the known {@code utilization.memory} values, percent
 * @param memUtilCount       how many were known
 * @param fbUsedMaxMiB       the highest framebuffer use of the window, all GPUs of the VM together, MiB
 * @param fbUsedLastMiB      the framebuffer use of the latest sample, all GPUs, MiB
 * @param fbTotalMiB         framebuffer size, all GPUs, MiB
 * @param fbByGpu            latest framebuffer use and size of each GPU, to sum the VM's
 */
@Schema(name = "store.vm-load-window")
public record LoadAggregate(long samples, double gpuUtilSum, int gpuUtilCount, Double gpuUtilMax, double memUtilSum,
    int memUtilCount, Long fbUsedMaxMiB, Long fbUsedLastMiB, Long fbTotalMiB, Map<String, Fb> fbByGpu) {

  public LoadAggregate {
    fbByGpu = fbByGpu == null ? Map.of() : Map.copyOf(fbByGpu);
  }

  /** One GPU's framebuffer, MiB. */
  public record Fb(long usedMiB, long totalMiB) {
  }

  /** The empty window. */
  public static LoadAggregate empty() {
    return new LoadAggregate(0, 0, 0, null, 0, 0, null, null, null, Map.of());
  }

  /** This window with {@code s} folded in. */
  public LoadAggregate with(GpuSample s) {
    Double u = s.utilizationGpuPct();
    Double m = s.utilizationMemoryPct();
    Long used = fbUsedLastMiB;
    Long total = fbTotalMiB;
    Map<String, Fb> byGpu = fbByGpu;
    if (s.memoryUsedMiB() != null && s.memoryTotalMiB() != null) {
      // Framebuffer is per GPU: the VM's figure is the sum of each GPU's latest, not of every sample.
      String gpu = s.gpuKey();
      Fb held = fbByGpu.get(gpu);
      if (held == null || held.usedMiB() != s.memoryUsedMiB() || held.totalMiB() != s.memoryTotalMiB()) {
        byGpu = Maps.with(fbByGpu, gpu, new Fb(s.memoryUsedMiB(), s.memoryTotalMiB()));
      } // else as it was: a training job's framebuffer use mostly stays put from sample to sample
      if (byGpu.size() == 1) {
        // The VM's one GPU (the vGPU case): its figures as the sample boxed them, not boxed again on every sample.
        used = s.memoryUsedMiB();
        total = s.memoryTotalMiB();
      } else {
        long usedSum = 0;
        long totalSum = 0;
        for (Fb f : byGpu.values()) {
          usedSum += f.usedMiB();
          totalSum += f.totalMiB();
        }
        used = usedSum;
        total = totalSum;
      }
    }
    return new LoadAggregate(samples + 1, gpuUtilSum + (u == null ? 0 : u), gpuUtilCount + (u == null ? 0 : 1),
        max(gpuUtilMax, u), memUtilSum + (m == null ? 0 : m), memUtilCount + (m == null ? 0 : 1),
        max(fbUsedMaxMiB, used), used, total, byGpu);
  }

  // Boxed on purpose: an unknown figure stays null (a ternary over double and Double would unbox it and throw).
  private static <T extends Comparable<T>> T max(T a, T b) {
    return a == null ? b : b == null ? a : a.compareTo(b) >= 0 ? a : b;
  }

  /** Average GPU utilization, percent; null when no sample knew it. */
  public Double gpuUtilAvgPct() {
    return gpuUtilCount == 0 ? null : gpuUtilSum / gpuUtilCount;
  }

  /** Average memory (bandwidth) utilization, percent; null when unknown. */
  public Double memUtilAvgPct() {
    return memUtilCount == 0 ? null : memUtilSum / memUtilCount;
  }
}
