package io.stunwatch.processor.readmodel;

import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.json.Schema;
import java.util.Map;

/**
 * What a VM's readings update, in one record per load key ({@link LoadKeys}): the value of {@link StoreNames#VM_LIVE},
 * written once per VM and commit rather than once in each of seven stores.
 *
 * <p>It holds the open part of everything a reading changes: the current load, the newest window of each load store
 * ({@link StoreNames#VM_LOAD_10S}, {@link StoreNames#VM_LOAD_1M}, {@link StoreNames#VM_LOAD_1H},
 * {@link StoreNames#UTILIZATION_DAILY}), the RDMA counters the next rate is taken from, and the newest block of the
 * per-second history ({@link StoreNames#VM_SAMPLES}). A window or block is written to its own store once, when a newer
 * one opens: that store holds the closed ones, and a reader takes the open one from here ({@link LiveReads}).
 *
 * @param current    the latest sample of each GPU, or null before the first
 * @param tenSeconds the newest 10 s window, or null
 * @param minute     the newest 1 min window, or null
 * @param hour       the newest 1 h window, or null
 * @param day        the newest day of the utilization audit, or null
 * @param rdma       the last counters of each RDMA port, by {@code device/port} (only those a rate is taken from), or
 *                   null before the first
 * @param block      the newest block of the per-second history, or null
 */
@Schema(name = "store.vm-live")
public record VmLive(CurrentLoad current, Open<LoadAggregate> tenSeconds, Open<LoadAggregate> minute,
    Open<LoadAggregate> hour, Open<UtilizationDay> day, Map<String, RdmaCounterSample> rdma, VmSamples.Block block) {

  public VmLive {
    rdma = rdma == null ? null : Map.copyOf(rdma);
  }

  /** A VM's state before its first reading. */
  public static final VmLive EMPTY = new VmLive(null, null, null, null, null, null, null);

  /**
   * The open window of one load store.
   *
   * @param start     the window's start, epoch ms
   * @param timestamp the newest sample time folded in, epoch ms (the timestamp a window store keeps with it)
   * @param value     the aggregate
   */
  public record Open<A>(long start, long timestamp, A value) {
  }

  /**
   * The open window of the load store named {@code store} ({@link StoreNames#VM_LOAD_10S}, {@link StoreNames#VM_LOAD_1M}
   * or {@link StoreNames#VM_LOAD_1H}), or null when it has none.
   */
  public Open<LoadAggregate> loadWindow(String store) {
    return switch (store) {
      case StoreNames.VM_LOAD_10S -> tenSeconds;
      case StoreNames.VM_LOAD_1M -> minute;
      case StoreNames.VM_LOAD_1H -> hour;
      default -> throw new IllegalArgumentException("not a load window store: " + store);
    };
  }

  public VmLive withTenSeconds(Open<LoadAggregate> w) {
    return new VmLive(current, w, minute, hour, day, rdma, block);
  }

  public VmLive withMinute(Open<LoadAggregate> w) {
    return new VmLive(current, tenSeconds, w, hour, day, rdma, block);
  }

  public VmLive withHour(Open<LoadAggregate> w) {
    return new VmLive(current, tenSeconds, minute, w, day, rdma, block);
  }

  public VmLive withDay(Open<UtilizationDay> d) {
    return new VmLive(current, tenSeconds, minute, hour, d, rdma, block);
  }

  public VmLive withCurrent(CurrentLoad c) {
    return new VmLive(c, tenSeconds, minute, hour, day, rdma, block);
  }

  public VmLive withRdma(Map<String, RdmaCounterSample> r) {
    return new VmLive(current, tenSeconds, minute, hour, day, r, block);
  }

  public VmLive withBlock(VmSamples.Block b) {
    return new VmLive(current, tenSeconds, minute, hour, day, rdma, b);
  }

  /**
   * The VM id the state holds, from its current load or its RDMA counters; null when it holds neither. Its codec
   * writes it once, not in each sample.
   */
  public String vmId() {
    if (current != null && current.vmId() != null) {
      return current.vmId();
    }
    if (rdma != null) {
      for (RdmaCounterSample s : rdma.values()) {
        return s.vmId();
      }
    }
    return null;
  }
}
