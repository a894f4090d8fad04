package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
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
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
      double cpuSecondsPerThousand, Map<String, Double> changelogBytesPerSecByStore) {
  }

  /** The processor's {@code process.application-id}, the prefix of its internal topics. */
  private static final String APPLICATION_ID = "bench-fleet";

  private final Settings settings;
  private final PrintWriter log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  /** The API's port, the same for every start of the processor. */
  private int port;
  private final String token = "fleet-" + Long.toHexString(new Random().nextLong()) + "-token";

  public FleetBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  public Result run() throws Exception {
    Path dir = settings.dir();
    Path tokenFile = dir.resolve("api-token");
    Files.writeString(tokenFile, token);
    port = freePort();
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
      Child processor = Child.start(env, settings.heap(), dir.resolve("processor-1.log"));
      try {
        awaitReady(base, Duration.ofMinutes(3));
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
        Generator gen = new Generator(fleet, bootstrap);
        AlertWatch alerts = new AlertWatch(bootstrap);
        gen.start();
        alerts.start();
        try {
          log.printf("%,d VMs live at 1 Hz; warming up for %d s%n", settings.vms(), settings.warmup().toSeconds());
          log.flush();
          sleepUntil(System.nanoTime() + settings.warmup().toNanos(), gen);
          long sent0 = gen.sent.get();
          long t0 = System.nanoTime();
          Map<String, Long> changelog0 = changelogBytes(dir.resolve("broker"));
          long input0 = inputBytes(dir.resolve("broker"));
          double cpu0 = cpuSeconds(processor.pid());
          // Alert latency under the fleet's load alone: the request load below shares the cores.
          alerts.measure(Instant.now(), Instant.now().plusSeconds(60));
          Thread.sleep(60_000);
          double secs = (System.nanoTime() - t0) / 1e9;
          long sentInWindow = gen.sent.get() - sent0;
          double achieved = sentInWindow / secs;
          Map<String, Double> changelogRates = new TreeMap<>();
          changelogBytes(dir.resolve("broker")).forEach((store, bytes) ->
              changelogRates.put(store, (bytes - changelog0.getOrDefault(store, 0L)) / secs));
          double changelogRate = changelogRates.values().stream().mapToDouble(Double::doubleValue).sum();
          double inputRate = (inputBytes(dir.resolve("broker")) - input0) / secs;
          double cpuPerThousand = (cpuSeconds(processor.pid()) - cpu0) / (sentInWindow / 1000.0);

          long[] heap = heapAndRss(processor.pid());
          long state = size(dir.resolve("state"));
          double[] metrics = metrics(base);
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
          processor = Child.start(env, settings.heap(), dir.resolve("processor-2.log"));
          awaitReady(base, Duration.ofMinutes(10));
          double ready = (System.nanoTime() - killed) / 1e9;
          // Records the killed process committed may still be on their way for a moment; the new JVM takes
          // seconds to start, so the first arrival a second after the kill is the new process's.
          long after = killed + TimeUnit.SECONDS.toNanos(1);
          long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
          while (Double.isNaN(alerts.firstOutputAfter(after)) && System.nanoTime() < deadline) {
            Thread.sleep(20);
          }
          double firstOutput = alerts.firstOutputAfter(after) + 1.0;
          gen.stop();
          return new Result(settings.vms(), offered, achieved, raw, heap[0], heap[1], state, changelogRate,
              metrics[0], (long) metrics[1], api, alertLatency, ready, firstOutput, historyLoad, gen.behindMillis,
              settings.sampleStore(), inputRate, cpuPerThousand, changelogRates);
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
      long n = listed(base, now.minus(length).minusSeconds(1), now.plusSeconds(1));
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

  /**
   * Sends the fleet in real time: each second's records when that second comes, as collectors would. Counts what
   * it sent, and how far it fell behind.
   */
  private static final class Generator implements Runnable {
    private final FleetScenario fleet;
    private final String bootstrap;
    private final AtomicLong sent = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private volatile long behindMillis;
    private volatile Throwable failed;
    private Thread thread;

    Generator(FleetScenario fleet, String bootstrap) {
      this.fleet = fleet;
      this.bootstrap = bootstrap;
    }

    void start() {
      thread = new Thread(this, "fleet-generator");
      thread.setDaemon(true);
      thread.start();
    }

    void stop() throws InterruptedException {
      stop.set(true);
      if (thread != null) {
        thread.join(30_000);
      }
    }

    @Override
    public void run() {
      try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
          ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
        fleet.run(new FleetScenario.Sink() {
          long second = Long.MIN_VALUE;

          @Override
          public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
            if (stop.get()) {
              throw new Stopped();
            }
            long s = at.getEpochSecond();
            if (s != second) {
              second = s;
              long wait = at.toEpochMilli() - System.currentTimeMillis();
              if (wait > 0) {
                sleep(wait);
              } else {
                behindMillis = Math.max(behindMillis, -wait);
              }
            }
            p.send(topic, key, value, at);
            sent.incrementAndGet();
          }
        });
      } catch (Stopped e) {
        // asked to stop
      } catch (RuntimeException e) {
        failed = e;
      }
    }
  }

  /** Ends the generator's pass through the scenario. */
  private static final class Stopped extends RuntimeException {
    Stopped() {
      super(null, null, false, false);
    }
  }

  /**
   * Reads the alerts, migrations and impacts topics (read_committed) from their ends: the FIRING alerts' latency
   * from their migration's start, and the arrival of every output record.
   */
  private static final class AlertWatch implements Runnable, AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
    private volatile Instant measureFrom = Instant.MAX;
    private volatile Instant measureTo = Instant.MIN;
    private Thread thread;

    AlertWatch(String bootstrap) {
      Properties p = new Properties();
      p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
      p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-fleet-watch-" + System.nanoTime());
      consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      consumer.subscribe(List.of(Topics.MIGRATION_ALERTS.name(), Topics.MIGRATIONS.name(),
          Topics.MIGRATION_IMPACTS.name()));
    }

    void start() {
      thread = new Thread(this, "fleet-alert-watch");
      thread.setDaemon(true);
      thread.start();
    }

    /** Measures the alerts of migrations that start within {@code [from, to)}. */
    void measure(Instant from, Instant to) {
      measureFrom = from;
      measureTo = to;
    }

    @Override
    public void run() {
      while (!stop.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long now = System.nanoTime();
          arrivals.add(now);
          if (r.topic().equals(Topics.MIGRATION_ALERTS.name()) && r.value() != null) {
            MigrationAlert a = Topics.MIGRATION_ALERTS.valueSerde().decode(r.value());
            Instant wall = Instant.now();
            if (a.state() == MigrationAlert.AlertState.FIRING && !a.raisedAt().isBefore(measureFrom)
                && a.raisedAt().isBefore(measureTo)) {
              latencies.add(Duration.between(a.raisedAt(), wall).toNanos() / 1e6);
            }
          }
        }
      }
      consumer.close();
    }

    Latency latency() {
      List<Double> l = new ArrayList<>(latencies);
      Collections.sort(l);
      if (l.isEmpty()) {
        return new Latency("alert", 0, Double.NaN, Double.NaN);
      }
      return new Latency("alert", l.size(), l.get(l.size() / 2), l.get((int) Math.min(l.size() - 1,
          Math.round(l.size() * 0.99))));
    }

    double firstOutputAfter(long nanos) {
      synchronized (arrivals) {
        return arrivals.stream().filter(t -> t > nanos).findFirst().map(t -> (t - nanos) / 1e9).orElse(Double.NaN);
      }
    }

    @Override
    public void close() throws InterruptedException {
      stop.set(true);
      if (thread != null) {
        thread.join(10_000);
      }
    }
  }

  /** The stunwatch command, run as its own JVM: {@code java -Xmx<heap> -jar <this jar> api}. */
  private static final class Child {
    private final Process process;

    private Child(Process process) {
      this.process = process;
    }

    static Child start(Map<String, String> env, String heap, Path logFile) throws IOException {
      Path jar = Path.of(URI.create(FleetBenchmark.class.getProtectionDomain().getCodeSource().getLocation()
          .toString()));
      if (!Files.isRegularFile(jar)) {
        throw new IllegalStateException("run the fleet benchmark from the stunwatch jar, not from " + jar);
      }
      String java = ProcessHandle.current().info().command().orElse("java");
      ProcessBuilder pb = new ProcessBuilder(java, "-Xmx" + heap, "-jar", jar.toString(), "api")
          .redirectErrorStream(true).redirectOutput(logFile.toFile());
      pb.environment().putAll(env);
      Process p = pb.start();
      // Never left running when this JVM goes, however it goes.
      Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "fleet-child-reaper"));
      return new Child(p);
    }

    long pid() {
      return process.pid();
    }

    /** SIGKILL: no shutdown hook, no flush, no commit. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private void awaitReady(String base, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/ready"))
            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the processor was not ready within " + timeout);
  }

  private long listed(String base, Instant from, Instant to) throws Exception {
    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/migrations?limit=1&count=true&from="
        + from.toEpochMilli() + "&to=" + to.toEpochMilli())).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.discarding());
    return r.statusCode() == 200 ? Long.parseLong(r.headers().firstValue("X-Total-Count").orElse("0")) : 0;
  }

  /** {@code jcmd GC.run}, then the heap used and the RSS, bytes. */
  static long[] heapAndRss(long pid) throws Exception {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = Pattern.compile("used (\\d+)K").matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info:\n" + info);
    }
    long heap = Long.parseLong(m.group(1)) * 1024;
    String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
    Matcher rss = Pattern.compile("VmRSS:\\s+(\\d+) kB").matcher(status);
    return new long[] {heap, rss.find() ? Long.parseLong(rss.group(1)) * 1024 : -1};
  }

  private static String jcmd(long pid, String command) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", String.valueOf(pid),
        command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + " failed:\n" + out);
    }
    return out;
  }

  /**
   * The bytes of every changelog in the broker's log directories, by store: a partition's directory is
   * {@code <application id>-<store>-changelog-<partition>}.
   */
  private static Map<String, Long> changelogBytes(Path brokerDir) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(brokerDir)) {
      s.filter(p -> p.getParent() != null && p.getParent().getFileName().toString().contains("-changelog-")
          && p.getFileName().toString().endsWith(".log")).forEach(p -> {
            String dirName = p.getParent().getFileName().toString();
            String store = dirName.substring(0, dirName.lastIndexOf("-changelog-"));
            store = store.startsWith(APPLICATION_ID + "-") ? store.substring(APPLICATION_ID.length() + 1) : store;
            out.merge(store, sizeOf(p), Long::sum);
          });
    }
    return out;
  }

  /** The bytes of every partition of the sample topics (the fleet's input) in the broker's log directories. */
  private static long inputBytes(Path brokerDir) throws IOException {
    List<String> inputs = List.of(Topics.GPU_SAMPLES.name(), Topics.RDMA_SAMPLES.name(),
        Topics.THROUGHPUT_SAMPLES.name());
    try (Stream<Path> s = Files.walk(brokerDir)) {
      return s.filter(p -> p.getParent() != null && inputs.stream().anyMatch(t -> p.getParent().getFileName()
          .toString().startsWith(t + "-")) && p.getFileName().toString().endsWith(".log"))
          .mapToLong(FleetBenchmark::sizeOf).sum();
    }
  }

  /** The CPU time (user and system) the process has used, seconds, from {@code /proc/<pid>/stat}. */
  private static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields 14 and 15 of stat(5), counted after the command's closing parenthesis: utime, stime in clock ticks
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(FleetBenchmark::sizeOf).sum();
    }
  }

  private static long sizeOf(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return 0; // a segment deleted while walking
    }
  }

  /** The median of ten {@code /metrics} renders, milliseconds, and the size of the last, bytes. */
  private double[] metrics(String base) throws Exception {
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
    return new double[] {ms.get(ms.size() / 2), bytes};
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

  /** The figures of a failover run ({@link #failover}). */
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
  public FailoverResult failover() throws Exception {
    Path dir = settings.dir();
    Path tokenFile = dir.resolve("api-token");
    Files.writeString(tokenFile, token);
    int[] ports = {freePort(), freePort()};
    BrokerConfig bc = new BrokerConfig(dir.resolve("broker"), "localhost", 0, 0, settings.partitions(), true);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(bc)) {
      String bootstrap = broker.bootstrapServers();
      List<Child> instances = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          instances.add(Child.start(Map.of(
              "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
              "STUNWATCH_API_TOKEN_FILE", tokenFile.toString(),
              "STUNWATCH_API_PORT", String.valueOf(ports[i]),
              "STUNWATCH_PROCESS_APPLICATION_ID", APPLICATION_ID,
              "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state-" + (i + 1)).toString(),
              "STUNWATCH_PROCESS_INSTANCE_ID", APPLICATION_ID + "-" + (i + 1),
              "STUNWATCH_PROCESS_THREADS", String.valueOf(settings.threads()),
              "STUNWATCH_PROCESS_SAMPLE_STORE", settings.sampleStore(),
              "STUNWATCH_PROCESS_STANDBY_REPLICAS", "1"), settings.heap(), dir.resolve("processor-" + (i + 1)
              + ".log")));
        }
        String survivor = "http://127.0.0.1:" + ports[1];
        awaitReady("http://127.0.0.1:" + ports[0], Duration.ofMinutes(3));
        awaitReady(survivor, Duration.ofMinutes(3));
        Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
        long every = Math.max(1, Duration.ofHours(2).toSeconds() / settings.vms());
        FleetScenario fleet = new FleetScenario(new FleetScenario.Settings(11, settings.vms(),
            Math.max(2, settings.vms() / 8), start, settings.warmup().plus(Duration.ofMinutes(10)),
            Duration.ofSeconds(every)), 1_000_000_000L);
        Generator gen = new Generator(fleet, bootstrap);
        gen.start();
        try {
          log.printf("%,d VMs live at 1 Hz on two instances with a standby each; warming up for %d s%n",
              settings.vms(), settings.warmup().toSeconds());
          log.flush();
          sleepUntil(System.nanoTime() + settings.warmup().toNanos(), gen);
          List<String> paths = fleet.vms().stream().map(v -> "/api/vms/" + v.id() + "/load").toList();
          if (!answersAll(survivor, paths)) {
            throw new IllegalStateException("before the kill, the survivor-to-be did not answer every VM");
          }
          long restoredBefore = restored(survivor, "active");
          long standby = restored(survivor, "standby");
          long changelog = changelogBytes(dir.resolve("broker")).values().stream().mapToLong(Long::longValue).sum();
          Path survivorLog = dir.resolve("processor-2.log");
          long rebalancesBefore = rebalances(survivorLog);
          instances.get(0).kill();
          long killed = System.nanoTime();
          long deadline = killed + TimeUnit.MINUTES.toNanos(10);
          while (!answersAll(survivor, paths)) {
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
          awaitReady(survivor, Duration.ofMinutes(10));
          double ready = (System.nanoTime() - killed) / 1e9;
          return new FailoverResult(settings.vms(), answered, ready, restored(survivor, "active") - restoredBefore,
              standby, changelog);
        } finally {
          gen.stop();
        }
      } finally {
        for (Child c : instances) {
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

  /** Whether every path answers 200 on {@code base}, asked one after another. */
  private boolean answersAll(String base, List<String> paths) throws InterruptedException {
    for (String path : paths) {
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  /** {@code stunwatch_processor_restored_records_total} of one {@code task} kind, every store together. */
  private long restored(String base, String task) throws Exception {
    String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
        .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile("(?m)^stunwatch_processor_restored_records_total\\{[^}]*task=\"" + task
        + "\"[^}]*} ([0-9.eE+]+)$").matcher(metrics);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return (long) sum;
  }

  /** The figures of a failover run as markdown. */
  public static String failoverTable(FailoverResult r) {
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

  private static void sleepUntil(long nanos, Generator gen) throws InterruptedException {
    while (System.nanoTime() < nanos) {
      if (gen.failed != null) {
        throw new IllegalStateException("the fleet generator failed", gen.failed);
      }
      Thread.sleep(Math.min(1000, Math.max(1, (nanos - System.nanoTime()) / 1_000_000)));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopped();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
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
    return b.toString();
  }
}
