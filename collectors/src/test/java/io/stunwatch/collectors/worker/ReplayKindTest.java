package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayKindTest {

  @TempDir
  Path dir;

  @Test
  void eachRecordingIsRecognizedFromItsContent() throws Exception {
    assertThat(ReplayKind.detect(Path.of("src/test/resources/nvidiasmi/vgpu-guest.csv")))
        .isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
    assertThat(ReplayKind.detect(Path.of("src/test/resources/nvidiasmi/vgpu-guest-v12.xml")))
        .isEqualTo(ReplayKind.NVIDIA_SMI_XML);
    assertThat(ReplayKind.detect(Path.of("src/test/resources/hostvgpu/vgpu-q-two-gpus.txt")))
        .isEqualTo(ReplayKind.VGPU_QUERY);
    Path log = dir.resolve("train.log");
    Files.writeString(log, "Step\tImg/sec\ttotal_loss\n1\timages/sec: 245.3 +/- 0.0 (jitter = 0.0)\t7.5\n");
    assertThat(ReplayKind.detect(log)).isEqualTo(ReplayKind.LOG);
    Files.createDirectories(dir.resolve("sys/mlx5_0/ports/1/counters"));
    assertThat(ReplayKind.detect(dir.resolve("sys"))).isEqualTo(ReplayKind.SYSFS);
    assertThat(ReplayKind.parse("nvidia-smi-csv")).isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
  }

  @Test
  void aDirectoryThatIsNoSysfsTreeIsRejectedByName() throws Exception {
    Files.createDirectories(dir.resolve("empty"));
    assertThatThrownBy(() -> ReplayKind.detect(dir.resolve("empty"))).hasMessageContaining("not a sysfs RDMA tree");
  }

  @Test
  void aHostLoopIsRecognizedFarBeyondItsFirstBlockAndWithNoVgpuAtAll() throws Exception {
    StringBuilder idle = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      idle.append("\n==============NVSMI LOG==============\n\nTimestamp : Sat Nov 28 10:00:00 2026\n")
          .append("Driver Version : 550.90.05\n\nGPU 00000000:3B:00.0\n    Product Name : Tesla T4\n");
    }
    Path idleOnly = dir.resolve("idle.txt");
    Files.writeString(idleOnly, idle.toString().replace("Product Name : Tesla T4", "Active vGPUs : 0"));
    assertThat(ReplayKind.detect(idleOnly)).isEqualTo(ReplayKind.VGPU_QUERY);
    Path late = dir.resolve("late.txt");
    Files.writeString(late, idle + "GPU 00000000:3B:00.0\n    vGPU ID : 7\n        VM Name : a\n");
    assertThat(Files.size(late)).isGreaterThan(16_000);
    assertThat(ReplayKind.detect(late)).isEqualTo(ReplayKind.VGPU_QUERY);
    assertThat(ReplayKind.detect(Path.of("src/test/resources/hostvgpu/vgpu-q-mig-no-banner.txt")))
        .isEqualTo(ReplayKind.VGPU_QUERY);
  }

  @Test
  void aBinaryFileIsRefusedAsNoRecordingNotAsALogOfAnUnknownVm() throws Exception {
    Path junk = dir.resolve("unreadable.bin");
    Files.write(junk, new byte[] {0, 1, 'b', 'i', 'n', 0, (byte) 0xff, (byte) 0xfe, 7, '\n', 'x'});
    assertThatThrownBy(() -> ReplayKind.detect(junk)).isInstanceOf(ReplayRefusedException.class)
        .hasMessageContaining("a binary file").hasMessageContaining("nvidia-smi");
    Path log = dir.resolve("train.log");
    Files.writeString(log, "epoch 1 step 10 loss 0.5\tthroughput 240.5 images/sec\n");
    assertThat(ReplayKind.detect(log)).as("a text with tabs is still a log").isEqualTo(ReplayKind.LOG);
  }

  @Test
  void kindsAreTakenInAnyCase() {
    assertThat(ReplayKind.parse("vgpu-query")).isEqualTo(ReplayKind.VGPU_QUERY);
    assertThat(ReplayKind.parse("Vgpu_Query")).isEqualTo(ReplayKind.VGPU_QUERY);
  }

  static Path replay(String name) {
    return Path.of("src/test/resources/replay", name);
  }

  @Test
  void theFormsAdminsHaveAreRecognized() throws Exception {
    assertThat(ReplayKind.detect(replay("csv-preamble.csv"))).isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
    assertThat(ReplayKind.detect(replay("csv-noheader.csv"))).isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
    assertThat(ReplayKind.detect(replay("csv-noheader-own-query.csv"))).isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
    assertThat(ReplayKind.detect(replay("csv-no-index-two-gpus.csv"))).isEqualTo(ReplayKind.NVIDIA_SMI_CSV);
    assertThat(ReplayKind.detect(replay("q-vgpu-guest-470.txt"))).isEqualTo(ReplayKind.NVIDIA_SMI_TEXT);
    assertThat(ReplayKind.detect(replay("q-pass-through-375-loop.txt"))).isEqualTo(ReplayKind.NVIDIA_SMI_TEXT);
    assertThat(ReplayKind.detect(replay("nvidia-bug-report.log"))).isEqualTo(ReplayKind.NVIDIA_BUG_REPORT);
    Path gz = dir.resolve("nvidia-bug-report.log.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(replay("nvidia-bug-report.log")));
    }
    assertThat(ReplayKind.detect(gz)).isEqualTo(ReplayKind.NVIDIA_BUG_REPORT);
    assertThat(ReplayKind.detect(replay("rdma-listing.txt"))).isEqualTo(ReplayKind.RDMA_LISTING);
  }

  @Test
  void aFormThatMakesNoRecordsIsRefusedWithWhatToGiveInstead() throws Exception {
    assertThatThrownBy(() -> ReplayKind.detect(replay("summary-table.txt")))
        .isInstanceOf(ReplayRefusedException.class).hasMessageStartingWith("nvidia-smi's summary table: ")
        .hasMessageContaining("--query-gpu=").hasMessageContaining("vgpu -q");
    assertThatThrownBy(() -> ReplayKind.detect(replay("vgpu-s.txt")))
        .isInstanceOf(ReplayRefusedException.class).hasMessageStartingWith("nvidia-smi vgpu -s")
        .hasMessageContaining("--hostname").hasMessageNotContaining("--vm-id");
    assertThatThrownBy(() -> ReplayKind.detect(replay("govc-events.txt")))
        .isInstanceOf(ReplayRefusedException.class).hasMessageContaining("govc events -json -l");
    assertThatThrownBy(() -> ReplayKind.detect(replay("events-pretty.json")))
        .isInstanceOf(ReplayRefusedException.class).hasMessageContaining("collect vcenter --replay");
    Path gz = dir.resolve("other.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write("hello\n".getBytes());
    }
    assertThatThrownBy(() -> ReplayKind.detect(gz)).isInstanceOf(ReplayRefusedException.class)
        .hasMessageContaining("gunzip");
  }
}
