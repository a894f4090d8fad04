package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.GpuSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The real nvidia-smi of an H100 (driver 580.159.04, src/test/resources/nvidiasmi/h100-driver-580), read through the
 * collector's own parsers: the field list it learns from the driver, the streaming child's lines, the recorded CSV
 * with header and units, and the XML snapshot agree on the GPU.
 */
class NvidiaSmiH100FixtureTest {

  static final Path DIR = Path.of("src/test/resources/nvidiasmi/h100-driver-580");
  static final String UUID = "GPU-1205ae22-a668-781c-034e-3b2594ae0472";

  @Test
  void theDriversHelpGivesEveryFieldTheCollectorWants() throws Exception {
    NvidiaSmiQuery q = NvidiaSmiQuery.fromHelp(Files.readString(DIR.resolve("help-query-gpu.txt")));
    assertThat(q.fields()).containsExactly(GpuField.values());
    assertThat(q.missing()).isEmpty();
    // the query the capture ran is the one the collector builds from that help
    assertThat(Files.readString(DIR.resolve("README.md"))).contains("--query-gpu=" + q.queryArgument() + " ");
  }

  @Test
  void everyStreamedLineIsASampleOfTheOneGpuWithItsMeasuredZeroesKeptAsZero() throws Exception {
    NvidiaSmiCsvParser live = NvidiaSmiCsvParser.forQuery(
        NvidiaSmiQuery.fromHelp(Files.readString(DIR.resolve("help-query-gpu.txt"))), ZoneOffset.UTC,
        NvidiaSmiCsvParserTest.ID, NvidiaSmiCsvParserTest.CLOCK);
    List<String> lines = Files.readAllLines(DIR.resolve("query-gpu-stream.csv"));
    assertThat(lines).hasSizeGreaterThanOrEqualTo(9);
    Instant previous = null;
    for (int i = 0; i < lines.size(); i++) {
      GpuSample s = live.parse(lines.get(i), i + 1);
      assertThat(s.gpuUuid()).isEqualTo(UUID);
      assertThat(s.name()).isEqualTo("NVIDIA H100 80GB HBM3");
      assertThat(s.memoryTotalMiB()).isEqualTo(81559L);
      // an idle GPU reads 0 %: a measured zero, not an unknown
      assertThat(s.utilizationGpuPct()).isEqualTo(0.0);
      assertThat(s.memoryUsedMiB()).isEqualTo(0L);
      assertThat(s.powerDrawW()).isBetween(50.0, 700.0);
      assertThat(s.pstate()).isEqualTo("P0");
      assertThat(s.vgpuProfile()).as("a physical GPU has no vGPU profile").isNull();
      if (previous != null) {
        assertThat(s.timestamp()).isAfter(previous);
      }
      previous = s.timestamp();
    }
  }

  @Test
  void theRecordedCsvAndTheXmlSnapshotDescribeTheSameGpu() throws Exception {
    List<String> csv = Files.readAllLines(DIR.resolve("query-gpu.csv"));
    NvidiaSmiCsvParser replay = NvidiaSmiCsvParser.forHeader(csv.get(0), ZoneOffset.UTC,
        NvidiaSmiCsvParserTest.ID, NvidiaSmiCsvParserTest.CLOCK, "query-gpu.csv");
    GpuSample sample = replay.parse(csv.get(1), 2);
    GpuSnapshot snapshot = new NvidiaSmiXmlParser(ZoneOffset.UTC, NvidiaSmiCsvParserTest.ID,
        NvidiaSmiCsvParserTest.CLOCK).parse(Files.readAllBytes(DIR.resolve("q-x.xml")), "q-x.xml");
    assertThat(snapshot.driverVersion()).isEqualTo("580.159.04");
    assertThat(snapshot.cudaVersion()).isEqualTo("13.0");
    assertThat(snapshot.gpus()).singleElement().satisfies(g -> {
      assertThat(g.uuid()).isEqualTo(sample.gpuUuid());
      assertThat(g.productName()).isEqualTo(sample.name());
      assertThat(g.fbTotalMiB()).isEqualTo(sample.memoryTotalMiB());
      assertThat(g.pciBusId()).isEqualTo(sample.pciBusId());
      assertThat(g.migMode()).isEqualTo("Disabled");
    });
  }
}
