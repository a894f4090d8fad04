package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.GpuSnapshot;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiXmlParserTest {

  private final NvidiaSmiXmlParser parser = new NvidiaSmiXmlParser(NvidiaSmiCsvParserTest.BERLIN,
      NvidiaSmiCsvParserTest.ID, NvidiaSmiCsvParserTest.CLOCK);

  @TempDir
  Path dir;

  @Test
  void aVgpuGuestSnapshotHasItsModeProcessesAndProfile() throws Exception {
    GpuSnapshot s = parser.parse(Files.readAllBytes(Path.of("src/test/resources/nvidiasmi/vgpu-guest-v12.xml")),
        "vgpu-guest-v12.xml");
    assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-11-21T12:02:20Z"));
    assertThat(s.driverVersion()).isEqualTo("535.129.03");
    GpuSnapshot.Gpu gpu = s.gpus().get(0);
    assertThat(gpu.pciBusId()).isEqualTo("00000000:02:00.0");
    assertThat(gpu.virtualizationMode()).isEqualTo("VGPU");
    assertThat(gpu.hostVgpuMode()).isNull();
    assertThat(gpu.migMode()).isNull();
    assertThat(gpu.migDevices()).isEmpty();
    assertThat(gpu.fbUsedMiB()).isEqualTo(15360L);
    assertThat(gpu.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(gpu.vgpuProfile().name()).isEqualTo("T4-16C");
    assertThat(gpu.processes()).singleElement().satisfies(p -> {
      assertThat(p.pid()).isEqualTo(4242L);
      assertThat(p.type()).isEqualTo("C");
      assertThat(p.usedMemoryMiB()).isEqualTo(15300L);
      assertThat(p.gpuInstanceId()).isNull();
    });
  }

  @Test
  void anExternalEntityIsNeverResolved() throws Exception {
    Path secret = dir.resolve("secret.txt");
    Files.writeString(secret, "TOP-SECRET-CONTENT");
    String xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY xxe SYSTEM \"" + secret.toUri()
        + "\">]>\n<nvidia_smi_log><driver_version>&xxe;</driver_version></nvidia_smi_log>";
    try {
      GpuSnapshot s = parser.parse(xml.getBytes(StandardCharsets.UTF_8), "xxe.xml");
      assertThat(String.valueOf(s.driverVersion())).doesNotContain("TOP-SECRET");
    } catch (InputParseException e) {
      assertThat(e.getMessage()).doesNotContain("TOP-SECRET");
    }
  }

  @Test
  void anExternalDtdIsNotFetched() throws Exception {
    Path dtd = dir.resolve("evil.dtd");
    Files.writeString(dtd, "<!ENTITY leak \"FROM-EXTERNAL-DTD\">");
    String xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"" + dtd.toUri() + "\">\n"
        + "<nvidia_smi_log><driver_version>1</driver_version></nvidia_smi_log>";
    assertThat(parser.parse(xml.getBytes(StandardCharsets.UTF_8), "dtd.xml").driverVersion()).isEqualTo("1");
  }

  @Test
  void anEntityExpansionBombIsNeitherExpandedNorFatal() {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE nvidia_smi_log [<!ENTITY a0 \"lol\">");
    for (int i = 1; i < 12; i++) {
      b.append("<!ENTITY a").append(i).append(" \"").append(("&a" + (i - 1) + ";").repeat(10)).append("\">");
    }
    b.append("]><nvidia_smi_log><driver_version>&a11;</driver_version></nvidia_smi_log>");
    // 10^11 "lol"s if expanded: finishing at all, quickly and small, proves nothing was expanded.
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
      try {
        GpuSnapshot s = parser.parse(b.toString().getBytes(StandardCharsets.UTF_8), "bomb.xml");
        assertThat(String.valueOf(s.driverVersion()).length()).isLessThan(1000);
      } catch (InputParseException e) {
        assertThat(e.getMessage()).startsWith("bomb.xml");
      }
    });
  }

  @Test
  void somethingThatIsNotAnNvidiaSmiLogIsRejectedWithWhereAndWhy() {
    assertThatThrownBy(() -> parser.parse("<html/>".getBytes(StandardCharsets.UTF_8), "page.xml"))
        .hasMessage("page.xml: root element is <html>, not <nvidia_smi_log>");
    assertThatThrownBy(() -> parser.parse("root@host:~# ixsmi\n<nvidia".getBytes(StandardCharsets.UTF_8), "t.xml"))
        .hasMessageStartingWith("t.xml:1: not well-formed XML");
  }
}
