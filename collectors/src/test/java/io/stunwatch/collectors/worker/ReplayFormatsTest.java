package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiReplay;
import io.stunwatch.collectors.rdma.RdmaListing;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.RdmaCounterSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each real-world form of a worker's recording, read through the replay path, or refused with its advice. */
class ReplayFormatsTest {

  static final ZoneId UTC = ZoneOffset.UTC;
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T00:00:00Z"), UTC);

  @TempDir
  Path dir;

  final RecordingSink sink = new RecordingSink();
  final CollectorMetrics metrics = new CollectorMetrics(new SimpleMeterRegistry(), CLOCK);
  final Inputs inputs = new Inputs(new WorkerIdentity("4c4c4544-0042-3510-8052-b4c04f4e3232", "train-01"), sink,
      metrics, CLOCK);

  static Path file(String name) {
    return ReplayKindTest.replay(name);
  }

  private long skipped() {
    long n = 0;
    for (CollectorInput i : CollectorInput.values()) {
      n += metrics.parseErrorCount(i);
    }
    return n;
  }

  @Test
  void aCsvsPreambleIsSkippedAndCountedUpToItsHeader() throws Exception {
    NvidiaSmiReplay.csv(file("csv-preamble.csv"), UTC, inputs, Optional.empty());
    List<GpuSample> s = sink.values(GpuSample.class);
    assertThat(s).extracting(GpuSample::utilizationGpuPct).containsExactly(88.0, 87.0);
    assertThat(s.get(0).timestamp()).isEqualTo(Instant.parse("2026-11-30T14:05:12.100Z"));
    assertThat(skipped()).isEqualTo(2);
    InputParseException first = inputs.takeFirstError();
    assertThat(first.line()).isEqualTo(1);
    assertThat(first.reason()).startsWith("before the CSV header (line 3)");
  }

  @Test
  void aHeaderlessCsvIsReadWithTheColumnsGivenOrTheCollectorsOwnQueryElseRefused() throws Exception {
    assertThatThrownBy(() -> NvidiaSmiReplay.csv(file("csv-noheader.csv"), UTC, inputs, Optional.empty()))
        .isInstanceOf(ReplayRefusedException.class).hasMessageStartingWith("nvidia-smi CSV with no header line")
        .hasMessageContaining("--columns");
    assertThat(sink.published()).isEmpty();
    NvidiaSmiReplay.csv(file("csv-noheader.csv"), UTC, inputs,
        Optional.of(List.of("timestamp", "name", "utilization.gpu", "memory.used")));
    assertThat(sink.values(GpuSample.class)).extracting(GpuSample::utilizationGpuPct).containsExactly(88.0, 87.0,
        86.0);
    assertThat(sink.values(GpuSample.class)).extracting(GpuSample::gpuIndex).containsOnly(0);
    assertThat(skipped()).isZero();
    NvidiaSmiReplay.csv(file("csv-noheader-own-query.csv"), UTC, inputs, Optional.empty());
    assertThat(sink.values(GpuSample.class)).hasSize(5);
    assertThat(sink.values(GpuSample.class).get(3).powerDrawW()).as("[N/A]").isNull();
    assertThat(skipped()).isZero();
  }

  @Test
  void withNoIndexColumnEachGpuIsToldByItsUuid() throws Exception {
    NvidiaSmiReplay.csv(file("csv-no-index-two-gpus.csv"), UTC, inputs, Optional.empty());
    assertThat(sink.values(GpuSample.class)).extracting(GpuSample::gpuIndex).containsExactly(0, 1, 1);
    assertThat(skipped()).isZero();
  }

  @Test
  void qTextGivesASnapshotPerReading() throws Exception {
    NvidiaSmiReplay.text(file("q-pass-through-375-loop.txt"), UTC, inputs);
    assertThat(sink.values(GpuSnapshot.class)).hasSize(2);
    assertThat(skipped()).isZero();
    assertThat(NvidiaSmiReplay.hostQuery(file("q-vgpu-guest-470.txt"))).isFalse();
    assertThat(NvidiaSmiReplay.hostQuery(file("q-host-esxi.txt"))).isTrue();
  }

  @Test
  void aBugReportGivesItsQuerySectionsPlainOrGzippedAndOneWithoutIsRefused() throws Exception {
    NvidiaSmiReplay.bugReport(file("nvidia-bug-report.log"), UTC, inputs);
    Path gz = dir.resolve("nvidia-bug-report.log.gz");
    try (var out = new GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(file("nvidia-bug-report.log")));
    }
    NvidiaSmiReplay.bugReport(gz, UTC, inputs);
    List<GpuSnapshot> s = sink.values(GpuSnapshot.class);
    assertThat(s).hasSize(2).allSatisfy(x -> {
      assertThat(x.timestamp()).isEqualTo(Instant.parse("2026-11-30T14:05:12Z"));
      assertThat(x.gpus().get(0).fbUsedMiB()).isEqualTo(15021L);
    });
    assertThat(skipped()).as("the --unit section is no reading, and no error").isZero();
    assertThatThrownBy(() -> NvidiaSmiReplay.bugReport(file("nvidia-bug-report-no-smi.log"), UTC, inputs))
        .isInstanceOf(ReplayRefusedException.class).hasMessageContaining("no nvidia-smi -q output");
  }

  @Test
  void anRdmaListingReadsAsTheTreeItCameFromWithUnknownsKeptUnknown() throws Exception {
    RdmaListing.replay(file("rdma-listing.txt"), inputs);
    List<RdmaCounterSample> s = sink.values(RdmaCounterSample.class);
    assertThat(s).extracting(RdmaCounterSample::device).containsExactly("i40iw0", "mlx5_0");
    RdmaCounterSample iwarp = s.get(0);
    assertThat(iwarp.unavailableReason()).contains("N/A (no PMA)");
    assertThat(iwarp.counters().get("port_xmit_data").state()).isEqualTo(CounterState.UNAVAILABLE);
    RdmaCounterSample mlx = s.get(1);
    assertThat(mlx.linkLayer()).isEqualTo("Ethernet");
    assertThat(mlx.counters().get("port_xmit_data").state()).as("32-bit PMA at all ones")
        .isEqualTo(CounterState.SATURATED);
    assertThat(mlx.counters().get("port_rcv_data").value()).isEqualTo(123456L);
    assertThat(mlx.hwCounters().get("out_of_sequence").value()).isEqualTo(7L);
    // grep's own complaint is no counter: counted, named by line
    assertThat(skipped()).isEqualTo(1);
    assertThat(inputs.takeFirstError().line()).isEqualTo(7);
  }
}
