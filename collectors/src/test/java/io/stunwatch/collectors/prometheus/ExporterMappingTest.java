package io.stunwatch.collectors.prometheus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.ExporterGpuSample;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExporterMappingTest {

  private static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");

  private static String page(String name) throws IOException {
    try (InputStream in = ExporterMappingTest.class.getResourceAsStream("/prometheus/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<ExporterGpuSample> map(String text, ScrapeTarget target, String vmLabel,
      List<InputParseException> errors) {
    ExpositionParser.Page p = new ExpositionParser().parse(text, target.source(), false);
    assertThat(p.errors()).isEmpty();
    return new ExporterMapping(vmLabel, "Hostname").map(p, target, AT, errors::add);
  }

  @Test
  void dcgmExporterGivesAGpuAndEachMigInstanceByTheGuestsHostName() throws IOException {
    List<InputParseException> errors = new ArrayList<>();
    List<ExporterGpuSample> s = map(page("dcgm-exporter-mig.txt"),
        ScrapeTarget.parse("http://10.0.0.7:9400/metrics"), null, errors);
    assertThat(errors).isEmpty();
    assertThat(s).as("GPU 0 and two MIG instances; GPU 1 is counted by its instances, not as a whole too")
        .hasSize(3);
    ExporterGpuSample gpu0 = s.get(0);
    assertThat(gpu0.exporter()).isEqualTo(ExporterMapping.DCGM);
    assertThat(gpu0.key()).as("the Hostname label, for the inventory's guest.hostName").isEqualTo("guest:trainer-3");
    assertThat(gpu0.gpuIndex()).isZero();
    assertThat(gpu0.gpuUuid()).isEqualTo("GPU-5a3e2f1c-8b4d-4e6f-9a0b-1c2d3e4f5a6b");
    assertThat(gpu0.name()).isEqualTo("NVIDIA A100-SXM4-40GB");
    assertThat(gpu0.migInstanceId()).isNull();
    assertThat(gpu0.utilizationGpuPct()).isEqualTo(97.0);
    assertThat(gpu0.utilizationMemoryPct()).isEqualTo(41.0);
    assertThat(gpu0.memoryUsedMiB()).isEqualTo(39936L);
    assertThat(gpu0.memoryTotalMiB()).as("used plus free").isEqualTo(40960L);
    assertThat(gpu0.timestamp()).as("scraped at").isEqualTo(AT);
    ExporterGpuSample mig1 = s.get(1);
    assertThat(mig1.gpuIndex()).isEqualTo(1);
    assertThat(mig1.migInstanceId()).isEqualTo(1);
    assertThat(mig1.utilizationGpuPct()).as("the engine's active ratio, in percent").isEqualTo(81.25);
    assertThat(mig1.memoryUsedMiB()).isEqualTo(14592L);
    assertThat(mig1.memoryTotalMiB()).isEqualTo(19456L);
    assertThat(s.get(2).migInstanceId()).isEqualTo(2);
    assertThat(s.get(2).utilizationGpuPct()).isEqualTo(0.0);
  }

  @Test
  void nvidiaGpuExporterGivesBytesAsMibRatiosAsPercentAndTheTargetsMappedVm() throws IOException {
    List<InputParseException> errors = new ArrayList<>();
    List<ExporterGpuSample> s = map(page("nvidia-gpu-exporter.txt"),
        ScrapeTarget.parse("train-01=http://10.0.0.5:9835/metrics"), null, errors);
    assertThat(errors).isEmpty();
    ExporterGpuSample g = s.get(0);
    assertThat(s).hasSize(1);
    assertThat(g.exporter()).isEqualTo(ExporterMapping.NVIDIA_GPU_EXPORTER);
    assertThat(g.key()).as("the VM the target is mapped to, by name").isEqualTo("name:train-01");
    assertThat(g.name()).isEqualTo("GRID T4-16C");
    assertThat(g.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(g.utilizationMemoryPct()).isEqualTo(41.0);
    assertThat(g.memoryUsedMiB()).isEqualTo(15360L);
    assertThat(g.memoryTotalMiB()).as("the exporter's total").isEqualTo(16384L);
    assertThat(g.guestHostName()).as("the URL's host, kept beside the mapping").isEqualTo("10.0.0.5");
  }

  @Test
  void aVmLabelWithAUuidGivesTheVmIdAndAnOutOfRangeFigureIsAnErrorNotASample() {
    String text = """
        DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",vm="4C4C4544-0042-3510-8052-B4C04F4E3232"} 55 1764237600000
        DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-a",vm="4C4C4544-0042-3510-8052-B4C04F4E3232"} 56 1764237605000
        DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-b",vm="4C4C4544-0042-3510-8052-B4C04F4E3232"} 140 1764237600000
        """;
    List<InputParseException> errors = new ArrayList<>();
    List<ExporterGpuSample> s = map(text, new ScrapeTarget(null, "dump.prom"), "vm", errors);
    assertThat(s).extracting(ExporterGpuSample::key).containsOnly("4c4c4544-0042-3510-8052-b4c04f4e3232");
    assertThat(s).extracting(ExporterGpuSample::timestamp).as("each at its own timestamp")
        .containsExactly(Instant.ofEpochMilli(1764237600000L), Instant.ofEpochMilli(1764237605000L));
    assertThat(errors).singleElement().satisfies(e -> assertThat(e.getMessage())
        .isEqualTo("dump.prom:3: GPU GPU-b: utilizationGpuPct must be in [0.0, 100.0] or absent, was 140.0"));
  }

  @Test
  void aTargetIsAnHttpUrlOptionallyMappedToAVm() {
    assertThat(ScrapeTarget.parse("http://h:9400/metrics")).isEqualTo(new ScrapeTarget(null,
        "http://h:9400/metrics"));
    assertThat(ScrapeTarget.parse(" train-01 = http://h/m ")).isEqualTo(new ScrapeTarget("train-01", "http://h/m"));
    assertThat(ScrapeTarget.parse("http://h/m?x=1").vm()).as("an = after the scheme is the URL's").isNull();
    assertThat(ScrapeTarget.parse("http://scraper:s3cret@h:9400/metrics?x=1").redacted())
        .as("credentials never reach a log or a sample").isEqualTo("http://h:9400/metrics?x=1");
    assertThatThrownBy(() -> ScrapeTarget.parse("ftp://h/x"))
        .hasMessage("'ftp://h/x' is not an http(s) URL with a host");
  }

  @Test
  void aWellFormedPageWithNoGpuFamilyIsNamedNotReadAsAnIdleFleet() throws IOException {
    String nodeExporter = "# TYPE node_load1 gauge\nnode_load1 0.5\n# TYPE node_cpu_seconds_total counter\n"
        + "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1234.5\n"
        + "DCGM_FI_DEV_NEWER_FIELD{gpu=\"0\",UUID=\"GPU-1\"} 7\n";
    ExpositionParser.Page p = new ExpositionParser().parse(nodeExporter, "node", false);
    List<InputParseException> errors = new ArrayList<>();
    List<ExporterGpuSample> s = new ExporterMapping(null, "Hostname").map(p, ScrapeTarget.parse("http://n:9100/m"),
        AT, errors::add);
    assertThat(s).isEmpty();
    assertThat(ExporterMapping.noGpuFamilies(p, s.size())).isEqualTo("none of the GPU families read "
        + "(DCGM_FI_DEV_*, DCGM_FI_PROF_*, nvidia_smi_*) among its 3 families: DCGM_FI_DEV_NEWER_FIELD, "
        + "node_cpu_seconds_total, node_load1");
    ExpositionParser.Page gpu = new ExpositionParser().parse(page("nvidia-gpu-exporter.txt"), "x", false);
    assertThat(ExporterMapping.noGpuFamilies(gpu, 1)).isNull();
  }
}
