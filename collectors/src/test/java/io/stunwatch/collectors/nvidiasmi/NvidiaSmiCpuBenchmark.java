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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 *
 * <p>CPU is what each collector itself costs: the CPU time of the thread doing the work (ThreadMXBean) plus that of
 * the nvidia-smi processes it ran once reaped ({@code cutime + cstime} of {@code /proc/self/stat}). Whole-JVM time
 * would add JIT compilation and GC of everything else running, which swamps a one-second streaming run.
 */
class NvidiaSmiCpuBenchmark {

  private static final int SAMPLES = 2000;
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
      double fork = forkPerSample(fake);
      double stream = streaming(fake);
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
    forkPerSample(fake, 500);
    streaming(fake, 3000);
  }

  private double forkPerSample(Path fake) throws Exception {
    return forkPerSample(fake, SAMPLES);
  }

  /**
   * The naive collector: one nvidia-smi process per sample, parsed and published like the streaming one.
   *
   * @return CPU seconds per 1000 samples
   */
  private double forkPerSample(Path fake, int n) throws Exception {
    Inputs inputs = inputs();
    NvidiaSmiQuery query = NvidiaSmiQuery.all();
    NvidiaSmiCsvParser parser = NvidiaSmiCsvParser.forQuery(query, ZoneOffset.UTC, inputs.identity(),
        inputs.clock());
    List<String> cmd = List.of(fake.toString(), "--query-gpu=" + query.queryArgument(),
        "--format=csv,noheader,nounits");
    long thread0 = THREADS.getCurrentThreadCpuTime();
    long children0 = childTicks();
    for (int i = 0; i < n; i++) {
      String line = new String(Commands.run(cmd, Duration.ofSeconds(10)), StandardCharsets.UTF_8).strip();
      NvidiaSmiStreamingSource.accept(parser, line, i + 1, false, inputs);
    }
    double cpu = (THREADS.getCurrentThreadCpuTime() - thread0) / 1e9 + (childTicks() - children0) / 100.0;
    assertThat(inputs.metrics().readCount(CollectorInput.NVIDIA_SMI)).isEqualTo(n);
    return cpu * 1000 / n;
  }

  private double streaming(Path fake) throws Exception {
    return streaming(fake, SAMPLES);
  }

  /**
   * The real streaming source, with a 1 ms interval so the samples come fast.
   *
   * @return CPU seconds per 1000 samples
   */
  private double streaming(Path fake, int n) throws Exception {
    Inputs inputs = inputs();
    NvidiaSmiStreamingSource source = new NvidiaSmiStreamingSource(new NvidiaSmiConfig(true, fake.toString(),
        Duration.ofMillis(1), Duration.ZERO, Duration.ofSeconds(1)), ZoneOffset.UTC, inputs);
    long children0 = childTicks();
    source.start();
    long threadId = source.thread().getId();
    Await.until(Duration.ofSeconds(120), () -> inputs.metrics().readCount(CollectorInput.NVIDIA_SMI) >= n,
        n + " streamed samples", () -> inputs.metrics().readCount(CollectorInput.NVIDIA_SMI) + " read, "
        + inputs.metrics().parseErrorCount(CollectorInput.NVIDIA_SMI) + " unparsable");
    long threadCpu = THREADS.getThreadCpuTime(threadId);
    long read = inputs.metrics().readCount(CollectorInput.NVIDIA_SMI);
    source.close(); // the child is killed and reaped: its CPU time lands in this JVM's cutime/cstime
    double cpu = threadCpu / 1e9 + (childTicks() - children0) / 100.0;
    return cpu * 1000 / read;
  }

  private static Inputs inputs() {
    return new Inputs(NvidiaSmiCsvParserTest.ID, new RecordingSink(),
        new CollectorMetrics(new SimpleMeterRegistry(), Clock.systemUTC()), Clock.systemUTC());
  }

  private static final ThreadMXBean THREADS =
      ManagementFactory.getThreadMXBean();

  /** CPU ticks (1/100 s) of reaped children, user and system. */
  private static long childTicks() throws Exception {
    String stat = Files.readString(Path.of("/proc/self/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // cutime and cstime are fields 16 and 17 of proc(5): 13 and 14 after the ')' split
    return Long.parseLong(f[13]) + Long.parseLong(f[14]);
  }
}
