package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.json.Schema;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A VM's latest GPU sample of each of its GPUs, and where it runs: a part of its live state ({@link VmLive}), and the
 * value of the store that held it before, {@link StoreNames#VM_LOAD_CURRENT}.
 *
 * @param vmId        the VM id (SMBIOS UUID)
 * @param byGpu       the latest sample of each GPU, by GPU UUID (or {@code index:N})
 * @param host        the ESXi host the inventory places the VM on; null while the inventory does not know the VM
 * @param vmName      its name in the inventory, or null
 * @param inInventory whether the inventory knew the VM at its latest sample
 */
@Schema(name = "store.vm-load-current")
public record CurrentLoad(String vmId, Map<String, GpuSample> byGpu, String host, String vmName,
    boolean inInventory) {

  public CurrentLoad {
    byGpu = byGpu == null ? Map.of() : Map.copyOf(byGpu);
  }

  /** A GPU not read for this long before a newer GPU of the VM appears is gone: the VM moved, or lost it. */
  public static final Duration GONE_AFTER = Duration.ofMinutes(10);

  /**
   * This load with {@code s}; a sample older than the one held for its GPU leaves it unchanged. A GPU seen for the
   * first time drops those not read for {@link #GONE_AFTER} before it (a vGPU is a new instance on the destination
   * host), so that the VM's framebuffer is not summed over GPUs it no longer has.
   */
  public CurrentLoad with(GpuSample s, VmPlacement vm) {
    String gpu = s.gpuKey();
    GpuSample held = byGpu.get(gpu);
    if (held != null && !s.timestamp().isAfter(held.timestamp())) {
      return this;
    }
    Map<String, GpuSample> next = Maps.with(byGpu, gpu, s);
    if (held == null && next.size() > 1) {
      Instant cutoff = s.timestamp().minus(GONE_AFTER);
      Map<String, GpuSample> kept = new HashMap<>(next);
      kept.values().removeIf(g -> g.timestamp().isBefore(cutoff));
      next = kept;
    }
    return new CurrentLoad(s.vmId(), next, vm == null ? host : vm.host(), vm == null ? vmName : vm.name(),
        vm != null);
  }

  /** The time of the newest sample. */
  public Instant latest() {
    return byGpu.values().stream().map(GpuSample::timestamp).max(Instant::compareTo).orElse(null);
  }

  /** The vGPU profile of the VM's first GPU that has one. */
  public VgpuProfile vgpuProfile() {
    return byGpu.values().stream().map(GpuSample::vgpuProfile).filter(p -> p != null).findFirst().orElse(null);
  }

  /** The latest framebuffer use of all GPUs together, MiB; null when any GPU's is unknown. */
  public Long fbUsedMiB() {
    return sumOfGpus(GpuSample::memoryUsedMiB);
  }

  /** The framebuffer size of all GPUs together, MiB; null when any GPU's is unknown. */
  public Long fbTotalMiB() {
    return sumOfGpus(GpuSample::memoryTotalMiB);
  }

  /** The mean latest utilization of the GPUs that know theirs, percent; null when none does. */
  public Double gpuUtilizationAvgPct() {
    double sum = 0;
    int n = 0;
    for (GpuSample s : byGpu.values()) {
      if (s.utilizationGpuPct() != null) {
        sum += s.utilizationGpuPct();
        n++;
      }
    }
    return n == 0 ? null : sum / n;
  }

  private Long sumOfGpus(Function<GpuSample, Long> figure) {
    long sum = 0;
    for (GpuSample s : byGpu.values()) {
      Long v = figure.apply(s);
      if (v == null) {
        return null; // one GPU unknown makes the VM's figure unknown, not smaller
      }
      sum += v;
    }
    return byGpu.isEmpty() ? null : sum;
  }
}
