package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.RecordingSink;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.GpuSample;
import io.stunwatch.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiStreamingSourceTest {

  private static final CollectorInput IN = CollectorInput.NVIDIA_SMI;

  @TempDir
  Path dir;

  private final CollectorMetrics metrics = new CollectorMetrics(new SimpleMeterRegistry(), Clock.systemUTC());
  private final RecordingSink sink = new RecordingSink();
  private final Inputs inputs = new Inputs(NvidiaSmiCsvParserTest.ID, sink, metrics, Clock.systemUTC());

  private NvidiaSmiStreamingSource source(Path executable) {
    return new NvidiaSmiStreamingSource(config(executable, Duration.ofMillis(100)), ZoneOffset.UTC, inputs);
  }

  private static NvidiaSmiConfig config(Path executable, Duration interval) {
    return new NvidiaSmiConfig(true, executable.toString(), interval, Duration.ZERO, Duration.ofMillis(50));
  }

  @Test
  void theSilenceLimitIsThreeIntervalsButNeverUnderTenSeconds() {
    // at a 50 ms interval, three intervals (150 ms) is one scheduling hiccup on a busy machine, not a hung driver
    assertThat(new NvidiaSmiStreamingSource(config(dir, Duration.ofMillis(50)), ZoneOffset.UTC, inputs)
        .silenceLimit()).isEqualTo(Duration.ofSeconds(10));
    assertThat(new NvidiaSmiStreamingSource(config(dir, Duration.ofSeconds(1)), ZoneOffset.UTC, inputs)
        .silenceLimit()).isEqualTo(Duration.ofSeconds(10));
    assertThat(new NvidiaSmiStreamingSource(config(dir, Duration.ofSeconds(5)), ZoneOffset.UTC, inputs)
        .silenceLimit()).isEqualTo(Duration.ofSeconds(15));
  }

  @Test
  void aChildThatDiesAndThenPrintsGarbageIsRestartedAndItsErrorsCounted() throws Exception {
    FakeNvidiaSmi fake = FakeNvidiaSmi.write(dir, List.of(
        "for i in 1 2 3 4 5; do echo \"$LINE\"; done; exit 3",                       // streams, then dies
        "echo 'garbage'; echo '%%%, ,'; printf '\\x00\\xff\\xfe\\n'; echo \"$LINE\"; exit 1", // garbage, dies
        "while true; do echo \"$LINE\"; sleep 0.02; done"));                           // healthy from now on
    try (NvidiaSmiStreamingSource s = source(fake.script)) {
      s.start();
      Await.until(Duration.ofSeconds(20), () -> metrics.readCount(IN) >= 26, "26 samples read",
          () -> metrics.readCount(IN) + " read, " + metrics.parseErrorCount(IN) + " errors");
    }
    assertThat(metrics.parseErrorCount(IN)).isEqualTo(3);
    assertThat(metrics.restartCount(IN)).isEqualTo(2);
    assertThat(fake.starts()).as("one child per life, not one per sample").isEqualTo(3);
    assertThat(fake.firstArguments()).isEqualTo("--query-gpu=timestamp,index,uuid,name,pci.bus_id,utilization.gpu,"
        + "utilization.memory,memory.used,memory.total,power.draw,temperature.gpu,clocks.sm,pstate "
        + "--format=csv,noheader,nounits -lms 100");
    assertThat(sink.values(GpuSample.class)).hasSizeGreaterThanOrEqualTo(26)
        .allSatisfy(g -> assertThat(g.vgpuProfile().name()).isEqualTo("T4-16C"));
  }

  @Test
  void aChildThatHangsSilentPastItsLimitIsKilledWithWhatItStartedAndRestarted() throws Exception {
    // one line, then a hung driver call: a grandchild holds the pipe, so only killing the whole tree ends it
    FakeNvidiaSmi fake = FakeNvidiaSmi.write(dir, List.of(
        "echo \"$LINE\"; (exec -a \"$0-hung\" sleep 600)",
        "while true; do echo \"$LINE\"; sleep 0.02; done"));
    // the floor lowered to three intervals, so that the test does not wait out the real one
    try (NvidiaSmiStreamingSource s = new NvidiaSmiStreamingSource(config(fake.script, Duration.ofMillis(100)),
        ZoneOffset.UTC, inputs, Duration.ofMillis(300))) {
      s.start();
      Await.until(Duration.ofSeconds(60), () -> starts(fake) >= 2 && metrics.readCount(IN) >= 10,
          "restarted after the silence", () -> starts(fake) + " starts, " + metrics.readCount(IN) + " read");
    }
    assertThat(metrics.restartCount(IN)).isEqualTo(1);
    String hung = fake.script + "-hung";
    assertThat(ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("").contains(hung))
        .filter(ProcessHandle::isAlive).count()).as("the hung child is gone").isZero();
  }

  private static int starts(FakeNvidiaSmi fake) {
    try {
      return fake.starts();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aMissingExecutableIsRetriedWithBackoffNotFatal() {
    try (NvidiaSmiStreamingSource s = source(dir.resolve("no-such-nvidia-smi"))) {
      s.start();
      Await.until(Duration.ofSeconds(10), () -> metrics.restartCount(IN) >= 3, "three restarts",
          () -> metrics.restartCount(IN));
    }
    assertThat(metrics.readCount(IN)).isZero();
  }

  @Test
  void tenThousandMalformedLinesAreEachCountedAndNoneCrashes() {
    NvidiaSmiCsvParser parser = NvidiaSmiCsvParser.forQuery(NvidiaSmiQuery.all(), ZoneOffset.UTC,
        NvidiaSmiCsvParserTest.ID, Clock.systemUTC());
    Random random = new Random(20261121);
    for (int i = 0; i < 10_000; i++) {
      NvidiaSmiStreamingSource.accept(parser, malformed(random, i), i + 1, false, inputs);
    }
    assertThat(metrics.parseErrorCount(IN)).isEqualTo(10_000);
    assertThat(metrics.readCount(IN)).isZero();
    assertThat(sink.published()).isEmpty();
  }

  /** A line that cannot be a valid sample, by construction, in a few shapes. */
  private static String malformed(Random r, int i) {
    return switch (i % 5) {
      case 0 -> randomText(r, r.nextInt(200)); // random bytes, almost never 13 fields
      case 1 -> String.join(", ", Collections.nCopies(1 + r.nextInt(30), randomText(r, 5)))
          .concat(", x, y, z, w, v, u, t, s, q, p, o, n, m").substring(0, 20); // cut short
      case 2 -> "2026/11/21 12:00:00.000, " + randomText(r, 3).replace(",", "") + "x, u, n, b, 1, 1, 1, 1, 1, 1, 1, P0";
      case 3 -> "2026/11/21 12:00:00.000, 0, u, n, b, " + (101 + r.nextInt(1000)) + ", 1, 1, 1, 1, 1, 1, P0";
      default -> "2026/13/45 99:99:99.999, 0, u, n, b, 1, 1, 1, 1, 1, 1, 1, P0";
    };
  }

  private static String randomText(Random r, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append((char) (r.nextInt(0x2FF) + 1));
    }
    return b.toString();
  }
}
