package io.stunwatch.processor.domain;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.processor.readmodel.Maps;
import io.stunwatch.processor.readmodel.StoreNames;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * RDMA rates from raw cumulative port counters. {@code port_xmit_data} and {@code port_rcv_data} count 4-octet
 * words; the 64-bit {@code *_64} counters are preferred when the port has them. A rate exists only between two
 * VALID readings of both counters, a positive time step and no decrease: a reset, a saturated (latched) or an
 * unavailable counter gives "no rate for this interval", never a negative value or a spike.
 */
public final class RdmaRates {

  private RdmaRates() {
  }

  private static final String XMIT = "port_xmit_data";
  private static final String XMIT_64 = XMIT + "_64";
  private static final String RCV = "port_rcv_data";
  private static final String RCV_64 = RCV + "_64";

  /** The counters a rate is computed from; the only ones {@link Last} keeps. */
  static final Set<String> RATE_COUNTERS = Set.of(XMIT, XMIT_64, RCV, RCV_64);

  /**
   * The previous sample of each port of a VM, with only its {@link #RATE_COUNTERS}: a port has dozens of hardware
   * counters, and this is written on every RDMA sample. State-store value of {@link StoreNames#RDMA_LAST}.
   *
   * @param ports by {@code device/port}
   */
  public record Last(Map<String, RdmaCounterSample> ports) {
    public Last {
      ports = Map.copyOf(ports == null ? Map.of() : ports);
    }

    public Last with(RdmaCounterSample s) {
      Map<String, CounterReading> kept = new HashMap<>();
      for (String name : RATE_COUNTERS) {
        CounterReading reading = s.counters().get(name);
        if (reading != null) {
          kept.put(name, reading);
        }
      }
      return new Last(Maps.with(ports, portKey(s), new RdmaCounterSample(s.vmId(), s.hostname(), s.timestamp(),
          s.device(), s.port(), s.linkLayer(), kept, Map.of(), s.unavailableReason())));
    }
  }

  public static String portKey(RdmaCounterSample s) {
    return s.device() + "/" + s.port();
  }

  /** Bytes per second (transmit plus receive) between two samples of one port, or null when there is no rate. */
  public static Double bytesPerSecond(RdmaCounterSample prev, RdmaCounterSample now) {
    if (prev == null) {
      return null;
    }
    double seconds = (now.timestamp().toEpochMilli() - prev.timestamp().toEpochMilli()) / 1000.0;
    if (seconds <= 0) {
      return null;
    }
    Long tx = delta(prev, now, XMIT_64, XMIT);
    Long rx = delta(prev, now, RCV_64, RCV);
    if (tx == null || rx == null) {
      return null;
    }
    return (tx + rx) * 4.0 / seconds;
  }

  private static Long delta(RdmaCounterSample prev, RdmaCounterSample now, String wide, String narrow) {
    Long d = delta(prev.counters().get(wide), now.counters().get(wide));
    return d != null ? d : delta(prev.counters().get(narrow), now.counters().get(narrow));
  }

  private static Long delta(CounterReading a, CounterReading b) {
    if (a == null || b == null || a.state() != CounterState.VALID || b.state() != CounterState.VALID) {
      return null;
    }
    long d = b.value() - a.value();
    return d < 0 ? null : d; // a reset (driver reload, port reset): no rate for this interval
  }
}
