package io.stunwatch.collectors.hostvgpu;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.RecordingSink;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.HostVgpuSample;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiVgpuSourceTest {

  @TempDir
  Path dir;

  private final CollectorMetrics metrics = new CollectorMetrics(new SimpleMeterRegistry(), Clock.systemUTC());
  private final RecordingSink sink = new RecordingSink();
  private final Inputs inputs = new Inputs(new WorkerIdentity(null, "esx01"), sink, metrics,
      Clock.systemUTC());

  private static String block(String timestamp, int util) {
    return "\n==============NVSMI LOG==============\n\n"
        + (timestamp == null ? "" : "Timestamp                                 : " + timestamp + "\n")
        + "Driver Version                            : 550.90.05\n\n"
        + "GPU 00000000:3B:00.0\n"
        + "    Active vGPUs                          : 1\n"
        + "    vGPU ID                               : 3251634213\n"
        + "        VM Name                           : train-01\n"
        + "        vGPU Name                         : GRID T4-16C\n"
        + "        FB Memory Usage\n"
        + "            Total                         : 16384 MiB\n"
        + "            Used                          : 15360 MiB\n"
        + "        Utilization\n"
        + "            Gpu                           : " + util + " %\n";
  }

  @Test
  void aLoopedRecordingGivesEachBlockItsOwnTimestampInTheHostsZone() throws Exception {
    Path f = dir.resolve("vgpu-q.txt");
    Files.writeString(f, block("Fri Nov 27 10:00:00 2026", 88) + block("Fri Nov 27 10:00:05 2026", 87)
        + block("Fri Nov 27 10:00:10 2026", 86));
    NvidiaSmiVgpuSource.replay(f, ZoneId.of("Europe/Berlin"), inputs);
    List<HostVgpuSample> s = sink.values(HostVgpuSample.class);
    assertThat(s).extracting(HostVgpuSample::timestamp).containsExactly(Instant.parse("2026-11-27T09:00:00Z"),
        Instant.parse("2026-11-27T09:00:05Z"), Instant.parse("2026-11-27T09:00:10Z"));
    assertThat(s).extracting(HostVgpuSample::utilizationGpuPct).containsExactly(88.0, 87.0, 86.0);
    assertThat(s.get(0).key()).as("ESXi names the VM, not its UUID").isEqualTo("name:esx01/train-01");
  }

  @Test
  void aBlockWithoutTimestampTakesTheFilesTimeAndABadOneIsReportedAndSkipped() throws Exception {
    Path f = dir.resolve("vgpu-q.txt");
    Files.writeString(f, block(null, 50) + block("27.11.2026 10:00", 60) + block("Fri Nov 27 10:00:10 2026", 70));
    Files.setLastModifiedTime(f, FileTime.from(Instant.parse("2026-11-27T08:00:00Z")));
    NvidiaSmiVgpuSource.replay(f, ZoneId.of("UTC"), inputs);
    assertThat(sink.values(HostVgpuSample.class)).extracting(HostVgpuSample::timestamp)
        .containsExactly(Instant.parse("2026-11-27T08:00:00Z"), Instant.parse("2026-11-27T10:00:10Z"));
    assertThat(metrics.parseErrorCount(CollectorInput.HOST_VGPU)).isEqualTo(1);
  }

  @Test
  void aRecordingThatOpensIdleAndOneWithoutBannersReplayEveryVgpuAtItsTimestamp() throws Exception {
    NvidiaSmiVgpuSource.replay(Path.of("src/test/resources/hostvgpu/vgpu-q-l-idle-first.txt"), ZoneId.of("UTC"),
        inputs);
    assertThat(sink.values(HostVgpuSample.class)).singleElement().satisfies(s -> {
      assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-11-28T10:00:05Z"));
      assertThat(s.vmWorldId()).isEqualTo("2103582");
      assertThat(s.utilizationGpuPct()).isEqualTo(88.0);
    });
    NvidiaSmiVgpuSource.replay(Path.of("src/test/resources/hostvgpu/vgpu-q-mig-no-banner.txt"), ZoneId.of("UTC"),
        inputs);
    List<HostVgpuSample> s = sink.values(HostVgpuSample.class);
    assertThat(s.subList(1, s.size())).extracting(HostVgpuSample::vmName, HostVgpuSample::timestamp).containsExactly(
        org.assertj.core.groups.Tuple.tuple("mig-a", Instant.parse("2026-11-28T10:00:00Z")),
        org.assertj.core.groups.Tuple.tuple("mig-b", Instant.parse("2026-11-28T10:00:00Z")),
        org.assertj.core.groups.Tuple.tuple("mig-b", Instant.parse("2026-11-28T10:00:05Z")));
    assertThat(metrics.parseErrorCount(CollectorInput.HOST_VGPU)).isZero();
  }
}
