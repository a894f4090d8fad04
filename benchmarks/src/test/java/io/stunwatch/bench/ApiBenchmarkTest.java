package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ApiBenchmarkTest {

  /** wrk 4.1's --latency report, as Debian's wrk prints it. */
  static final String REPORT = """
      Running 30s test @ http://127.0.0.1:41234
        2 threads and 50 connections
        Thread Stats   Avg      Stdev     Max   +/- Stdev
          Latency     4.12ms    2.01ms  48.20ms   88.10%
          Req/Sec     6.11k   512.33     7.20k    71.00%
        Latency Distribution
           50%  635.91us
           75%    3.85ms
           90%    5.92ms
           99%    1.02s
        364712 requests in 30.00s, 61.21MB read
      Requests/sec:  12155.84
      Transfer/sec:      2.04MB
      """;

  @Test
  void readsWrksLatencyPercentilesInMillisecondsWhateverTheirUnit() {
    assertThat(ApiBenchmark.millis(REPORT, "50")).isEqualTo(0.63591);
    assertThat(ApiBenchmark.millis(REPORT, "75")).isEqualTo(3.85);
    assertThat(ApiBenchmark.millis(REPORT, "99")).isEqualTo(1020.0);
  }

  @Test
  void aReportWithoutTheDistributionIsAnErrorNotAZero() {
    assertThatThrownBy(() -> ApiBenchmark.millis("Running 30s test\n", "99")).hasMessageContaining("no 99% line");
  }
}
