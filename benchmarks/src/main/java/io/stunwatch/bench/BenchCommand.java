package io.stunwatch.bench;

import io.stunwatch.launcher.ExitCodes;
import io.stunwatch.launcher.LaunchContext;
import io.stunwatch.bench.AccuracyBenchmark;
import io.stunwatch.bench.ApiBenchmark;
import io.stunwatch.bench.FleetBenchmark;
import io.stunwatch.bench.HostsBenchmark;
import io.stunwatch.launcher.sim.StunLaw;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stunwatch bench processor|api|fleet|hosts|accuracy}: the benchmarks whose figures are in
 * docs/performance.md. The processor's is {@link BenchProcessorCommand}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run a benchmark on an embedded broker in this process and print its figures.",
    subcommands = {BenchProcessorCommand.class, BenchCommand.Api.class, BenchCommand.Fleet.class,
        BenchCommand.Hosts.class,
        BenchCommand.Accuracy.class})
final class BenchCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing benchmark: processor, api or fleet");
  }

  /** {@code stunwatch bench api}. */
  @Command(name = "api", mixinStandardHelpOptions = true,
      description = {"Latency of the API under concurrent clients, with a simulated migration history in the stores "
          + "(through the real topology): /api/migrations?vm=... and /api/grafana/annotations over 24 h, each with "
          + "its ratio to /health measured in the same run and, with --wrk, to a server that answers the same number "
          + "of bytes from memory.",
          "Prints a markdown table for docs/performance.md."})
  static final class Api implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--migrations", defaultValue = "100000", description = "Migrations in the history "
        + "(default ${DEFAULT-VALUE}).")
    int migrations;

    @Option(names = "--vms", defaultValue = "1000", description = "VMs (default ${DEFAULT-VALUE}).")
    int vms;

    @Option(names = "--days", defaultValue = "90", description = "Length of the history (default ${DEFAULT-VALUE}).")
    int days;

    @Option(names = "--clients", defaultValue = "50", description = "Concurrent clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--seconds", defaultValue = "30", description = "Measured load, after a 5 s warm-up "
        + "(default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Working directory (default: a new temporary "
        + "one, deleted afterwards).")
    Path dataDir;

    @Option(names = "--wrk", paramLabel = "PATH", arity = "0..1", fallbackValue = "/usr/bin/wrk",
        description = "Drive the load with wrk (Debian package wrk; default path ${FALLBACK-VALUE}), each request "
            + "kind alone, instead of the in-JVM client.")
    Path wrk;

    @Option(names = "--two-instances", description = "Run two instances from the start, measure /health and a "
        + "migration by id against the first, then stop the second and measure the first alone: what finding the "
        + "instance that holds a migration costs.")
    boolean twoInstances;

    @Option(names = "--rate", paramLabel = "N", defaultValue = "0", description = "With --wrk: N requests per "
        + "second over all connections, a load every setup serves, so latency is a request's cost rather than "
        + "its queue on a saturated machine (default: as fast as answered).")
    int rate;

    Api(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      if (migrations < 100 || vms < 2 || vms > 60_000 || days < 2 || clients < 1 || seconds < 1 || rate < 0
          || rate > clients * 1000 || rate > 0 && wrk == null) {
        ctx.err().println("--migrations must be at least 100, --vms 2 to 60000, --days at least 2, --clients and "
            + "--seconds at least 1, --rate (with --wrk) at most 1000 per client");
        return ExitCodes.USAGE;
      }
      if (wrk != null && !Files.isExecutable(wrk)) {
        ctx.err().println("--wrk " + wrk + " is not an executable (apt-get install wrk)");
        return ExitCodes.USAGE;
      }
      Path dir = dataDir != null ? dataDir : Files.createTempDirectory("stunwatch-bench-api-");
      try {
        ApiBenchmark.Result r = new ApiBenchmark(
            new ApiBenchmark.Settings(migrations, vms, days, clients,
                Duration.ofSeconds(seconds), dir, wrk, twoInstances, rate), ctx.out()).run();
        double base = r.latencies().get(0).p99Ms();
        ctx.out().printf("%n%,d migrations stored (loaded in %d s), %s%n%n| request | requests | body | p50 | p99 "
            + "| p99 / baseline p99 | same bytes from memory: p50, p99 | p99 / floor p99 |%n"
            + "|---|---|---|---|---|---|---|---|%n", r.migrations(), r.loadTime().toSeconds(), clients
            + (wrk != null ? " connections of wrk, each request kind alone" : " in-JVM clients, round robin")
            + (rate > 0 ? String.format(", %,d requests/s", rate) : ""));
        for (var l : r.latencies()) {
          ctx.out().printf("| `%s` | %,d | %s | %.1f ms | %.1f ms | %.1f | %s | %s |%n", l.request(), l.requests(),
              l.bytes() > 0 ? String.format("%,d B", l.bytes()) : "", l.p50Ms(), l.p99Ms(), l.p99Ms() / base,
              l.floor() == null ? "" : String.format("%.1f ms, %.1f ms", l.floor().p50Ms(), l.floor().p99Ms()),
              l.floor() == null ? "" : String.format("%.1f", l.p99Ms() / l.floor().p99Ms()));
        }
        var byId = r.latencies().stream().filter(l -> l.request().equals(ApiBenchmark.BY_ID)).findFirst();
        var byIdTwo = r.latencies().stream().filter(l -> l.request().startsWith(ApiBenchmark.BY_ID + " ("))
            .findFirst();
        if (byId.isPresent() && byIdTwo.isPresent()) {
          ctx.out().printf("%n%s p99 with two instances / with one: %.2f%n", ApiBenchmark.BY_ID,
              byIdTwo.get().p99Ms() / byId.get().p99Ms());
        }
        ctx.out().flush();
        return ExitCodes.OK;
      } finally {
        if (dataDir == null) {
          deleteTree(dir);
        }
      }
    }
  }

  /** {@code stunwatch bench fleet}. */
  @Command(name = "fleet", mixinStandardHelpOptions = true,
      description = {"A simulated fleet of N GPU VMs live at 1 Hz (GPU, RDMA and training-throughput samples, the "
          + "demo's load patterns, a migration of each VM about every two hours) through a real 'stunwatch api' "
          + "process (processor and API, its own JVM) on an embedded broker in this one. After the warm-up, while the "
          + "fleet keeps sending: the processor's heap live set after a full GC and its RSS, its state directory, "
          + "changelog bytes per second, /metrics render time and size, the latency of /health (the baseline), "
          + "/api/migrations?vm=, /api/vms/{vm}/load and 24 h of annotations under wrk, alert latency, and the "
          + "restart after kill -9: time to /ready and to the first output record.",
          "Prints a markdown table for docs/performance.md."})
  static final class Fleet implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--vms", defaultValue = "1000", description = "GPU VMs (default ${DEFAULT-VALUE}).")
    int vms;

    @Option(names = "--warmup-seconds", defaultValue = "300", description = "How long the fleet runs before the "
        + "measurements (default ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--seconds", defaultValue = "20", description = "Measured load of each request kind, after 5 s "
        + "unmeasured (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--clients", defaultValue = "50", description = "Connections of wrk (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--history", defaultValue = "0", description = "Migrations of the same VMs over the past days, "
        + "through the topology before the live fleet starts (default ${DEFAULT-VALUE}).")
    int history;

    @Option(names = "--partitions", defaultValue = "6", description = "Partitions of every topic "
        + "(default ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--threads", defaultValue = "2", description = "The processor's stream threads, "
        + "process.threads (default ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--heap", defaultValue = "3g", description = "The processor's -Xmx (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--sample-store", defaultValue = "memory", description = "Where the processor keeps the "
        + "per-second history, process.sample-store: memory or rocksdb (default ${DEFAULT-VALUE}).")
    String sampleStore;

    @Option(names = "--wrk", paramLabel = "PATH", defaultValue = "/usr/bin/wrk", description = "wrk (Debian "
        + "package wrk; default ${DEFAULT-VALUE}).")
    Path wrk;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Working directory (default: a new temporary "
        + "one, deleted afterwards).")
    Path dataDir;

    @Option(names = "--failover", description = "Instead of the measurements above: two processor instances with "
        + "process.standby-replicas=1 share the fleet; after the warm-up one is killed (kill -9), and the time until "
        + "the other answers every VM and is ready is measured, with the changelog records it restored.")
    boolean failover;

    Fleet(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      if (vms < 10 || vms > 100_000 || warmupSeconds < 30 || seconds < 1 || clients < 1 || history < 0
          || partitions < 1 || partitions > 64 || threads < 1 || threads > 64 || !heap.matches("\\d+[mg]")
          || !sampleStore.matches("memory|rocksdb")) {
        ctx.err().println("--vms must be 10 to 100000, --warmup-seconds at least 30, --seconds and --clients at "
            + "least 1, --history at least 0, --partitions and --threads 1 to 64, --heap like 3g or 512m, "
            + "--sample-store memory or rocksdb");
        return ExitCodes.USAGE;
      }
      if (!Files.isExecutable(wrk)) {
        ctx.err().println("--wrk " + wrk + " is not an executable (apt-get install wrk)");
        return ExitCodes.USAGE;
      }
      Path dir = dataDir != null ? dataDir : Files.createTempDirectory("stunwatch-bench-fleet-");
      try {
        FleetBenchmark.Settings settings = new FleetBenchmark.Settings(vms, Duration.ofSeconds(warmupSeconds),
            Duration.ofSeconds(seconds), clients, history, partitions, threads, heap, sampleStore, dir, wrk);
        if (failover) {
          ctx.out().print(FleetFailover.table(new FleetFailover(settings, ctx.out()).run()));
          ctx.out().flush();
          return ExitCodes.OK;
        }
        FleetBenchmark.Result r = new FleetBenchmark(settings, ctx.out()).run();
        ctx.out().print(FleetBenchmark.table(r, clients));
        ctx.out().flush();
        return ExitCodes.OK;
      } finally {
        if (dataDir == null) {
          deleteTree(dir);
        }
      }
    }
  }

  /** {@code stunwatch bench accuracy}. */
  @Command(name = "hosts", mixinStandardHelpOptions = true,
      description = {"A real 'stunwatch collect hosts' process (its own JVM) reading N simulated ESXi hosts over SSH, "
          + "all served by one Apache MINA SSHD server in this JVM, each printing 'nvidia-smi vgpu -q -l' blocks of "
          + "V vGPUs every interval, to an embedded broker. A baseline pass reads one host, then the measured pass N: "
          + "each warms up, then measures the collector's CPU, every host's newest reading's age each second, and "
          + "its heap live set after a full GC.",
          "Prints a markdown table for docs/performance.md."})
  static final class Hosts implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--hosts", defaultValue = "500", description = "Simulated hosts (default ${DEFAULT-VALUE}).")
    int hosts;

    @Option(names = "--vgpus", defaultValue = "4", description = "vGPUs a host (default ${DEFAULT-VALUE}).")
    int vgpus;

    @Option(names = "--interval-seconds", defaultValue = "5", description = "Each host's -l "
        + "(default ${DEFAULT-VALUE}).")
    int intervalSeconds;

    @Option(names = "--warmup-seconds", defaultValue = "60", description = "Before each pass's measurement "
        + "(default ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--seconds", defaultValue = "120", description = "Each pass's measurement "
        + "(default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--heap", defaultValue = "512m", description = "The collector's -Xmx (default ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Working directory (default: a new temporary "
        + "one, deleted afterwards).")
    Path dataDir;

    Hosts(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      if (hosts < 1 || hosts > 5000 || vgpus < 0 || vgpus > 64 || intervalSeconds < 1 || warmupSeconds < 10
          || seconds < 10 || !heap.matches("\\d+[mg]")) {
        ctx.err().println("--hosts must be 1 to 5000, --vgpus 0 to 64, --interval-seconds at least 1, "
            + "--warmup-seconds and --seconds at least 10, --heap like 512m");
        return ExitCodes.USAGE;
      }
      Path dir = dataDir != null ? dataDir : Files.createTempDirectory("stunwatch-bench-hosts-");
      try {
        HostsBenchmark.Settings s = new HostsBenchmark.Settings(hosts, vgpus, Duration.ofSeconds(intervalSeconds),
            Duration.ofSeconds(warmupSeconds), Duration.ofSeconds(seconds), heap, dir);
        ctx.out().print(HostsBenchmark.table(s, new HostsBenchmark(s, ctx.out()).run()));
        ctx.out().flush();
        return ExitCodes.OK;
      } finally {
        if (dataDir == null) {
          deleteTree(dir);
        }
      }
    }
  }

  @Command(name = "accuracy", mixinStandardHelpOptions = true,
      description = {"How close the stun forecasts come, by the API's own backtest (GET /api/stun-time/accuracy): "
          + "for each site law, a whole demo (embedded broker, collectors' parsers, processor, API) runs through "
          + "--history as fast as this machine allows; each past migration with a vmware.log stun is then forecast "
          + "from the stuns before it. VMware's published figure is scored on the same migrations, as the baseline.",
          "Prints a markdown table for docs/performance.md."})
  static final class Accuracy implements Callable<Integer> {
    private final LaunchContext ctx;

    @Option(names = "--law", paramLabel = "A+B/GiB", split = ",", defaultValue = "0+2/GiB,4+0.8/GiB",
        description = "Stun laws, one site each: A s plus B s per GiB of framebuffer used, ±15 %% (default "
            + "${DEFAULT-VALUE}: VMware's vSphere 7 figure, then a site with a fixed overhead and faster links).")
    List<String> laws;

    @Option(names = "--vms", defaultValue = "32", description = "GPU VMs per site (default ${DEFAULT-VALUE}).")
    int vms;

    @Option(names = "--history", defaultValue = "6h", description = "Simulated history per site (default "
        + "${DEFAULT-VALUE}).")
    Duration history;

    @Option(names = "--migration-every", defaultValue = "30s", description = "One migration this often, on average "
        + "(default ${DEFAULT-VALUE}).")
    Duration migrationEvery;

    @Option(names = "--speed", defaultValue = "240", description = "Simulated seconds per real second (default "
        + "${DEFAULT-VALUE}).")
    double speed;

    @Option(names = "--seed", defaultValue = "1", description = "The fleet's seed (default ${DEFAULT-VALUE}).")
    long seed;

    Accuracy(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      List<StunLaw> parsed = new ArrayList<>();
      try {
        for (String l : laws) {
          parsed.add(StunLaw.parse(l));
        }
      } catch (IllegalArgumentException e) {
        ctx.err().println("--law: " + e.getMessage());
        return ExitCodes.USAGE;
      }
      Path dir = Files.createTempDirectory("stunwatch-bench-accuracy-");
      try {
        var results = new AccuracyBenchmark(new AccuracyBenchmark.Settings(parsed, vms, history, migrationEvery,
            speed, seed, dir), ctx.out()).run();
        ctx.out().print(AccuracyBenchmark.table(results));
        ctx.out().flush();
        return ExitCodes.OK;
      } finally {
        deleteTree(dir);
      }
    }
  }

  /** Deletes a benchmark's temporary working directory. */
  static void deleteTree(Path dir) throws IOException {
    try (var paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
