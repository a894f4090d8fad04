package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.testsupport.SharedFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NvidiaSmiTextParserTest {

  private final NvidiaSmiTextParser parser = new NvidiaSmiTextParser(NvidiaSmiCsvParserTest.BERLIN,
      NvidiaSmiCsvParserTest.ID, NvidiaSmiCsvParserTest.CLOCK);

  static List<String> lines(String name) throws Exception {
    return Files.readAllLines(Path.of("src/test/resources/replay", name));
  }

  @Test
  void aVgpuGuestsReadingGivesItsProfileFramebufferLoadAndProcesses() throws Exception {
    GpuSnapshot s = parser.parse(lines("q-vgpu-guest-470.txt"), 1, "q", null);
    // 14:05:12 in Berlin (CET, +01:00)
    assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-11-30T13:05:12Z"));
    assertThat(s.driverVersion()).isEqualTo("470.129.06");
    assertThat(s.cudaVersion()).isEqualTo("11.4");
    assertThat(s.gpus()).hasSize(1);
    GpuSnapshot.Gpu g = s.gpus().get(0);
    assertThat(g.pciBusId()).isEqualTo("00000000:02:00.0");
    assertThat(g.uuid()).isEqualTo("GPU-5a1b2c3d-0000-1111-2222-333344445555");
    assertThat(g.productName()).isEqualTo("GRID T4-16C");
    assertThat(g.vgpuProfile()).isNotNull();
    assertThat(g.virtualizationMode()).isEqualTo("VGPU");
    assertThat(g.hostVgpuMode()).isNull();
    assertThat(g.migMode()).isNull();
    assertThat(g.fbTotalMiB()).isEqualTo(16384L);
    assertThat(g.fbUsedMiB()).isEqualTo(15021L);
    assertThat(g.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(g.processes()).extracting(GpuSnapshot.GpuProcess::pid).containsExactly(2187L, 2301L);
    assertThat(g.processes().get(0).name()).isEqualTo("python3 train.py --batch 256");
    assertThat(g.processes().get(0).usedMemoryMiB()).isEqualTo(14950L);
    assertThat(g.processes().get(1).gpuInstanceId()).isNull();
  }

  @Test
  void anOldDriversLoopGivesOneReadingPerBannerAndUnavailableIsUnknownNotZero() throws Exception {
    List<String> all = lines("q-pass-through-375-loop.txt");
    List<int[]> readings = NvidiaSmiReplay.readings(all, 0, all.size());
    assertThat(readings).hasSize(2);
    List<GpuSnapshot> snaps = new ArrayList<>();
    for (int[] r : readings) {
      snaps.add(parser.parse(all.subList(r[0], r[1]), r[0] + 1, "loop", null));
    }
    assertThat(snaps.get(0).gpus().get(0).pciBusId()).isEqualTo("0000:04:00.0");
    assertThat(snaps.get(0).gpus().get(0).virtualizationMode()).isEqualTo("Pass-Through");
    assertThat(snaps.get(0).gpus().get(0).utilizationGpuPct()).isEqualTo(97.0);
    assertThat(snaps.get(0).cudaVersion()).isNull();
    assertThat(snaps.get(1).timestamp()).isEqualTo(snaps.get(0).timestamp().plusSeconds(5));
    GpuSnapshot.Gpu second = snaps.get(1).gpus().get(0);
    assertThat(second.utilizationGpuPct()).as("N/A").isNull();
    assertThat(second.fbUsedMiB()).as("N/A").isNull();
    assertThat(second.processes()).isEmpty();
  }

  @Test
  void aReadingWithNoGpuBlockOrABadTimestampIsRejectedWithItsLine() {
    assertThatThrownBy(() -> parser.parse(List.of("Timestamp : Mon Nov 30 14:05:12 2026", "Driver Version : 1"),
        7, "f.txt", null)).isInstanceOf(InputParseException.class).hasMessage(
        "f.txt:7: an nvidia-smi -q reading with no 'GPU <bus id>' block");
    assertThatThrownBy(() -> parser.parse(List.of("Timestamp : yesterday", "GPU 00000000:02:00.0",
        "    Product Name : GRID T4-16C"), 3, "f.txt", null)).isInstanceOf(InputParseException.class)
        .hasMessageStartingWith("f.txt:3: Timestamp 'yesterday'");
  }

  @Test
  void theHostsReadingOfTheFieldIsAHostsAndEveryCapturedDriverReads() throws Exception {
    Path host = SharedFixtures.dir("field/nvidia-smi-q").resolve("cubecos-host-rtxpro6000-blackwell-580-q-trimmed.txt");
    assertThat(NvidiaSmiReplay.hostQuery(host)).isTrue();
    GpuSnapshot s = parser.parse(Files.readAllLines(host), 1, "host", null);
    assertThat(s.gpus()).hasSize(1);
    assertThat(s.gpus().get(0).fbUsedMiB()).isEqualTo(5952L);
    assertThat(s.cudaVersion()).as("'Not Found'").isNull();
    // every nvidia-smi -q section of the captured drivers (590 to 610, MIG on and off)
    Path captures = SharedFixtures.dir("nvidia-smi-csv/captures");
    int sections = 0;
    try (var files = Files.list(captures)) {
      for (Path f : files.sorted().toList()) {
        List<String> all = Files.readAllLines(f);
        for (int i = 0; i < all.size(); i++) {
          if (all.get(i).equals("# $ nvidia-smi -q")) {
            int end = i + 2;
            while (end < all.size() && !all.get(end).startsWith("#####")) {
              end++;
            }
            GpuSnapshot q = parser.parse(all.subList(i + 2, end), i + 3, f.getFileName().toString(), null);
            assertThat(q.gpus()).as(f.getFileName().toString()).isNotEmpty();
            assertThat(q.gpus().get(0).fbTotalMiB()).as(f.getFileName().toString()).isPositive();
            if (f.getFileName().toString().contains("mig")) {
              assertThat(q.gpus().get(0).migDevices()).as(f.getFileName().toString()).isNotEmpty();
            }
            sections++;
          }
        }
      }
    }
    assertThat(sections).isGreaterThanOrEqualTo(10);
  }

  @Test
  void eachMigProcessKeepsTheInstanceIdsPrintedBeforeIt() throws Exception {
    List<String> q = new ArrayList<>(List.of("Timestamp : Mon Nov 30 14:05:12 2026", "Attached GPUs : 1",
        "GPU 00000000:00:09.0", "    Product Name : NVIDIA H100 80GB HBM3", "    Processes"));
    for (int i = 1; i <= 2; i++) {
      q.addAll(List.of("        GPU instance ID : " + i, "        Compute instance ID : 0",
          "        Process ID : " + (100 + i), "            Type : C", "            Name : job" + i,
          "            Used GPU Memory : " + (i * 1000) + " MiB"));
    }
    List<GpuSnapshot.GpuProcess> p = parser.parse(q, 1, "mig", null).gpus().get(0).processes();
    assertThat(p).extracting(GpuSnapshot.GpuProcess::pid, GpuSnapshot.GpuProcess::gpuInstanceId,
        GpuSnapshot.GpuProcess::computeInstanceId, GpuSnapshot.GpuProcess::name,
        GpuSnapshot.GpuProcess::usedMemoryMiB).containsExactly(
        org.assertj.core.groups.Tuple.tuple(101L, 1, 0, "job1", 1000L),
        org.assertj.core.groups.Tuple.tuple(102L, 2, 0, "job2", 2000L));
  }
}
