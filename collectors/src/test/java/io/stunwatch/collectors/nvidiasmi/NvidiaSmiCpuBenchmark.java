package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.RecordingSink;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.RealPeers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CPU seconds per 1,000 samples: the streaming collector (one {@code -lms} child) against a fork-per-sample
 * collector, on the same fake nvidia-smi (a small C program), in the same run. Both parse and publish through the
 * same code. Goal: streaming at most 1/20 of forking.
 *
 * <p>A benchmark, not a test: surefire does not run it. Run it with {@code bench/nvidia-smi-cpu.sh}.
 * CPU is this JVM's user+system time plus that of its reaped children, from {@code /proc/self/stat}.
 */
class NvidiaSmiCpuBenchmark {

  private static final int SAMPLES = 1000;
  private static final int ROUNDS = 3;

  @TempDir
  Path dir;

  @Test
  void streamingCostsAtMostOneTwentiethOfForkingPerSample() throws Exception {
    Path fake = compileFake();
    List<Double> ratios = new ArrayList<>();
    StringBuilder report = new StringBuilder();
    warmUp(fake);
    for (int round = 1; round <= ROUNDS; round++) {
      double fork = cpuSeconds(() -> forkPerSample(fake));
      double stream = cpuSeconds(() -> streaming(fake));
      double ratio = stream / fork;
      ratios.add(ratio);
      String line = String.format("round %d: fork-per-sample %.3f CPU s / 1000 samples, streaming %.3f CPU s / 1000 "
          + "samples, ratio %.4f (1/%.0f)", round, fork, stream, ratio, 1 / ratio);
      System.out.println(line);
      report.append(line).append('\n');
    }
    ratios.sort(null);
    double median = ratios.get(ROUNDS / 2);
    String summary = String.format("median ratio streaming/fork = %.4f (1/%.0f); goal <= 0.05", median, 1 / median);
    System.out.println(summary);
    report.append(summary).append('\n');
    Path out = Path.of("target", "benchmarks", "nvidia-smi-cpu.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, report);
    assertThat(median).isLessThanOrEqualTo(0.05);
  }

  private Path compileFake() throws Exception {
    Path gcc = RealPeers.require("gcc, to build the fake nvidia-smi", "gcc", "cc");
    Path src = Path.of("src/test/resources/nvidiasmi/fake-nvidia-smi.c").toAbsolutePath();
    Path bin = dir.resolve("nvidia-smi");
    Commands.run(List.of(gcc.toString(), "-O2", "-o", bin.toString(), src.toString()), Duration.ofSeconds(60));
    return bin;
  }

  private void warmUp(Path fake) throws Exception {
    forkPerSample(fake, 100);
    streaming(fake, 100);
  }

  private void forkPerSample(Path fake) throws Exception {
    forkPerSample(fake, SAMPLES);
  }

  /** The naive collector: one nvidia-smi process per sample, parsed and published like the streaming one. */
  private void forkPerSample(Path fake, int n) throws Exception {
    Inputs inputs = inputs();
    NvidiaSmiQuery query = NvidiaSmiQuery.all();
    NvidiaSmiCsvParser parser = NvidiaSmiCsvParser.forQuery(query, ZoneOffset.UTC, inputs.identity(),
        inputs.clock());
    List<String> cmd = List.of(fake.toString(), "--query-gpu=" + query.queryArgument(),
        "--format=csv,noheader,nounits");
    for (int i = 0; i < n; i++) {
      String line = new String(Commands.run(cmd, Duration.ofSeconds(10)), StandardCharsets.UTF_8).strip();
      NvidiaSmiStreamingSource.accept(parser, line, i + 1, false, inputs);
    }
    assertThat(inputs.metrics().readCount(CollectorInput.NVIDIA_SMI)).isEqualTo(n);
  }

  private void streaming(Path fake) throws Exception {
    streaming(fake, SAMPLES);
  }

  /** The real streaming source, with a 1 ms interval so 1000 samples take about a second. */
  private void streaming(Path fake, int n) {
    Inputs inputs = inputs();
    NvidiaSmiStreamingSource source = new NvidiaSmiStreamingSource(new NvidiaSmiConfig(true, fake.toString(),
        Duration.ofMillis(1), Duration.ZERO, Duration.ofSeconds(1)), ZoneOffset.UTC, inputs);
    source.start();
    Await.until(Duration.ofSeconds(60), () -> inputs.metrics().readCount(CollectorInput.NVIDIA_SMI) >= n,
        n + " streamed samples");
    source.close(); // the child is killed and reaped: its CPU time lands in this JVM's cutime/cstime
  }

  private static Inputs inputs() {
    return new Inputs(NvidiaSmiCsvParserTest.ID, new RecordingSink(),
        new CollectorMetrics(new SimpleMeterRegistry(), Clock.systemUTC()), Clock.systemUTC());
  }

  interface Work {
    void run() throws Exception;
  }

  /** CPU seconds (self and reaped children, user and system) spent by {@code work}. */
  private static double cpuSeconds(Work work) throws Exception {
    long before = cpuTicks();
    work.run();
    System.gc(); // nothing is measured by it; it only keeps the next round's GC out of this one's time
    return (cpuTicks() - before) / 100.0; // USER_HZ is 100 on Linux
  }

  private static long cpuTicks() throws Exception {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields 14-17 of proc(5) (utime, stime, cutime, cstime) are 11-14 after the ')' split
    return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
  }
}
