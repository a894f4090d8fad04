package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.TypedProducer;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The fleet-scale benchmark: a simulated fleet of N GPU VMs, live at 1 Hz (each VM's GPU sample every second, RDMA
 * counters of the VMs that train or serve, training throughput of those that train, the demo's load patterns and a
 * migration of each VM about every two hours), through the real topology of a real {@code stunwatch api} process,
 * on an embedded broker in this JVM. The processor runs as its own JVM, so that its heap, its RSS and a
 * {@code kill -9} are its own.
 *
 * <p>After the fleet has run for the warm-up (windows rolled, stores settled) it measures, while the fleet keeps
 * sending:
 * <ol>
 *   <li>the offered and the achieved record rate, and the broker's raw produce rate of the same records;</li>
 *   <li>the processor's heap live set (after a full GC, {@code jcmd GC.run}) and its RSS;</li>
 *   <li>its state directory, and the bytes its changelogs grow by per second;</li>
 *   <li>{@code /metrics}: render time and size;</li>
 *   <li>with {@code wrk} ({@code clients} connections, each kind alone): {@code /health} (the baseline),
 *       {@code /api/migrations?vm=}, {@code /api/vms/{vm}/load} and 24 h of Grafana annotations;</li>
 *   <li>alert latency: from each under-load migration's start (sent when it happens) to its FIRING alert read
 *       (read_committed);</li>
 *   <li>restart: {@code kill -9}, then the same command on the same state: time to {@code /ready} and to the first
 *       output record written after it.</li>
 * </ol>
 * With a history, that many migrations of the same VMs over the past days go through the topology first.
 */
public final class FleetBenchmark {

  /**
   * What to run.
   *
   * @param vms        simulated GPU VMs
   * @param warmup     how long the fleet runs before measuring
   * @param load       how long each request kind is measured
   * @param clients    concurrent connections of wrk
   * @param history    migrations sent through the topology before the live fleet starts (0 for none)
   * @param partitions partitions of every topic
   * @param threads    the processor's stream threads
   * @param heap       the processor's {@code -Xmx}
   * @param sampleStore where the processor keeps the per-second history ({@code process.sample-store})
   * @param dir        working directory
   * @param wrk        the wrk executable
   */
  public record Settings(int vms, Duration warmup, Duration load, int clients, int history, int partitions,
      int threads, String heap, String sampleStore, Path dir, Path wrk) {
  }

  /** A latency distribution, milliseconds. */
  public record Latency(String request, long count, double p50Ms, double p99Ms) {
  }

  /** The figures of a run. */
  public record Result(int vms, double offeredPerSec, double achievedPerSec, double rawProducePerSec,
      long heapLiveBytes, long rssBytes, long stateBytes, double changelogBytesPerSec, double metricsMs,
      long metricsBytes, List<Latency> api, Latency alerts, double restartReadyS, double restartFirstOutputS,
      double historyLoadS, long generatorBehindMs, String sampleStore, double inputBytesPerSec,
      double cpuSecondsPerThousand, Map<String, Double> changelogBytesPerSecByStore, String restartParts) {
  }

  /** The processor's {@code process.application-id}, the prefix of its internal topics. */
  static final String APPLICATION_ID = "bench-fleet";

  private final Settings settings;
  private final PrintWriter log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /** The API's port, the same for every start of the processor. */
  private int port;
  private final String token = "fleet-" + Long.toHexString(new Random().nextLong()) + "-token";
  private final FleetApi apiClient = new FleetApi(token);

  public FleetBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  public Result run() throws Exception {
    Path dir = settings.dir();
    Path tokenFile = dir.resolve("api-token");
    Files.writeString(tokenFile, token);
    port = FleetApi.freePort();
    String base = "http://127.0.0.1:" + port;
    BrokerConfig bc = new BrokerConfig(dir.resolve("broker"), "localhost", 0, 0, settings.partitions(), true);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(bc)) {
      String bootstrap = broker.bootstrapServers();
      Map<String, String> env = Map.of(
          "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
          "STUNWATCH_API_TOKEN_FILE", tokenFile.toString(),
          "STUNWATCH_API_PORT", String.valueOf(port),
          "STUNWATCH_PROCESS_APPLICATION_ID", APPLICATION_ID,
          "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state").toString(),
          "STUNWATCH_PROCESS_INSTANCE_ID", "bench-fleet-1",
          "STUNWATCH_PROCESS_THREADS", String.valueOf(settings.threads()),
          "STUNWATCH_PROCESS_SAMPLE_STORE", settings.sampleStore());
      ProductJvm processor = ProductJvm.start(settings.heap(), env, dir.resolve("processor-1.log"), "api");
      try {
        apiClient.awaitReady(base, Duration.ofMinutes(3));
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        double historyLoad = 0;
        if (settings.history() > 0) {
          ApiBenchmark.keepHistory(bootstrap); // months old: the topics' time retention would delete them
          historyLoad = history(bootstrap, base, now);
        }
        // The live fleet: started two seconds ahead (of now, after any history), so that its first second is sent on
        // time.
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        Duration length = settings.warmup().plus(settings.load().multipliedBy(5)).plus(Duration.ofMinutes(10));
        long every = Math.max(1, Duration.ofHours(2).toSeconds() / settings.vms());
        FleetScenario fleet = new FleetScenario(new FleetScenario.Settings(11, settings.vms(),
            Math.max(2, settings.vms() / 8), start, length, Duration.ofSeconds(every)), 1_000_000_000L);
        FleetGenerator gen = new FleetGenerator(fleet, bootstrap);
        AlertWatch alerts = new AlertWatch(bootstrap);
        gen.start();
        alerts.start();
        try {
          log.printf("%,d VMs live at 1 Hz; warming up for %d s%n", settings.vms(), settings.warmup().toSeconds());
          log.flush();
          gen.awaitUntil(System.nanoTime() + settings.warmup().toNanos());
          long sent0 = gen.sent();
          long t0 = System.nanoTime();
          Map<String, Long> changelog0 = BrokerDisk.changelogBytes(dir.resolve("broker"), APPLICATION_ID);
          long input0 = BrokerDisk.inputBytes(dir.resolve("broker"));
          double cpu0 = ProductJvm.cpuSeconds(processor.pid());
          // Alert latency under the fleet's load alone: the request load below shares the cores.
          alerts.measure(Instant.now(), Instant.now().plusSeconds(60));
          Thread.sleep(60_000);
          double secs = (System.nanoTime() - t0) / 1e9;
          long sentInWindow = gen.sent() - sent0;
          double achieved = sentInWindow / secs;
          Map<String, Double> changelogRates = new TreeMap<>();
          BrokerDisk.changelogBytes(dir.resolve("broker"), APPLICATION_ID).forEach((store, bytes) ->
              changelogRates.put(store, (bytes - changelog0.getOrDefault(store, 0L)) / secs));
          double changelogRate = changelogRates.values().stream().mapToDouble(Double::doubleValue).sum();
          double inputRate = (BrokerDisk.inputBytes(dir.resolve("broker")) - input0) / secs;
          double cpuPerThousand = (ProductJvm.cpuSeconds(processor.pid()) - cpu0) / (sentInWindow / 1000.0);

          ProductJvm.Memory memory = ProductJvm.memory(processor.pid());
          long state = BrokerDisk.size(dir.resolve("state"));
          MetricsRender metrics = metrics(base);
          List<Latency> api = new ArrayList<>();
          String vm = fleet.vms().get(0).id();
          String day = "from=" + Instant.now().minus(Duration.ofHours(24)).toEpochMilli() + "&to="
              + Instant.now().toEpochMilli();
          List<String> vmPaths = fleet.vms().stream().limit(2000).map(v -> "/api/migrations?vm=" + v.id()).toList();
          List<String> loadPaths = fleet.vms().stream().limit(2000).map(v -> "/api/vms/" + v.id() + "/load")
              .toList();
          api.add(wrk("/health", List.of("/health")));
          api.add(wrk("/api/migrations?vm=…", vmPaths));
          api.add(wrk("/api/vms/{vm}/load", loadPaths));
          api.add(wrk("/api/grafana/annotations (24 h)", List.of("/api/grafana/annotations?" + day)));
          Latency alertLatency = alerts.latency();
          double offered = fleet.samplesPerSecond();
          double raw = rawProduceRate(bootstrap, fleet);
          // Restart: kill -9 while the fleet keeps sending, then the same command on the same state.
          processor.kill();
          long killed = System.nanoTime();
          processor = ProductJvm.start(settings.heap(), env, dir.resolve("processor-2.log"), "api");
          apiClient.awaitReady(base, Duration.ofMinutes(10));
          double ready = (System.nanoTime() - killed) / 1e9;
          // Records the killed process committed may still be on their way for a moment; the new JVM takes
          // seconds to start, so the first arrival a second after the kill is the new process's.
          long after = killed + TimeUnit.SECONDS.toNanos(1);
          long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
          while (Double.isNaN(alerts.firstOutputAfter(after)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
          }
          double firstOutput = alerts.firstOutputAfter(after) + 1.0;
          String parts = ProductJvm.startupLine(dir.resolve("processor-2.log"));
          gen.stop();
          return new Result(settings.vms(), offered, achieved, raw, memory.heapBytes(), memory.rssBytes(), state, changelogRate,
              metrics.medianMs(), metrics.bytes(), api, alertLatency, ready, firstOutput, historyLoad, gen.behindMillis(),
              settings.sampleStore(), inputRate, cpuPerThousand, changelogRates, parts);
        } finally {
          gen.stop();
          alerts.close();
        }
      } finally {
        processor.kill();
      }
    }
  }

  /** Sends {@code history} migrations of the fleet's VMs over the past days, vCenter side only; waits until listed. */
  private double history(String bootstrap, String base, Instant now) throws Exception {
    Duration length = Duration.ofDays(Math.max(2, Math.min(90, settings.history() / Math.max(1, settings.vms() / 4))));
    long every = Math.max(1, length.toSeconds() / settings.history());
    FleetScenario past = new FleetScenario(new FleetScenario.Settings(11, settings.vms(),
        Math.max(2, settings.vms() / 8), now.minus(length), length, Duration.ofSeconds(every)));
    int planned = past.plans().size();
    long t0 = System.nanoTime();
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
      past.runMigrationsOnly(new FleetScenario.Sink() {
        @Override
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          p.send(topic, key, value, at);
        }
      });
    }
    log.printf("history: %,d migrations over %d days sent in %d s%n", planned, length.toDays(),
        (System.nanoTime() - t0) / 1_000_000_000);
    log.flush();
    long seen = -1;
    long stuck = System.nanoTime();
    while (true) {
      long n = apiClient.listed(base, now.minus(length).minusSeconds(1), now.plusSeconds(1));
      if (n >= planned) {
        break;
      }
      if (n != seen) {
        seen = n;
        stuck = System.nanoTime();
        log.printf("  %,d of %,d listed%n", n, planned);
        log.flush();
      } else if (System.nanoTime() - stuck > TimeUnit.MINUTES.toNanos(2)) {
        throw new IllegalStateException("history stuck at " + n + " of " + planned);
      }
      Thread.sleep(5000);
    }
    double s = (System.nanoTime() - t0) / 1e9;
    log.printf("history: all %,d migrations listed after %.0f s%n", planned, s);
    log.flush();
    return s;
  }

  /** The median of ten {@code /metrics} renders, milliseconds, and the size of the last, bytes. */
  private record MetricsRender(double medianMs, long bytes) {
  }

  private MetricsRender metrics(String base) throws Exception {
    List<Double> ms = new ArrayList<>();
    long bytes = 0;
    for (int i = 0; i < 10; i++) {
      long t = System.nanoTime();
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofByteArray());
      ms.add((System.nanoTime() - t) / 1e6);
      bytes = r.body().length;
      if (i == 0) {
        Files.write(settings.dir().resolve("metrics.txt"), r.body()); // kept with the run, to see what is large
      }
    }
    Collections.sort(ms);
    return new MetricsRender(ms.get(ms.size() / 2), bytes);
  }

  /** One kind alone under wrk, 5 s unmeasured, then the load time; the paths round robin. */
  private Latency wrk(String name, List<String> paths) throws Exception {
    Path script = settings.dir().resolve("wrk-" + Math.abs(name.hashCode()) + ".lua");
    Files.writeString(script, "wrk.headers[\"Authorization\"] = \"Bearer " + token + "\"\n"
        + "local paths = {" + paths.stream().map(p -> "\"" + p + "\"").collect(Collectors.joining(",")) + "}\n"
        + "local i = 0\n"
        + "request = function()\n  i = i + 1\n  return wrk.format(\"GET\", paths[(i % #paths) + 1])\nend\n");
    String base = "http://127.0.0.1:" + port;
    ApiBenchmark.wrk(settings.wrk(), settings.clients(), base, script, Duration.ofSeconds(5));
    String report = ApiBenchmark.wrk(settings.wrk(), settings.clients(), base, script, settings.load());
    if (report.contains("Non-2xx or 3xx responses")) {
      throw new IllegalStateException(name + ": wrk saw error responses:\n" + report);
    }
    Matcher n = Pattern.compile("(\\d+) requests in").matcher(report);
    return new Latency(name, n.find() ? Long.parseLong(n.group(1)) : 0, ApiBenchmark.millis(report, "50"),
        ApiBenchmark.millis(report, "99"));
  }

  /**
   * The raw baseline: how fast this broker takes one minute of the fleet's records from a plain producer (lz4, no
   * transactions) into a scratch topic, in records per second.
   */
  private static double rawProduceRate(String bootstrap, FleetScenario fleet) throws Exception {
    try (Admin admin = Admin.create(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic("bench-fleet-raw", 3, (short) 1)))
          .all().get(60, TimeUnit.SECONDS);
    }
    long n = (long) (fleet.samplesPerSecond() * 60);
    byte[] value = new byte[300];
    long t0 = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> p =
        new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap, ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
            new ByteArraySerializer(),
            new ByteArraySerializer())) {
      for (long i = 0; i < n; i++) {
        p.send(new ProducerRecord<>("bench-fleet-raw",
            Long.toString(i % 10_000).getBytes(StandardCharsets.UTF_8), value));
      }
      p.flush();
    }
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  /** The figures as markdown: one table of this run, each figure beside its baseline. */
  public static String table(Result r, int clients) {
    StringBuilder b = new StringBuilder();
    double health = r.api().get(0).p99Ms();
    b.append(String.format("%n%,d VMs at 1 Hz, per-second history in %s%s%n%n| figure | value | baseline (same run) "
        + "|%n|---|---|---|%n", r.vms(), r.sampleStore(), r.historyLoadS() > 0 ? String.format(", after a history loaded in %.0f s", r.historyLoadS()) : ""));
    b.append(String.format("| samples sent / s (offered) | %,.0f (%,.0f offered; generator at worst %,d ms behind) "
        + "| raw produce of the same volume: %,.0f rec/s |%n", r.achievedPerSec(), r.offeredPerSec(),
        r.generatorBehindMs(), r.rawProducePerSec()));
    b.append(String.format("| sample topics written / s | %,.0f B/s (%.0f B per VM-second) | |%n",
        r.inputBytesPerSec(), r.inputBytesPerSec() / r.vms()));
    b.append(String.format("| processor CPU per 1,000 samples | %.3f s (%.2f of a core) | |%n",
        r.cpuSecondsPerThousand(), r.cpuSecondsPerThousand() * r.achievedPerSec() / 1000));
    b.append(String.format("| processor heap live set (after full GC) | %.0f MiB | |%n", r.heapLiveBytes() / 1048576.0));
    b.append(String.format("| processor RSS | %.0f MiB | |%n", r.rssBytes() / 1048576.0));
    b.append(String.format("| state directory | %.0f MiB | |%n", r.stateBytes() / 1048576.0));
    b.append(String.format("| changelog bytes / s | %,.0f B/s (%.0f B per VM-second) | |%n",
        r.changelogBytesPerSec(), r.changelogBytesPerSec() / r.vms()));
    r.changelogBytesPerSecByStore().entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .forEach(e -> b.append(String.format("| … of which `%s` | %.1f B per VM-second | |%n", e.getKey(),
            e.getValue() / r.vms())));
    b.append(String.format("| `/metrics` render | %.0f ms, %,d bytes | `/health` p99 %.1f ms |%n", r.metricsMs(),
        r.metricsBytes(), health));
    for (Latency l : r.api()) {
      b.append(String.format("| `%s` (%d connections) | p50 %.1f ms, p99 %.1f ms (%,d requests) | %s |%n",
          l.request(), clients, l.p50Ms(), l.p99Ms(), l.count(), l == r.api().get(0) ? "baseline"
              : String.format("%.1f × `/health` p99", l.p99Ms() / health)));
    }
    b.append(String.format("| alert latency, start to FIRING read, 60 s of the fleet alone | p50 %.0f ms, p99 %.0f ms "
        + "(%d alerts) | |%n",
        r.alerts().p50Ms(), r.alerts().p99Ms(), r.alerts().count()));
    b.append(String.format("| restart after kill -9: to /ready | %.1f s | |%n", r.restartReadyS()));
    b.append(String.format("| restart after kill -9: to the first output record | %.1f s | |%n",
        r.restartFirstOutputS()));
    b.append(String.format("| restart after kill -9: where it went (the restarted processor's log) | %s | |%n",
        r.restartParts()));
    return b.toString();
  }
}
