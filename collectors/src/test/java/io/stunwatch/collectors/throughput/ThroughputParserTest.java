package io.stunwatch.collectors.throughput;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.ThroughputSample.ThroughputScope;
import java.time.Instant;
import java.time.ZoneId;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ThroughputParserTest {

  private static final Instant READ = Instant.parse("2026-11-21T12:00:00Z");
  private final ThroughputParser parser = new ThroughputParser(null, "images/sec", ZoneId.of("Europe/Berlin"));

  @Test
  void tfCnnBenchmarksStepLine() {
    var f = parser.parse("10\timages/sec: 245.3 +/- 0.0 (jitter = 0.0)\t7.582", READ).orElseThrow();
    assertThat(f.scope()).isEqualTo(ThroughputScope.STEP);
    assertThat(f.value()).isEqualTo(245.3);
    assertThat(f.timestamp()).isEqualTo(READ);
  }

  @Test
  void horovodTotalLineIsTheJobTotalNotAStep() {
    var f = parser.parse("total images/sec: 1953.42", READ).orElseThrow();
    assertThat(f.scope()).isEqualTo(ThroughputScope.TOTAL);
    assertThat(f.value()).isEqualTo(1953.42);
  }

  @Test
  void horovodsOwnBenchmarkLinesArePerGpuStepsAndTheJobsTotal() {
    // horovod/examples/*/pytorch_synthetic_benchmark.py and tensorflow2_synthetic_benchmark.py
    var iter = parser.parse("Iter #3: 312.4 img/sec per GPU", READ).orElseThrow();
    assertThat(iter.scope()).isEqualTo(ThroughputScope.STEP);
    assertThat(iter.value()).isEqualTo(312.4);
    var perGpu = parser.parse("Img/sec per GPU: 310.9 +-4.2", READ).orElseThrow();
    assertThat(perGpu.scope()).isEqualTo(ThroughputScope.STEP);
    assertThat(perGpu.value()).isEqualTo(310.9);
    var total = parser.parse("Total img/sec on 8 GPU(s): 2487.2 +-33.6", READ).orElseThrow();
    assertThat(total.scope()).isEqualTo(ThroughputScope.TOTAL);
    assertThat(total.value()).isEqualTo(2487.2);
  }

  @Test
  void aLeadingTimestampIsUsed() {
    assertThat(parser.parse("2026-11-21T11:59:58.500Z images/sec: 10.0 +/- 0.1", READ).orElseThrow().timestamp())
        .isEqualTo(Instant.parse("2026-11-21T11:59:58.500Z"));
    assertThat(parser.parse("2026-11-21 12:59:58,250 INFO images/sec: 10.0 +/- 0.1", READ).orElseThrow()
        .timestamp()).as("local time in the configured zone").isEqualTo(Instant.parse("2026-11-21T11:59:58.250Z"));
  }

  @Test
  void otherLinesFindNothing() {
    assertThat(parser.parse("Step\tImg/sec\ttotal_loss", READ)).isEmpty();
    assertThat(parser.parse("images/sec: lots", READ)).isEmpty();
  }

  @Test
  void aConfiguredPatternNeedsAValueGroupAndWinsOverTheBuiltIns() {
    ThroughputParser custom = new ThroughputParser(Pattern.compile("tokens/s=(?<value>\\d+)"), "tokens/s",
        ZoneId.of("UTC"));
    assertThat(custom.parse("step 5 tokens/s=8123", READ).orElseThrow().value()).isEqualTo(8123.0);
    assertThatThrownBy(() -> new ThroughputParser(Pattern.compile("x=(\\d+)"), "u", ZoneId.of("UTC")))
        .hasMessageContaining("named group 'value'");
  }
}
