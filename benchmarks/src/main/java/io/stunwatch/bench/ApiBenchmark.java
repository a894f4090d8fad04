package io.stunwatch.bench;

import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.processor.ProcessorConfig;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;

/**
 * The issue #6 API benchmark, in one run: a simulated fleet's migration history (by default 100,000 migrations of
 * 1,000 VMs over 90 days) goes through the real topology into the stores of one {@code stunwatch api} instance;
 * then concurrent clients (50 by default) ask, round robin, for
 *
 * <ol>
 *   <li>{@code GET /health}: the baseline, the same HTTP, authentication and event loop without any store read;</li>
 *   <li>{@code GET /api/migrations?vm=<a random VM id>}: one VM's migrations;</li>
 *   <li>{@code GET /api/grafana/annotations?from=<now-24h>&to=<now>}: the last day's migrations as annotations;</li>
 *   <li>{@code GET /api/migrations/{id}}: one migration's record, by its id, of up to 1,000 ids.</li>
 * </ol>
 *
 * With two instances, both run from the start, each with half the tasks: the baseline and the record by id are
 * measured against the first, which holds half the migrations and asks the other for the rest; then the second
 * stops, and every kind is measured against the first alone. A record's id cycles through up to 1,000, so after the
 * unmeasured first seconds each is one the instance has served before (it knows the VM's key).
 *
 * Each figure is reported with its ratio to the baseline of the same run.
 */
public final class ApiBenchmark {

  /**
   * How the benchmark runs.
   *
   * @param wrk          the {@code wrk} executable to drive the load from outside the JVM (each kind alone,
   *                     {@code clients} connections), or null for the in-JVM client (the kinds round robin)
   * @param twoInstances first with a second instance in the application, {@code /health} and one migration by id
   *                     against the first: what asking the instance that holds a migration costs
   * @param rate         with wrk, the requests per second over all its connections (each connection waits
   *                     {@code clients / rate} between requests): a load both setups serve, whose latency is what a
   *                     request costs rather than how long it queues on a saturated machine; 0 for as fast as they
   *                     answer
   */
  public record Settings(int migrations, int vms, int days, int clients, Duration load, Path dir, Path wrk,
      boolean twoInstances, int rate) {
  }

  /**
   * Latency percentiles of one request kind, milliseconds.
   *
   * @param bytes the mean response body, bytes
   * @param floor the same load on a server that answers a body of that size from memory (same Vert.x, event loops
   *              and wrk; no store read, rendering or authentication), or null where not measured
   */
  public record Latency(String request, long requests, double p50Ms, double p99Ms, long bytes, Latency floor) {
  }

  /** The figures of a run. */
  public record Result(int migrations, Duration loadTime, List<Latency> latencies) {
  }

  /** The most 5 s warm-up passes of a request kind. */
  private static final int MAX_WARMUPS = 6;

  private final Settings settings;
  private final PrintWriter log;

  public ApiBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  public Result run() throws Exception {
    Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    Duration length = Duration.ofDays(settings.days());
    long every = Math.max(1, length.toSeconds() / settings.migrations());
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(5, settings.vms(), 16, now.minus(length),
        length, Duration.ofSeconds(every)));
    int planned = scenario.plans().size();
    String token = "bench-" + Long.toHexString(new Random().nextLong()) + "-token";
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(settings.dir()
        .resolve("broker")))) {
      keepHistory(broker.bootstrapServers());
      KafkaClientConfig kafka = new KafkaClientConfig(broker.bootstrapServers());
      ApiConfig api = new ApiConfig("127.0.0.1", 0, "127.0.0.1", token, true, 1000, Duration.ofDays(366), null,
          null);
      ProcessorConfig processor = ProcessorConfig.defaults().withIdentity("bench-api", settings.dir()
          .resolve("state"));
      try (ApiApplication app = ApiApplication.start(api, processor, kafka, Clock.systemUTC());
          Closer second = new Closer(settings.twoInstances() ? ApiApplication.start(api, processor.withIdentity(
              "bench-api", settings.dir().resolve("state-2")), kafka, Clock.systemUTC()) : null)) {
        long t0 = System.nanoTime();
        AtomicLong sent = new AtomicLong();
        try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            broker.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG, 20))) {
          scenario.runMigrationsOnly(new FleetScenario.Sink() {
            @Override
            public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
              p.send(topic, key, value, at);
              sent.incrementAndGet();
            }
          });
        }
        flushPrintf("%,d migrations of %,d VMs over %d days: %,d records sent%n", planned, settings.vms(),
            settings.days(), sent.get());
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + app.port();
        Instant first = now.minus(length).minusSeconds(1);
        ApiQueries.awaitListed(http, token, first, now.plusSeconds(1), planned, this::flushPrintf,
            second.app() == null ? List.of(base) : List.of(base, "http://127.0.0.1:" + second.app().port()));
        Duration loadTime = Duration.ofNanos(System.nanoTime() - t0);
        flushPrintf("all %,d migrations listed by the API after %d s%n", planned, loadTime.toSeconds());
        List<FleetScenario.Vm> vms = scenario.vms();
        String day = "from=" + now.minus(Duration.ofHours(24)).toEpochMilli() + "&to=" + now.toEpochMilli();
        List<String> ids = ApiQueries.migrationIds(http, base, token, first, now.plusSeconds(1));
        List<Latency> two = List.of();
        if (second.app() != null) {
          // both instances from the start, each with half the tasks: a second that joins a loaded application
          // gets warm-up copies first, and its tasks only at the next probing rebalance (Kafka's 10 minutes)
          two = measure(http, base, token, List.of("/health", BY_ID), vms, ids, " (2 instances)");
          long t1 = System.nanoTime();
          second.close();
          ApiQueries.awaitListed(http, token, first, now.plusSeconds(1), planned, this::flushPrintf, List.of(base));
          flushPrintf("the second instance left; the first answers every migration alone after %d s%n",
              Duration.ofNanos(System.nanoTime() - t1).toSeconds());
        }
        List<String> kinds = List.of("/health", "/api/migrations?vm=", "/api/grafana/annotations?" + day, BY_ID);
        List<Latency> latencies = new ArrayList<>(measure(http, base, token, kinds, vms, ids, ""));
        latencies.addAll(two);
        for (Latency l : latencies) {
          flushPrintf("%s: p50 %.1f ms, p99 %.1f ms over %,d requests%n", l.request(), l.p50Ms(), l.p99Ms(),
              l.requests());
        }
        return new Result(planned, loadTime, latencies);
      }
    }
  }

  private List<Latency> measure(HttpClient http, String base, String token, List<String> kinds,
      List<FleetScenario.Vm> vms, List<String> ids, String suffix) throws Exception {
    return settings.wrk() != null ? measureWithWrk(base, token, kinds, vms, ids, suffix)
        : measureInJvm(http, base, token, kinds, vms, ids, suffix);
  }

  /** The second instance, closed once: early, to measure the first alone, or with the run. */
  private static final class Closer implements AutoCloseable {
    private ApiApplication app;

    Closer(ApiApplication app) {
      this.app = app;
    }

    ApiApplication app() {
      return app;
    }

    @Override
    public void close() throws Exception {
      if (app != null) {
        app.close();
        app = null;
      }
    }
  }

  /** The request kind of one migration's record by id: each request takes the next of the ids. */
  static final String BY_ID = "/api/migrations/{id}";

  /** The paths a kind cycles through: every VM's, every id's, or the kind itself. */
  private static List<String> paths(String kind, List<FleetScenario.Vm> vms, List<String> ids) {
    if (kind.endsWith("vm=")) {
      return vms.stream().map(v -> kind + v.id()).toList();
    }
    if (kind.equals(BY_ID)) {
      return ids.stream().map(id -> "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8)).toList();
    }
    return List.of(kind);
  }

  /** A kind's name in the report. */
  private static String name(String kind) {
    return kind.equals(BY_ID) ? kind : kind.replaceAll("\\?.*", "") + (kind.contains("vm=") ? "?vm=…" : "");
  }

  /**
   * Months of history are sent in minutes, with their original timestamps: the catalog topics' time retention
   * (days) would have the broker delete them before the processor reads them. Live, they arrive as they happen.
   */
  static void keepHistory(String bootstrap) throws Exception {
    try (Admin admin = Admin.create(Map.of(
        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      Map<ConfigResource, Collection<
          AlterConfigOp>> ops = new HashMap<>();
      for (var t : Topics.ALL) {
        ops.put(new ConfigResource(
            ConfigResource.Type.TOPIC, t.name()), List.of(
            new AlterConfigOp(new ConfigEntry(
                "retention.ms", "-1"), AlterConfigOp.OpType.SET)));
      }
      admin.incrementalAlterConfigs(ops).all().get();
    }
  }

  /** {@code clients} threads, each sending the kinds round robin for the load time, after a 5 s warm-up. */
  private List<Latency> measureInJvm(HttpClient http, String base, String token, List<String> kinds,
      List<FleetScenario.Vm> vms, List<String> ids, String suffix) throws Exception {
    List<List<Long>> nanos = new ArrayList<>();
    kinds.forEach(k -> nanos.add(Collections.synchronizedList(new ArrayList<>())));
    ExecutorService pool = Executors.newFixedThreadPool(settings.clients());
    long warmupEnd = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    long end = warmupEnd + settings.load().toNanos();
    List<Future<?>> clients = new ArrayList<>();
    for (int c = 0; c < settings.clients(); c++) {
      int client = c;
      clients.add(pool.submit(() -> {
        Random r = new Random(client);
        int i = client;
        while (System.nanoTime() < end) {
          int kind = i++ % kinds.size();
          List<String> paths = paths(kinds.get(kind), vms, ids);
          String path = paths.get(r.nextInt(paths.size()));
          long t = System.nanoTime();
          HttpResponse<byte[]> resp = http.send(HttpRequest.newBuilder(URI.create(base + path))
              .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofByteArray());
          long took = System.nanoTime() - t;
          if (resp.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + resp.statusCode());
          }
          if (t > warmupEnd) {
            nanos.get(kind).add(took);
          }
        }
        return null;
      }));
    }
    for (Future<?> f : clients) {
      f.get();
    }
    pool.shutdown();
    List<Latency> out = new ArrayList<>();
    for (int k = 0; k < kinds.size(); k++) {
      List<Long> l = new ArrayList<>(nanos.get(k));
      Collections.sort(l);
      long p99 = l.get((int) Math.min(l.size() - 1, Math.round(l.size() * 0.99)));
      out.add(new Latency(name(kinds.get(k)) + suffix, l.size(), l.get(l.size() / 2) / 1e6, p99 / 1e6, 0, null));
    }
    return out;
  }

  /**
   * Each kind alone under {@code wrk -t2 -c<clients> --latency}, 5 s unmeasured first (more while the JIT is
   * busy): the load comes from a small C program instead of 50 Java threads in the measured JVM. A VM kind cycles
   * through every VM's URL. Each kind with a body is then measured again against its transport floor
   * ({@link #floor}).
   */
  private List<Latency> measureWithWrk(String base, String token, List<String> kinds, List<FleetScenario.Vm> vms,
      List<String> ids, String suffix) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    List<Latency> out = new ArrayList<>();
    for (String kind : kinds) {
      List<String> paths = paths(kind, vms, ids);
      String script = "wrk" + suffix.replaceAll("[^0-9a-z]", "") + "-" + out.size();
      Latency measured = wrkLatency(base, token, paths, name(kind) + suffix, script);
      long bytes = meanBody(http, base, token, paths);
      Latency floor = kind.equals("/health") ? null : floor(token, bytes, "floor-" + script);
      out.add(new Latency(measured.request(), measured.requests(), measured.p50Ms(), measured.p99Ms(), bytes, floor));
    }
    return out;
  }

  private Latency wrkLatency(String base, String token, List<String> paths, String name, String scriptName)
      throws Exception {
    Path script = settings.dir().resolve(scriptName + ".lua");
    Files.writeString(script, "wrk.headers[\"Authorization\"] = \"Bearer " + token + "\"\n"
        + "local paths = {" + paths.stream().map(p -> "\"" + p + "\"").collect(Collectors
            .joining(",")) + "}\n"
        + "local i = 0\n"
        + "request = function()\n  i = i + 1\n  return wrk.format(\"GET\", paths[(i % #paths) + 1])\nend\n"
        + (settings.rate() > 0 ? "delay = function()\n  return " + Math.max(1, Math.round(settings.clients() * 1000.0
            / settings.rate())) + "\nend\n" : ""));
    // 5 s unmeasured, again until a pass leaves the JIT compilers quiet (at most 30 s): in one run C2 took half
    // a core for the first half of a 20 s measured pass of the store reads, and that run's p99 was 1.6 times
    // another's.
    int warmups = 0;
    Jit.Pass<String> warmup;
    do {
      warmup = Jit.during(() -> wrk(base, script, Duration.ofSeconds(5)));
    } while (!warmup.settled() && ++warmups < MAX_WARMUPS);
    Jit.Pass<String> measured = Jit.during(() -> wrk(base, script, settings.load()));
    String report = measured.result();
    if (report.contains("Non-2xx or 3xx responses")) {
      throw new IllegalStateException(name + ": wrk saw error responses:\n" + report);
    }
    log.printf("%s: compilers used %.2f of a core during the measured pass%n", name, measured.compilerShare());
    log.flush();
    return new Latency(name, Long.parseLong(group(report, "(\\d+) requests in")), millis(report, "50"),
        millis(report, "99"), 0, null);
  }

  /** The mean body of up to 50 of {@code paths}, spread over the list. */
  private static long meanBody(HttpClient http, String base, String token, List<String> paths) throws Exception {
    int n = Math.min(50, paths.size());
    long sum = 0;
    for (int i = 0; i < n; i++) {
      HttpResponse<byte[]> r = http.send(HttpRequest.newBuilder(URI.create(base + paths.get(i * paths.size() / n)))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofByteArray());
      sum += r.body().length;
    }
    return sum / n;
  }

  /**
   * The transport floor of a kind: the same wrk load against a Vert.x server in this JVM, with as many event loops
   * as the API, that answers every request with {@code bytes} of JSON it holds in memory. On a small machine, where
   * wrk shares the cores, moving the bytes is a large part of a big answer's latency; the API's figure over this
   * one is what its store reads and rendering add.
   */
  private Latency floor(String token, long bytes, String scriptName) throws Exception {
    StringBuilder body = new StringBuilder("[");
    while (body.length() + 9 < bytes) {
      body.append(body.length() == 1 ? "" : ",").append("{\"n\":0}");
    }
    Buffer payload = Buffer.buffer(body.append(']').toString());
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Vertx vertx = Vertx.vertx();
    try {
      vertx.deployVerticle(() -> new VerticleBase() {
        @Override
        public io.vertx.core.Future<?> start() {
          return vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1")
              .setPort(port)).requestHandler(req -> req.response().putHeader("Content-Type", "application/json")
                  .end(payload)).listen();
        }
      }, new DeploymentOptions().setInstances(Runtime.getRuntime().availableProcessors()))
          .await(30, TimeUnit.SECONDS);
      return wrkLatency("http://127.0.0.1:" + port, token, List.of("/"), bytes + " bytes from memory", scriptName);
    } finally {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  private String wrk(String base, Path script, Duration length) throws Exception {
    return wrk(settings.wrk(), settings.clients(), base, script, length);
  }

  /** {@code wrk -t2 -c<clients> --latency -s <script>} against {@code base} for {@code length}; its report. */
  static String wrk(Path wrk, int clients, String base, Path script, Duration length) throws Exception {
    Process p = new ProcessBuilder(wrk.toString(), "-t", "2", "-c", String.valueOf(clients),
        "-d", length.toSeconds() + "s", "--latency", "-s", script.toString(), base).redirectErrorStream(true).start();
    String report = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IllegalStateException("wrk failed:\n" + report);
    }
    return report;
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("no '" + regex + "' in wrk's report:\n" + text);
    }
    return m.group(1);
  }

  /** A percentile of wrk's latency distribution ({@code 99%   1.02ms}) in milliseconds. */
  static double millis(String report, String percentile) {
    Matcher m = Pattern.compile("(?m)^\\s+" + percentile
        + "%\\s+([\\d.]+)(us|ms|s)\\s*$").matcher(report);
    if (!m.find()) {
      throw new IllegalStateException("no " + percentile + "% line in wrk's report:\n" + report);
    }
    double v = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "us" -> v / 1000;
      case "ms" -> v;
      default -> v * 1000;
    };
  }

  private void flushPrintf(String format, Object... args) {
    log.printf(format, args);
    log.flush();
  }
}
