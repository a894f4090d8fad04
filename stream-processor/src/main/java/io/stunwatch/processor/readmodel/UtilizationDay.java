package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.json.Schema;
import java.util.Map;

/**
 * One VM's GPU time of one UTC day, split into busy, idle and unknown, and by the host it ran on. State-store value
 * of {@link StoreNames#UTILIZATION_DAILY}; the fleet audit sums it per VM or per host.
 *
 * <p>Each sample accounts for the time since the previous sample of the same GPU: a GPU sampled every second
 * adds one GPU-second per sample. A gap longer than {@code maxGapSeconds} is not guessed at: it is left out, as
 * is the time before a GPU's first sample of the day. A sample older than its GPU's latest (late data within the
 * grace) adds nothing, since the interval it closes was already counted.
 *
 * @param byHost     GPU-seconds by host name ({@value #UNRESOLVED_HOST} while the inventory does not know the VM)
 * @param lastByGpu  epoch millis of each GPU's latest sample (a host's reading: of each vGPU on that host)
 */
@Schema(name = "store.utilization-day")
public record UtilizationDay(Map<String, Seconds> byHost, Map<String, Long> lastByGpu) {

  /** The host key of time spent while the inventory did not place the VM. */
  public static final String UNRESOLVED_HOST = "(unresolved)";

  public UtilizationDay {
    byHost = byHost == null ? Map.of() : Map.copyOf(byHost);
    lastByGpu = lastByGpu == null ? Map.of() : Map.copyOf(lastByGpu);
  }

  /**
   * GPU-seconds by state.
   *
   * @param busy    utilization at or above the idle threshold
   * @param idle    utilization below it
   * @param unknown utilization not readable ({@code [N/A]})
   */
  public record Seconds(double busy, double idle, double unknown) {
    static final Seconds ZERO = new Seconds(0, 0, 0);

    Seconds plus(Seconds o) {
      return new Seconds(busy + o.busy, idle + o.idle, unknown + o.unknown);
    }

    /** All GPU-seconds seen. */
    public double total() {
      return busy + idle + unknown;
    }
  }

  public static UtilizationDay empty() {
    return new UtilizationDay(Map.of(), Map.of());
  }

  /** This day with {@code s}, taken on {@code host}, accounted for. */
  public UtilizationDay with(GpuSample s, String host, double idleBelowPct, long maxGapSeconds) {
    // A host's reading is of a vGPU on that host: the VM's vGPU read by the host it left and by the one it moved to
    // are two series, each in order, whichever is read first.
    String gpu = s.loadSource() == LoadSource.HOST ? s.hostname() + "|" + s.gpuKey() : s.gpuKey();
    long at = s.timestamp().toEpochMilli();
    Long last = lastByGpu.get(gpu);
    if (last != null && at <= last) {
      return this;
    }
    Map<String, Long> lasts = Maps.with(lastByGpu, gpu, at);
    double seconds = last == null ? 0 : (at - last) / 1000.0;
    if (seconds <= 0 || seconds > maxGapSeconds) {
      return new UtilizationDay(byHost, lasts);
    }
    Double u = s.utilizationGpuPct();
    Seconds add = u == null ? new Seconds(0, 0, seconds)
        : u < idleBelowPct ? new Seconds(0, seconds, 0) : new Seconds(seconds, 0, 0);
    String on = host == null ? UNRESOLVED_HOST : host;
    Seconds before = byHost.get(on);
    return new UtilizationDay(Maps.with(byHost, on, before == null ? add : before.plus(add)), lasts);
  }

  /** The day's GPU-seconds on every host together. */
  public Seconds total() {
    return byHost.values().stream().reduce(Seconds.ZERO, Seconds::plus);
  }
}
