package io.stunwatch.processor.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.RdmaCounterSample;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class RdmaRatesTest {

  static final Instant T = Instant.parse("2026-11-21T12:00:00Z");

  static RdmaCounterSample sample(Instant t, Map<String, CounterReading> counters) {
    return new RdmaCounterSample("00000000-0000-0000-0000-000000000001", "g", t, "mlx5_0", 1, "Ethernet", counters,
        null, null);
  }

  public static Map<String, CounterReading> words(long tx, long rx) {
    return Map.of("port_xmit_data", CounterReading.valid(tx), "port_rcv_data", CounterReading.valid(rx));
  }

  @Test
  void rateCountsFourOctetWordsBothWays() {
    Double r = RdmaRates.bytesPerSecond(sample(T, words(1000, 2000)), sample(T.plusSeconds(2), words(3000, 6000)));
    assertThat(r).isEqualTo((2000 + 4000) * 4 / 2.0);
  }

  @Test
  void anExtendedWidthCounterPast32BitsGivesItsRate() {
    // mlx5's counters/port_xmit_data as in the shared fixture, then 1 Gbit/s (31.25 M words) a second later
    long tx = 2_880_761_508_848L;
    Double r = RdmaRates.bytesPerSecond(sample(T, words(tx, 0)), sample(T.plusSeconds(1), words(tx + 31_250_000L, 0)));
    assertThat(r).isEqualTo(125.0e6);
  }

  @Test
  void the64BitCountersArePreferred() {
    Map<String, CounterReading> a = new HashMap<>(words(0, 0));
    a.put("port_xmit_data_64", CounterReading.valid(10_000_000_000L));
    a.put("port_rcv_data_64", CounterReading.valid(0));
    Map<String, CounterReading> b = new HashMap<>(words(0, 0));
    b.put("port_xmit_data_64", CounterReading.valid(10_250_000_000L));
    b.put("port_rcv_data_64", CounterReading.valid(0));
    assertThat(RdmaRates.bytesPerSecond(sample(T, a), sample(T.plusSeconds(1), b))).isEqualTo(1.0e9);
  }

  @Test
  void aResetASaturatedOrAnUnavailableCounterGivesNoRateNeverANegativeOne() {
    RdmaCounterSample before = sample(T, words(5000, 5000));
    assertThat(RdmaRates.bytesPerSecond(before, sample(T.plusSeconds(1), words(10, 6000)))).as("reset").isNull();
    assertThat(RdmaRates.bytesPerSecond(before, sample(T.plusSeconds(1), Map.of(
        "port_xmit_data", CounterReading.saturated(4294967295L, "latched"),
        "port_rcv_data", CounterReading.valid(6000))))).as("saturated").isNull();
    assertThat(RdmaRates.bytesPerSecond(before, sample(T.plusSeconds(1), Map.of(
        "port_xmit_data", CounterReading.unavailable("N/A (no PMA)"),
        "port_rcv_data", CounterReading.valid(6000))))).as("unavailable").isNull();
    assertThat(RdmaRates.bytesPerSecond(before, sample(T, words(6000, 6000)))).as("no time step").isNull();
    assertThat(RdmaRates.bytesPerSecond(null, before)).as("first sample").isNull();
  }
}
