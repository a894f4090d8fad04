package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.GpuSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaSmiCsvParserTest {

  static final WorkerIdentity ID = new WorkerIdentity("4c4c4544-0042-3510-8052-b4c04f4e3232", "gpu-vm-01");
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T12:00:00Z"), ZoneOffset.UTC);
  static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private final NvidiaSmiCsvParser live = NvidiaSmiCsvParser.forQuery(NvidiaSmiQuery.all(), BERLIN, ID, CLOCK);

  @Test
  void aVgpuGuestLineHasNoPowerOrTemperatureAndAParsedProfile() throws Exception {
    GpuSample s = live.parse("2026/11/21 13:02:20.123, 0, GPU-5f1c, GRID T4-16C, 00000000:02:00.0, 88, 41, "
        + "15360, 16384, [N/A], [N/A], 1590, P0", 1);
    assertThat(s.timestamp()).as("host local time (UTC+1 in November) to UTC")
        .isEqualTo(Instant.parse("2026-11-21T12:02:20.123Z"));
    assertThat(s.vmId()).isEqualTo(ID.vmId());
    assertThat(s.hostname()).isEqualTo("gpu-vm-01");
    assertThat(s.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(s.memoryUsedMiB()).isEqualTo(15360L);
    assertThat(s.powerDrawW()).isNull();
    assertThat(s.temperatureC()).isNull();
    assertThat(s.vgpuProfile().name()).isEqualTo("T4-16C");
    assertThat(s.vgpuProfile().framebufferMiB()).isEqualTo(16384L);
    assertThat(s.vgpuProfile().series()).isEqualTo("C");
  }

  @Test
  void aRecordedCsvWithHeaderAndUnitsReadsLikeTheLiveStream() throws Exception {
    List<String> lines = Files.readAllLines(Path.of("src/test/resources/nvidiasmi/vgpu-guest.csv"));
    NvidiaSmiCsvParser replay = NvidiaSmiCsvParser.forHeader(lines.get(0), BERLIN, ID, CLOCK, "vgpu-guest.csv");
    GpuSample fromFile = replay.parse(lines.get(1), 2);
    GpuSample fromStream = live.parse("2026/11/21 13:02:20.123, 0, GPU-5f1c0a9e-0000-1111-2222-333344445555, "
        + "GRID T4-16C, 00000000:02:00.0, 88, 41, 15360, 16384, [N/A], [N/A], 1590, P0", 1);
    assertThat(fromFile).isEqualTo(fromStream);
  }

  @Test
  void aLineWithTheWrongNumberOfFieldsNamesSourceLineAndCounts() {
    assertThatThrownBy(() -> live.parse("2026/11/21 13:02:20.123, 0, GPU-x", 17))
        .isInstanceOf(InputParseException.class)
        .hasMessage("nvidia-smi stdout:17: expected 13 comma-separated fields, found 3: "
            + "'2026/11/21 13:02:20.123, 0, GPU-x'");
  }

  @Test
  void aBadValueNamesItsField() {
    assertThatThrownBy(() -> live.parse("2026/11/21 13:02:20.123, 0, u, n, b, lots, 1, 2, 3, 4, 5, 6, P0", 3))
        .hasMessage("nvidia-smi stdout:3: utilization.gpu: 'lots' is not a number");
    assertThatThrownBy(() -> live.parse("yesterday, 0, u, n, b, 1, 1, 2, 3, 4, 5, 6, P0", 4))
        .hasMessage("nvidia-smi stdout:4: timestamp: 'yesterday' is not YYYY/MM/DD HH:MM:SS.mmm");
    assertThatThrownBy(() -> live.parse("2026/11/21 13:02:20.123, [N/A], u, n, b, 1, 1, 2, 3, 4, 5, 6, P0", 5))
        .hasMessage("nvidia-smi stdout:5: GPU index is unavailable");
    assertThatThrownBy(() -> live.parse("2026/11/21 13:02:20.123, 0, u, n, b, 180, 1, 2, 3, 4, 5, 6, P0", 6))
        .hasMessageContaining("utilizationGpuPct must be in [0.0, 100.0]");
  }

  @Test
  void aHeaderWithoutIndexIsNotAGpuQuery() {
    assertThatThrownBy(() -> NvidiaSmiCsvParser.forHeader("pid, process_name, used_gpu_memory [MiB]", BERLIN, ID,
        CLOCK, "apps.csv")).hasMessageStartingWith("apps.csv:1: header has no 'index' column");
  }

  @Test
  void withoutATimestampColumnTheReadTimeIsUsed() throws Exception {
    NvidiaSmiCsvParser p = new NvidiaSmiCsvParser(List.of(GpuField.INDEX, GpuField.UTILIZATION_GPU), BERLIN, ID,
        CLOCK, "s");
    assertThat(p.parse("1, 50", 1).timestamp()).isEqualTo(CLOCK.instant());
  }

  @Test
  void theFallBackHourOfANvidiaSmiStreamIsReadForwardNotAnHourEarly() throws Exception {
    // Berlin, 2026-10-25: 02:59:59 CEST is followed by 02:00:00 CET; received live at 01:00:00.5Z
    NvidiaSmiCsvParser p = NvidiaSmiCsvParser.forQuery(NvidiaSmiQuery.all(), BERLIN, ID,
        Clock.fixed(Instant.parse("2026-10-25T01:00:00.500Z"), ZoneOffset.UTC));
    String rest = ", 0, GPU-1, GRID T4-16C, 00000000:02:00.0, 50, 10, 1000, 16384, [N/A], [N/A], 1590, P0";
    assertThat(p.parse("2026/10/25 02:59:59.000" + rest, 1).timestamp()).isEqualTo("2026-10-25T00:59:59Z");
    assertThat(p.parse("2026/10/25 02:00:00.000" + rest, 2).timestamp()).isEqualTo("2026-10-25T01:00:00Z");
  }
}
