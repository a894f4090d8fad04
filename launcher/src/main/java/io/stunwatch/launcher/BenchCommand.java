package io.stunwatch.launcher;

import io.stunwatch.launcher.bench.ProcessorBenchmark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stunwatch bench processor}: the benchmarks whose figures are in the README's performance table. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a benchmark on an embedded broker in this process and print its figures.",
    subcommands = {BenchCommand.Processor.class})
final class BenchCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing benchmark: processor");
  }

  /** {@code stunwatch bench processor}. */
  @Command(name = "processor", mixinStandardHelpOptions = true,
      description = {"Throughput of the stream processor against its baselines, measured in one run: raw "
          + "consume+produce, a Kafka Streams passthrough with the same settings, and the topology, over the same "
          + "recorded fleet; then the migration-under-load alert latency at a fixed sample rate.",
          "Prints a markdown table row for the README."})
  static final class Processor implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--records", defaultValue = "300000", description = "Records of the recorded fleet "
        + "(default ${DEFAULT-VALUE}).")
    int records;

    @Option(names = "--rate", defaultValue = "10000", description = "GPU samples per second during the latency "
        + "phase (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--latency-seconds", defaultValue = "60", description = "Length of the latency phase, after "
        + "a 70 s warm-up (default ${DEFAULT-VALUE}).")
    int latencySeconds;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Working directory (default: a new temporary "
        + "one, deleted afterwards).")
    Path dataDir;

    Processor(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      if (records < 1000 || rate < 100 || latencySeconds < 5) {
        ctx.err().println("--records must be at least 1000, --rate at least 100, --latency-seconds at least 5");
        return ExitCodes.USAGE;
      }
      Path dir = dataDir != null ? dataDir : Files.createTempDirectory("stunwatch-bench-");
      try {
        ProcessorBenchmark.Result r = new ProcessorBenchmark(new ProcessorBenchmark.Settings(records, rate,
            Duration.ofSeconds(latencySeconds), dir), ctx.out()).run();
        ctx.out().printf("%n| records | raw rec/s | passthrough rec/s (ratio) | topology rec/s (ratio to raw) "
            + "| alerts | alert p50 | alert p99 | at samples/s |%n|---|---|---|---|---|---|---|---|%n");
        ctx.out().printf("| %,d | %,.0f | %,.0f (%.2f) | %,.0f (**%.2f**) | %d | %.0f ms | %.0f ms | %,.0f |%n",
            r.records(), r.rawPerSec(), r.passthroughPerSec(), r.passthroughToRaw(), r.topologyPerSec(),
            r.topologyToRaw(), r.alerts(), r.alertP50Ms(), r.alertP99Ms(), r.achievedRate());
        ctx.out().flush();
        return ExitCodes.OK;
      } finally {
        if (dataDir == null) {
          deleteTree(dir);
        }
      }
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
