package io.stunwatch.bench;

import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.ExitCodes;
import io.stunwatch.launcher.LaunchContext;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code stunwatch bench processor}. */
@Command(name = "processor", mixinStandardHelpOptions = true,
    description = {"Throughput of the stream processor against its baselines, measured in one run: raw "
        + "consume+produce, a Kafka Streams passthrough with the same settings, and the topology, over the same "
        + "recorded fleet; then the migration-under-load alert latency at a fixed sample rate.",
        "Prints a markdown table row for docs/performance.md."})
final class BenchProcessorCommand implements Callable<Integer> {
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

  @Option(names = "--threads", defaultValue = "1", description = "Stream threads (process.threads) of the "
      + "passthrough, the topology and the latency phase alike (default ${DEFAULT-VALUE}).")
  int threads;

  // Five, not three: on shared 2-core machines one jar's decoding can run 1,124 ns a sample in one minute and
  // 1,773 in another, and the topology's passes move with it, 162,000 to 238,000 rec/s in one run.
  @Option(names = "--rounds", defaultValue = "5", description = "Measured rounds, each one pass of raw, "
      + "passthrough and topology back to back; each figure is its phase's median pass (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(names = "--max-warmups", description = "The most unmeasured passes of each phase: a phase warms up until "
      + "a pass leaves the JIT compilers under a tenth of a core, or it has run this many (default "
      + "${DEFAULT-VALUE}).")
  int maxWarmups = ProcessorBenchmark.DEFAULT_MAX_WARMUPS;

  @Option(names = "--partitions", defaultValue = "3", description = "Partitions of every topic (the embedded "
      + "broker's default, broker.partitions): each Streams phase has one task per partition of each "
      + "sub-topology to share among its threads (default ${DEFAULT-VALUE}).")
  int partitions;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Working directory (default: a new temporary "
      + "one, deleted afterwards).")
  Path dataDir;

  @Option(names = "--guard", description = "Also run the topology with the DRS guard's decisions (guard.enabled), "
      + "each round beside the topology without it.")
  boolean guard;

  @Option(names = "--streams-config", paramLabel = "KEY=VALUE", description = "A Kafka Streams setting over the "
      + "processor's own, for the passthrough, the topology and the latency phase (repeatable; client settings "
      + "with Streams' prefixes, e.g. main.consumer.max.poll.records=5000). For experiments: the processor itself "
      + "runs with its own settings only.")
  List<String> streamsConfig = new ArrayList<>();

  BenchProcessorCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    if (records < 1000 || rate < 100 || latencySeconds < 5 || threads < 1 || threads > 64 || rounds < 1
        || rounds > 99 || partitions < 1 || partitions > 64 || maxWarmups < 1 || maxWarmups > 99) {
      ctx.err().println("--records must be at least 1000, --rate at least 100, --latency-seconds at least 5, "
          + "--threads in 1..64, --rounds in 1..99, --partitions in 1..64, --max-warmups in 1..99");
      return ExitCodes.USAGE;
    }
    Map<String, String> overrides;
    try {
      overrides = StreamsOverrides.parse(streamsConfig);
      StreamsOverrides.applied(StreamsProcessor.properties(ProcessorConfig.defaults(),
          new KafkaClientConfig("localhost:9092")), overrides);
    } catch (IllegalArgumentException e) {
      ctx.err().println(e.getMessage());
      return ExitCodes.USAGE;
    }
    Path dir = dataDir != null ? dataDir : Files.createTempDirectory("stunwatch-bench-");
    try {
      ProcessorBenchmark.Result r = new ProcessorBenchmark(new ProcessorBenchmark.Settings(records, rate,
          Duration.ofSeconds(latencySeconds), dir, threads, rounds, partitions, overrides, maxWarmups, guard),
          ctx.out()).run();
      ctx.out().printf("%n| records | raw rec/s | passthrough rec/s (ratio) | topology rec/s (ratio to raw) "
          + "| alerts | alert p50 | alert p99 | at samples/s |%n|---|---|---|---|---|---|---|---|%n");
      ctx.out().printf("| %,d | %,.0f | %,.0f (%.2f) | %,.0f (**%.2f**) | %d | %.0f ms | %.0f ms | %,.0f |%n",
          r.records(), r.rawPerSec(), r.passthroughPerSec(), r.passthroughToRaw(), r.topologyPerSec(),
          r.topologyToRaw(), r.alerts(), r.alertP50Ms(), r.alertP99Ms(), r.achievedRate());
      ctx.out().printf("%nRates are steady state (the records after the first tenth of a pass). Over whole passes, "
          + "start-up included: raw %,.0f, passthrough %,.0f, topology %,.0f rec/s (%.2f of raw); start-up to the "
          + "first record done: %.1f, %.1f and %.1f s.%n", r.raw().wholePerSec(), r.passthrough().wholePerSec(),
          r.topology().wholePerSec(), r.topology().wholePerSec() / r.raw().wholePerSec(),
          r.raw().startupSeconds(), r.passthrough().startupSeconds(), r.topology().startupSeconds());
      ctx.out().printf("Each rate is its phase's median of %d measured rounds. The topology was measured after %d "
          + "unmeasured pass(es); the JIT compilers used %.2f of a core during its median pass. Its stream threads "
          + "used %.2f times the passthrough's CPU per record (median over the rounds, each against its own "
          + "round's passthrough).%n", rounds, r.topologyWarmups(), r.topologyCompilerShare(), r.cpuToPassthrough());
      ctx.out().flush();
      return ExitCodes.OK;
    } finally {
      if (dataDir == null) {
        BenchCommand.deleteTree(dir);
      }
    }
  }
}
