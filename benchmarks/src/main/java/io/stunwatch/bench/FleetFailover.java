package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.launcher.sim.FleetScenario;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code bench fleet --failover}: two processor instances ({@code stunwatch api}) share a live fleet, one is killed,
 * and what the other takes over is measured. A run of its own, beside {@link FleetBenchmark}'s measurements.
 */
public final class FleetFailover {

  private static final String APPLICATION_ID = FleetBenchmark.APPLICATION_ID;

  private final FleetBenchmark.Settings settings;
  private final PrintWriter log;
  private final String token = "fleet-" + Long.toHexString(new Random().nextLong()) + "-token";
  private final FleetApi api = new FleetApi(token);

  public FleetFailover(FleetBenchmark.Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  /** The figures of a failover run ({@link #run}). */
  public record FailoverResult(int vms, double everyVmAnsweredS, double readyS, long restoredRecords,
      long standbyRecords, long changelogBytes) {
  }

  /**
   * Two processor instances ({@code stunwatch api}, {@code process.standby-replicas=1}, the default
   * {@code process.session-timeout}) share the live fleet; after the warm-up one is killed ({@code kill -9}) while
   * the fleet keeps sending. Measured from the kill: the time until the other answers {@code /api/vms/{vm}/load}
   * for every VM (each sweep asks them all; the first whole sweep without a failure ends it; its standbys answer
   * until the tasks move), until it runs every task and is ready, and the changelog records it restored into the
   * tasks it took over.
   */
  public FailoverResult run() throws Exception {
    Path dir = settings.dir();
    Path tokenFile = dir.resolve("api-token");
    Files.writeString(tokenFile, token);
    int[] ports = {FleetApi.freePort(), FleetApi.freePort()};
    BrokerConfig bc = new BrokerConfig(dir.resolve("broker"), "localhost", 0, 0, settings.partitions(), true);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(bc)) {
      String bootstrap = broker.bootstrapServers();
      List<ProductJvm> instances = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          instances.add(ProductJvm.start(settings.heap(), Map.of(
              "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
              "STUNWATCH_API_TOKEN_FILE", tokenFile.toString(),
              "STUNWATCH_API_PORT", String.valueOf(ports[i]),
              "STUNWATCH_PROCESS_APPLICATION_ID", APPLICATION_ID,
              "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state-" + (i + 1)).toString(),
              "STUNWATCH_PROCESS_INSTANCE_ID", APPLICATION_ID + "-" + (i + 1),
              "STUNWATCH_PROCESS_THREADS", String.valueOf(settings.threads()),
              "STUNWATCH_PROCESS_SAMPLE_STORE", settings.sampleStore(),
              "STUNWATCH_PROCESS_STANDBY_REPLICAS", "1"), dir.resolve("processor-" + (i + 1) + ".log"), "api"));
        }
        String survivor = "http://127.0.0.1:" + ports[1];
        api.awaitReady("http://127.0.0.1:" + ports[0], Duration.ofMinutes(3));
        api.awaitReady(survivor, Duration.ofMinutes(3));
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        long every = Math.max(1, Duration.ofHours(2).toSeconds() / settings.vms());
        FleetScenario fleet = new FleetScenario(new FleetScenario.Settings(11, settings.vms(),
            Math.max(2, settings.vms() / 8), start, settings.warmup().plus(Duration.ofMinutes(10)),
            Duration.ofSeconds(every)), 1_000_000_000L);
        FleetGenerator gen = new FleetGenerator(fleet, bootstrap);
        gen.start();
        try {
          log.printf("%,d VMs live at 1 Hz on two instances with a standby each; warming up for %d s%n",
              settings.vms(), settings.warmup().toSeconds());
          log.flush();
          gen.awaitUntil(System.nanoTime() + settings.warmup().toNanos());
          List<String> paths = fleet.vms().stream().map(v -> "/api/vms/" + v.id() + "/load").toList();
          if (!api.answersAll(survivor, paths)) {
            throw new IllegalStateException("before the kill, the survivor-to-be did not answer every VM");
          }
          long restoredBefore = api.restored(survivor, "active");
          long standby = api.restored(survivor, "standby");
          long changelog = BrokerDisk.changelogBytes(dir.resolve("broker"), APPLICATION_ID).values().stream().mapToLong(Long::longValue).sum();
          Path survivorLog = dir.resolve("processor-2.log");
          long rebalancesBefore = rebalances(survivorLog);
          instances.get(0).kill();
          long killed = System.nanoTime();
          long deadline = killed + TimeUnit.MINUTES.toNanos(10);
          while (!api.answersAll(survivor, paths)) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("the survivor did not answer every VM within 10 minutes");
            }
            Thread.sleep(50);
          }
          double answered = (System.nanoTime() - killed) / 1e9;
          // then the group moves the killed instance's tasks to the survivor (process.session-timeout, a rebalance)
          while (rebalances(survivorLog) <= rebalancesBefore) {
            if (System.nanoTime() > deadline) {
              throw new IllegalStateException("the survivor did not take the tasks over within 10 minutes");
            }
            Thread.sleep(50);
          }
          api.awaitReady(survivor, Duration.ofMinutes(10));
          double ready = (System.nanoTime() - killed) / 1e9;
          return new FailoverResult(settings.vms(), answered, ready, api.restored(survivor, "active") - restoredBefore,
              standby, changelog);
        } finally {
          gen.stop();
        }
      } finally {
        for (ProductJvm c : instances) {
          c.kill();
        }
      }
    }
  }

  /** How many times the processor logging to {@code log} came back to RUNNING from a rebalance. */
  private static long rebalances(Path log) throws IOException {
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(l -> l.contains("Stream processor REBALANCING -> RUNNING")).count();
    }
  }

  /** The figures of a failover run as markdown. */
  public static String table(FailoverResult r) {
    return String.format("%n%,d VMs at 1 Hz on two instances, each with a standby of the other's tasks, one killed%n%n"
        + "| figure | value |%n|---|---|%n"
        + "| kill -9 to every VM answered by the survivor (`/api/vms/{vm}/load`) | %.1f s |%n"
        + "| kill -9 to the survivor running every task and ready (after `process.session-timeout` and a rebalance) "
        + "| %.1f s |%n"
        + "| changelog records the survivor restored into the tasks it took over | %,d |%n"
        + "| baseline: changelog records its standbys had read before the kill | %,d |%n"
        + "| changelogs on the broker at the kill | %,.0f MiB |%n",
        r.vms(), r.everyVmAnsweredS(), r.readyS(), r.restoredRecords(), r.standbyRecords(),
        r.changelogBytes() / 1048576.0);
  }
}
