package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Keys;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import io.stunwatch.processor.StunwatchTopology;
import io.stunwatch.processor.node.LiveCommits;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The issue #5 benchmark, in one run on one embedded broker, so that every figure has a baseline from the same
 * machine at the same moment:
 *
 * <ol>
 *   <li>raw: a plain consumer and producer copy the recorded fleet from the input topics to another topic
 *       (lz4, no transactions) — the most the broker and clients can do here;</li>
 *   <li>passthrough: a Kafka Streams application with the processor's settings (exactly_once_v2, lz4) copying the
 *       same records;</li>
 *   <li>topology: the Stunwatch topology processing the same records;</li>
 *   <li>alert latency: the topology, caught up, fed GPU samples at a fixed rate while migrations start on loaded
 *       VMs; from a start event's send to its FIRING alert's arrival at a read_committed consumer.</li>
 * </ol>
 */
public final class ProcessorBenchmark {

  /**
   * What to run.
   *
   * @param records       records in the recorded fleet (throughput phases)
   * @param rate          samples per second in the latency phase
   * @param latencyLength how long the latency phase runs
   * @param dir           working directory (broker data, state)
   * @param threads       stream threads of every Streams phase ({@code process.threads})
   * @param rounds        measured rounds: each measures one pass of every throughput phase, back to back
   * @param partitions    partitions of every topic, the catalog's and the raw and passthrough outputs alike: the
   *                      tasks a Streams phase has (one per partition of each sub-topology) to share among its
   *                      threads
   * @param streamsConfig Kafka Streams settings over the processor's own, for the passthrough, the topology and the
   *                      latency phase alike (checked by {@link StreamsOverrides}); empty for the processor's own
   * @param maxWarmups    the most unmeasured passes of a phase: each phase warms up until a pass leaves the JIT
   *                      compilers quiet ({@link Jit#SETTLED_SHARE}) or it has run this many
   */
  public record Settings(int records, int rate, Duration latencyLength, Path dir, int threads, int rounds,
      int partitions, Map<String, String> streamsConfig, int maxWarmups) {
    public Settings {
      streamsConfig = Map.copyOf(streamsConfig);
      if (rounds < 1) {
        throw new IllegalArgumentException("rounds must be at least 1, not " + rounds);
      }
      if (maxWarmups < 1) {
        throw new IllegalArgumentException("maxWarmups must be at least 1, not " + maxWarmups);
      }
      if (partitions < 1) {
        throw new IllegalArgumentException("partitions must be at least 1, not " + partitions);
      }
    }
  }

  /**
   * The figures. Each phase's rate is its steady state: the records after the first tenth, over the time they took;
   * for a Streams phase, after its group's last rebalance too.
   * The whole-pass rates also count each phase's start-up (joining its group; for Streams, opening its stores),
   * which is a one-off cost and for the topology (about 4 s) a large part of a short pass.
   */
  public record Result(long records, Throughput raw, Throughput passthrough, Throughput topology,
      int alerts, double alertP50Ms, double alertP99Ms, double achievedRate, int topologyWarmups,
      double topologyCompilerShare, double cpuToPassthrough) {

    public double rawPerSec() {
      return raw.steadyPerSec();
    }

    public double passthroughPerSec() {
      return passthrough.steadyPerSec();
    }

    public double topologyPerSec() {
      return topology.steadyPerSec();
    }

    public double topologyToRaw() {
      return topologyPerSec() / rawPerSec();
    }

    public double passthroughToRaw() {
      return passthroughPerSec() / rawPerSec();
    }
  }

  /**
   * One pass's throughput.
   *
   * @param steadyPerSec   records after the first tenth of the pass (and, for Streams, its last rebalance), per
   *                       second of the time they took
   * @param wholePerSec    all records, per second from the start of the pass (start-up included)
   * @param startupSeconds from the start of the pass to its first record done
   * @param threadBusy     the CPU time of the stream threads after the first tenth, as a share of that time's wall
   *                       time (of one core): near 1 means the thread, not the broker, set the pace; NaN for raw
   * @param allThreadsPerSec records per second while every stream thread had input left ({@link #allThreadsAtWork});
   *                       NaN for raw, and for a pass without half a second of it
   */
  public record Throughput(double steadyPerSec, double wholePerSec, double startupSeconds, double threadBusy,
      double allThreadsPerSec) {

    /**
     * The stream threads' CPU per record in steady state, in microseconds (their busy share over the steady rate);
     * NaN for raw, or when the steady rate is unknown.
     */
    double cpuMicrosPerRecord() {
      return threadBusy / steadyPerSec * 1e6;
    }

    /** The same, with the rate while every stream thread had input left ({@link #allThreadsAtWork}). */
    Throughput withAllThreads(double perSec) {
      return new Throughput(steadyPerSec, wholePerSec, startupSeconds, threadBusy, perSec);
    }

    /**
     * From the marks of a raw pass of {@code n} records, in nanoseconds from its start. The steady rate is NaN,
     * unknown, when the mark of the first tenth already counted every record: a pass too short to measure, not one
     * that did nothing.
     */
    static Throughput of(long n, long firstDoneNanos, long tenthNanos, long doneAtTenth, long endNanos,
        double threadBusy) {
      double steady = doneAtTenth >= n ? Double.NaN : (n - doneAtTenth) / (Math.max(1, endNanos - tenthNanos) / 1e9);
      return new Throughput(steady, n / (Math.max(1, endNanos) / 1e9), firstDoneNanos / 1e9, threadBusy, Double.NaN);
    }

    @Override
    public String toString() {
      String steady = Double.isNaN(steadyPerSec) ? "steady rate unknown: the pass ended within its first tenth "
          + "(more --records)" : String.format("%,.0f records/s steady", steadyPerSec);
      return String.format("%s (%,.0f records/s over the whole pass, %.1f s of it start-up%s%s)",
          steady, wholePerSec, startupSeconds, Double.isNaN(threadBusy) ? ""
              : String.format("; stream threads busy %.2f of a core in steady state", threadBusy),
          Double.isNaN(threadBusy) ? "" : Double.isNaN(allThreadsPerSec)
              ? "; no half second with every stream thread at work" : String.format(
                  "; %,.0f records/s with every stream thread at work", allThreadsPerSec));
    }
  }

  /**
   * Where a stream thread's time went, from Streams' own thread metrics (windowed averages, so the end of the pass):
   * commits block on the broker under exactly-once, and show here when the thread is less than fully busy.
   */
  private static String threadMetrics(KafkaStreams streams) {
    Map<String, Double> m = new TreeMap<>();
    streams.metrics().forEach((name, metric) -> {
      if (name.group().equals("stream-thread-metrics") && metric.metricValue() instanceof Double d
          && Set.of("commit-latency-avg", "commit-rate", "poll-latency-avg", "poll-rate", "punctuate-rate",
              "process-ratio", "commit-ratio", "poll-ratio", "punctuate-ratio", "process-records-avg")
          .contains(name.name())) {
        m.merge(name.name(), d, Double::sum);
      }
    });
    return m.entrySet().stream().map(e -> String.format("%s %.3g", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** The CPU time so far, in nanoseconds, of each live stream thread of application {@code appId}, by its name. */
  private static Map<String, Long> streamThreadCpuNanos(String appId) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      // "<appId>-<uuid>-StreamThread-<n>"; the clients' own threads carry the name after a prefix of their own.
      if (t.getName().startsWith(appId + "-") && t.getName().matches(".*-StreamThread-\\d+")) {
        out.merge(t.getName(), Math.max(0, mx.getThreadCpuTime(t.getId())), Long::sum);
      }
    }
    return out;
  }

  private static long total(Map<String, Long> cpuNanos) {
    return cpuNanos.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Per stream thread: how busy it was from {@code before} to {@code after} (CPU over {@code wallNanos}), how many
   * records it processed in that time ({@code processedBefore} to {@code processedAfter}, from
   * Streams' {@code process-total}) and the tasks it ran, as sub-topology_partition. Why: Streams balances the number of
   * tasks per thread, not each sub-topology's, and a thread holding more tasks of the busiest one would set the pace of
   * a pass while the other waited. This shows whether it did, whether one thread stood idle more than the other, and
   * whether an idle one had records to do (a thread that started its share earlier ends it earlier too).
   */
  private static String threadShares(KafkaStreams streams, Map<String, Long> before, Map<String, Long> after,
      Map<String, Double> processedBefore, Map<String, Double> processedAfter, long wallNanos) {
    List<String> out = new ArrayList<>();
    for (var t : streams.metadataForLocalThreads()) {
      String name = t.threadName();
      double busy = (after.getOrDefault(name, 0L) - before.getOrDefault(name, 0L)) / (double) Math.max(1, wallNanos);
      double processed = processedAfter.getOrDefault(name, Double.NaN) - processedBefore.getOrDefault(name, 0.0);
      out.add(String.format("%s busy %.2f, %,.0f records, tasks %s", shortName(name), busy, processed,
          t.activeTasks().stream().map(m -> m.taskId().toString()).sorted().collect(Collectors.joining(" "))));
    }
    return String.join("; ", out);
  }

  private final Settings settings;
  private final PrintWriter log;

  public ProcessorBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  public Result run() throws Exception {
    Files.createDirectories(settings.dir());
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(settings.dir().resolve(
        "broker")).withPartitions(settings.partitions()))) {
      String bootstrap = broker.bootstrapServers();
      List<ProducerRecord<byte[], byte[]>> fleet = recordedFleet(settings.records());
      flushPrintf("recorded fleet: %,d records%n", fleet.size());
      try (KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
        fleet.forEach(p::send);
        p.flush();
      }
      Set<String> inputs = fleet.stream().map(ProducerRecord::topic).collect(Collectors.toSet());
      createTopic(bootstrap, "bench.raw", settings.partitions());
      createTopic(bootstrap, "bench.passthrough", settings.partitions());

      ProcessorConfig config = ProcessorConfig.defaults().withThreads(settings.threads()).withIdentity(
          "bench-topology", settings.dir().resolve("state"));
      // The inventory is read by a global table, whose consumer commits no group offsets: the topology is done
      // when its stream sources are.
      Set<String> streamSources = new HashSet<>(inputs);
      streamSources.remove(Topics.VM_INVENTORY.name());
      List<PhaseRuns> phases = List.of(
          new PhaseRuns("raw produce+consume", "bench-raw", name -> raw(bootstrap, inputs, fleet.size(), name,
              settings.threads())),
          new PhaseRuns("Streams passthrough", "bench-passthrough", name -> streams(bootstrap,
              passthroughTopology(inputs), name, inputs)),
          new PhaseRuns("topology", "bench-topology", name -> streams(bootstrap, StunwatchTopology.build(config,
              Clock.systemUTC()), name, streamSources)));
      // Every phase runs unmeasured first until a pass leaves the JIT compilers quiet, so that the measured passes
      // show steady state: after one pass, C2 still took 0.2-0.4 of a core through the topology's measured pass on
      // a 2-core machine (most of its code compiles last). What the compilers used in each measured pass is printed.
      for (PhaseRuns phase : phases) {
        phase.warmUp();
      }
      // Then rounds of one measured pass of each phase, back to back, and each phase's figure is its median pass.
      // The broker's disk drifts over a run (its commit markers took 2 to 60 ms a request from run to run, and one
      // raw pass ran at half the speed of the next): a phase measured once, minutes from the others, gave ratios that
      // moved with it.
      for (int round = 1; round <= settings.rounds(); round++) {
        for (PhaseRuns phase : phases) {
          phase.measure(round);
        }
      }
      Phase raw = phases.get(0).median();
      Phase passthrough = phases.get(1).median();
      Phase topology = phases.get(2).median();
      flushPrintf("topology: %.2f of raw in steady state (%.2f over whole passes)%n",
          topology.rate().steadyPerSec() / raw.rate().steadyPerSec(),
          topology.rate().wholePerSec() / raw.rate().wholePerSec());
      double[] cpu = cpuAgainstPassthrough(phases.get(2).results(), phases.get(1).results());
      flushPrintf("topology's stream threads' CPU per record against the passthrough's of the same round: median "
          + "%.2f (every round: %s)%n", median(cpu), Arrays.stream(cpu).mapToObj(x -> String.format(
              "%.2f", x)).collect(Collectors.joining(", ")));
      double allThreads = phases.get(2).medianAllThreads();
      flushPrintf("topology with every stream thread at work: %,.0f records/s, median of the measured passes that had "
          + "half a second of it = %.2f of raw%n", allThreads, allThreads / raw.rate().steadyPerSec());

      // Its own application: the measured pass's member, closed without leaving the group (Streams' default),
      // would otherwise hold the first rebalance for a session timeout.
      AlertLatency latency = alertLatency(bootstrap, config.withIdentity("bench-latency",
          settings.dir().resolve("state-latency")));
      Result r = new Result(fleet.size(), raw.rate(), passthrough.rate(), topology.rate(), latency.alerts(),
          latency.p50Millis(), latency.p99Millis(), latency.achievedRate(), topology.warmups(),
          topology.compilerShare(), median(cpu));
      flushPrintf("alert latency at %,.0f samples/s: p50 %.0f ms, p99 %.0f ms over %d alerts%n", r.achievedRate(),
          r.alertP50Ms(), r.alertP99Ms(), r.alerts());
      return r;
    }
  }

  /** A pass of one phase, by the name (group, application id) it runs under. */
  @FunctionalInterface
  interface PhasePass {
    Throughput run(String name) throws Exception;
  }

  /**
   * One phase's figure: its median measured pass.
   *
   * @param rate          the median pass's throughput (by steady rate)
   * @param warmups       unmeasured passes before the first measured one
   * @param compilerShare the JIT compilers' time during the median pass, as a share of its wall time (of one core)
   */
  record Phase(Throughput rate, int warmups, double compilerShare) {
  }

  /**
   * The most unmeasured passes of a phase by default. The topology's compilers took eight to ten passes to fall
   * under {@link Jit#SETTLED_SHARE} (1.08 of a core in the first, 0.21 in the tenth, 0.08-0.14 in the measured ones
   * after), and it ran 144,267-160,962 rec/s then against 94,561-123,670 after four: with three warm-ups, as before,
   * the topology was measured while C2 still took a quarter of the machine, and raw, whose code is small, was not.
   */
  public static final int DEFAULT_MAX_WARMUPS = 15;

  /** A phase's passes: warmed up first, then measured once a round. */
  private final class PhaseRuns {
    private final String label;
    private final String name;
    private final PhasePass pass;
    private final List<Jit.Pass<Throughput>> measured = new ArrayList<>();
    private int warmups;

    PhaseRuns(String label, String name, PhasePass pass) {
      this.label = label;
      this.name = name;
      this.pass = pass;
    }

    void warmUp() throws Exception {
      Jit.Pass<Throughput> warmup;
      do {
        String warmupName = name + "-warmup-" + ++warmups;
        warmup = Jit.during(() -> pass.run(warmupName));
        // Printed too: whether the warm-ups settle (rate up, compilers down) is what says a measured pass is steady.
        flushPrintf("%s, warm-up %d: %s (compilers used %.2f of a core during it)%n", label, warmups,
            warmup.result(), warmup.compilerShare());
      } while (!warmup.settled() && warmups < settings.maxWarmups());
    }

    void measure(int round) throws Exception {
      Jit.Pass<Throughput> m = Jit.during(() -> pass.run(name + "-" + round));
      measured.add(m);
      flushPrintf("%s, round %d: %s (compilers used %.2f of a core during it)%n", label, round, m.result(),
          m.compilerShare());
    }

    /** Every measured pass's throughput, in round order. */
    List<Throughput> results() {
      return measured.stream().map(Jit.Pass::result).toList();
    }

    /** The median rate with every stream thread at work over the measured passes that had one; NaN if none had. */
    double medianAllThreads() {
      double[] rates = measured.stream().mapToDouble(m -> m.result().allThreadsPerSec())
          .filter(r -> !Double.isNaN(r)).sorted().toArray();
      return rates.length == 0 ? Double.NaN : rates[(rates.length - 1) / 2];
    }

    Phase median() {
      List<Jit.Pass<Throughput>> byRate = new ArrayList<>(measured);
      byRate.sort(Comparator.comparingDouble(m -> m.result().steadyPerSec()));
      Jit.Pass<Throughput> m = byRate.get((byRate.size() - 1) / 2);
      flushPrintf("%s: median of %d: %s (after %d unmeasured pass%s; every pass, records/s: %s)%n", label,
          measured.size(), m.result(), warmups, warmups == 1 ? "" : "es", measured.stream()
              .map(x -> String.format("%,.0f", x.result().steadyPerSec())).collect(Collectors.joining(", ")));
      return new Phase(m.result(), warmups, m.compilerShare());
    }
  }

  /**
   * Per round, the topology's stream-thread CPU per record over the passthrough's: the topology's own cost, with the
   * machine's speed at that moment divided out. On shared 2-core machines both move from run to run (the
   * passthrough's 1.6-2.3 µs a record, the topology's 4.1-7.3 µs), which moves every rate and leaves a
   * change of a tenth unreadable in them; the two passes of a round run back to back. NaN for a round either pass of
   * which has no CPU figure.
   */
  static double[] cpuAgainstPassthrough(List<Throughput> topology, List<Throughput> passthrough) {
    double[] out = new double[Math.min(topology.size(), passthrough.size())];
    for (int i = 0; i < out.length; i++) {
      out[i] = topology.get(i).cpuMicrosPerRecord() / passthrough.get(i).cpuMicrosPerRecord();
    }
    return out;
  }

  /** The median of the known values (NaN left out); NaN when none is known. */
  static double median(double[] values) {
    double[] known = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
    return known.length == 0 ? Double.NaN : known.length % 2 == 1 ? known[known.length / 2]
        : (known[known.length / 2 - 1] + known[known.length / 2]) / 2;
  }

  /** The simulated fleet, encoded once, so that encoding costs no phase anything. */
  static List<ProducerRecord<byte[], byte[]>> recordedFleet(int records) {
    int vms = 64;
    long seconds = Math.max(120, records / (vms * 9 / 4));
    // Recorded: it ends before what the processor takes for live (LiveCommits), as a catch-up's records would, so
    // that no pass commits early for the alerts of its last minutes.
    Instant start = Instant.now().minus(LiveCommits.LIVE_WITHIN).minusSeconds(seconds + 60)
        .truncatedTo(ChronoUnit.SECONDS);
    FleetScenario s = new FleetScenario(new FleetScenario.Settings(1, vms, 8, start, Duration.ofSeconds(seconds),
        Duration.ofSeconds(10)));
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(records + 1000);
    s.run(new FleetScenario.Sink() {
      @Override
      public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
        if (out.size() < records) {
          out.add(new ProducerRecord<>(topic.name(), null, at.toEpochMilli(), topic.encodeKey(key),
              topic.encodeValue(value)));
        }
      }
    });
    return out;
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Map<String, Object> c = new HashMap<>();
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    c.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    c.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
    return new KafkaProducer<>(c, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, String group) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000);
    return new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  private static void createTopic(String bootstrap, String name, int partitions) throws Exception {
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      a.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  /**
   * Plain consume-produce loops over the input topics, as many as the Streams phases have threads, each with its
   * own consumer and producer and its share of the partitions (assigned, not subscribed: no rebalance as the loops
   * join). Why: one loop against two stream threads would credit the topology with the second thread's gain alone.
   */
  private static Throughput raw(String bootstrap, Set<String> inputs, long n, String group, int threads)
      throws Exception {
    Set<TopicPartition> all;
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      all = ends(admin, inputs).keySet();
    }
    AtomicLong seen = new AtomicLong();
    List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    List<Thread> loops = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      int loopIndex = i;
      // Partition k of every topic to loop k mod threads, as Streams spreads its tasks over its threads.
      List<TopicPartition> share = all.stream().filter(tp -> tp.partition() % threads == loopIndex).toList();
      KafkaConsumer<byte[], byte[]> c = consumer(bootstrap, group);
      c.assign(share);
      consumers.add(c);
      Thread loop = new Thread(() -> {
        try (c; KafkaProducer<byte[], byte[]> p = producer(bootstrap)) {
          try {
            while (seen.get() < n) {
              int count = 0;
              for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                p.send(new ProducerRecord<>("bench.raw", null, r.timestamp(), r.key(), r.value()));
                count++;
              }
              seen.addAndGet(count);
            }
          } catch (WakeupException e) {
            // every record is copied: the other loops are done
          }
          p.flush();
          try {
            c.commitSync();
          } catch (WakeupException e) {
            c.commitSync(); // the wake-up came after this loop's last poll, and was meant for it
          }
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }, group + "-loop-" + i);
      loops.add(loop);
      loop.start();
    }
    long first = -1;
    long tenth = -1;
    long atTenth = 0;
    for (long now = seen.get(); now < n && failures.isEmpty(); now = seen.get()) {
      if (first < 0 && now > 0) {
        first = System.nanoTime() - t0;
      }
      if (tenth < 0 && now >= n / 10) {
        tenth = System.nanoTime() - t0;
        atTenth = now;
      }
      LockSupport.parkNanos(200_000);
    }
    consumers.forEach(KafkaConsumer::wakeup); // a loop whose share is done waits in poll
    for (Thread loop : loops) {
      loop.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(group + " failed: " + failures.get(0), failures.get(0));
    }
    long end = System.nanoTime() - t0;
    return Throughput.of(n, first < 0 ? end : first, tenth < 0 ? end : tenth, tenth < 0 ? n : atTenth, end,
        Double.NaN);
  }

  private static Topology passthroughTopology(Set<String> inputs) {
    StreamsBuilder b = new StreamsBuilder();
    b.stream(inputs, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .to("bench.passthrough", Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
    return b.build();
  }

  /** The processor's Streams settings with the run's {@code --streams-config} over them. */
  private Properties streamsProperties(ProcessorConfig config, String bootstrap) {
    return StreamsOverrides.applied(StreamsProcessor.properties(config, new KafkaClientConfig(bootstrap)),
        settings.streamsConfig());
  }

  /**
   * Runs {@code topology} with the processor's settings until its group has committed every input record.
   *
   * <p>Progress is read from Streams' own {@code process-total} of each stream thread, every 10 ms, not from the
   * group's committed offsets: those move only at commits, and at the processor's commit interval (1 s) a pass of a
   * few seconds would be timed to the nearest second. The count includes the records of the topology's own
   * repartition topics (about half a percent here), so a pass is taken as processed once the count reaches the
   * input's size; what the group commits after that (up to an interval) is outside the steady window, as raw's last
   * flush and commit are outside its own.
   */
  private Throughput streams(String bootstrap, Topology topology, String appId,
      Set<String> inputs) throws Exception {
    ProcessorConfig config = ProcessorConfig.defaults().withThreads(settings.threads()).withIdentity(appId,
        settings.dir().resolve("state-" + appId));
    Properties p = streamsProperties(config, bootstrap);
    ProcessCpu cpu = ProcessCpu.self();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        KafkaStreams streams = new KafkaStreams(topology, p)) {
      Map<TopicPartition, Long> ends = ends(admin, inputs);
      long total = ends.values().stream().mapToLong(Long::longValue).sum();
      // Each stream thread registers its metrics when it is built, so the handles hold for the whole pass.
      Map<String, Metric> processTotals = processTotals(streams);
      long t0 = System.nanoTime();
      long first = -1;
      long tenth = -1;
      double atTenth = 0;
      long end = -1;
      double atEnd = 0;
      WaitBreakdown waitsAtTenth = null;
      Map<String, Long> cpuAtTenth = Map.of();
      Map<String, Long> cpuAtEnd = Map.of();
      Map<String, Long> processAtTenth = Map.of();
      Map<String, Long> processAtEnd = Map.of();
      long faultsAtTenth = -1;
      long faultsAtEnd = -1;
      Map<String, Double> processedAtTenth = Map.of();
      // The window starts at the first tenth and after the group's last rebalance: a pass's second stream thread
      // may join after the first has started, and a rebalance inside the window is start-up, not steady state: slow
      // topology passes (main consumers waiting 0.57-0.75 of wall time, against about 0.1) are the ones whose
      // consumers' rebalance count rises after the first tenth.
      AtomicInteger rebalances = new AtomicInteger();
      streams.setStateListener((to, from) -> {
        if (to == KafkaStreams.State.REBALANCING) {
          rebalances.incrementAndGet();
        }
      });
      int rebalancesAtTenth = 0;
      int restarts = 0;
      List<Mark> marks = new ArrayList<>();
      streams.start();
      while (true) {
        long now = System.nanoTime() - t0;
        Mark mark = new Mark(now, processed(processTotals));
        marks.add(mark);
        double sum = mark.total();
        if (first < 0 && sum > 0) {
          first = now;
        }
        if (tenth >= 0 && end < 0 && rebalances.get() != rebalancesAtTenth) {
          tenth = -1;
          restarts++;
        }
        if (tenth < 0 && sum >= total / 10.0 && streams.state() == KafkaStreams.State.RUNNING) {
          tenth = now;
          rebalancesAtTenth = rebalances.get();
          atTenth = sum;
          cpuAtTenth = streamThreadCpuNanos(appId);
          processedAtTenth = mark.processed();
          processAtTenth = cpu.snapshot();
          faultsAtTenth = cpu.minorFaults();
          waitsAtTenth = WaitBreakdown.of(streams);
        }
        if (end < 0 && tenth >= 0 && sum >= total) {
          end = now;
          atEnd = sum;
          cpuAtEnd = streamThreadCpuNanos(appId);
          processAtEnd = cpu.snapshot();
          faultsAtEnd = cpu.minorFaults();
        }
        Map<TopicPartition, Long> done = new HashMap<>();
        admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get()
            .forEach((tp, o) -> done.put(tp, o.offset()));
        if (ends.entrySet().stream().allMatch(e -> done.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
          break;
        }
        if (streams.state() == KafkaStreams.State.ERROR) {
          throw new IllegalStateException(appId + " failed");
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      long committedAll = System.nanoTime() - t0;
      if (end < 0) { // a rebalance to the last, or the count never reached the input's size: no steady window
        end = committedAll;
        tenth = end;
        atTenth = total;
        atEnd = total;
        cpuAtEnd = streamThreadCpuNanos(appId);
        processAtEnd = cpu.snapshot();
        cpuAtTenth = cpuAtEnd;
        processAtTenth = processAtEnd;
        faultsAtEnd = cpu.minorFaults();
        faultsAtTenth = faultsAtEnd;
      }
      double busy = end == tenth ? Double.NaN
          : (total(cpuAtEnd) - total(cpuAtTenth)) / (double) Math.max(1, end - tenth);
      double steady = atEnd <= atTenth ? Double.NaN : (atEnd - atTenth) / (Math.max(1, end - tenth) / 1e9);
      Throughput t = new Throughput(steady, total / (Math.max(1, committedAll) / 1e9), first / 1e9, busy,
          allThreadsAtWork(marks, tenth));
      flushPrintf("  %s stream thread: %s%n", appId, threadMetrics(streams));
      flushPrintf("    rebalances: %d in the pass, %d of them after the first tenth (each restarted the steady window)"
          + "; all processed %.2f s before all committed; first record of each thread at %s%n", rebalances.get(),
          restarts, (committedAll - end) / 1e9, firstRecords(marks));
      flushPrintf("    stream threads in steady state: %s%n", threadShares(streams, cpuAtTenth, cpuAtEnd,
          processedAtTenth, marks.get(marks.size() - 1).processed(), end - tenth));
      flushPrintf("    %s%n", ProcessCpu.since(processAtTenth, processAtEnd,
          total(cpuAtEnd) - total(cpuAtTenth), end - tenth));
      flushPrintf("    %s%n", ProcessCpu.faultsSince(faultsAtTenth, faultsAtEnd, atEnd - atTenth));
      if (waitsAtTenth != null) {
        flushPrintf("%s%n", WaitBreakdown.of(streams).since(waitsAtTenth));
      }
      streams.close(Duration.ofSeconds(30));
      deleteInternalTopics(admin, appId);
      return t;
    }
  }

  /** "StreamThread-N" of a stream thread's full name ("<appId>-<uuid>-StreamThread-N"). */
  private static String shortName(String thread) {
    return thread.substring(thread.lastIndexOf("StreamThread"));
  }

  /** When each stream thread processed its first record, in seconds from the start of the pass. */
  private static String firstRecords(List<Mark> marks) {
    Map<String, Double> at = new TreeMap<>();
    for (Mark m : marks) {
      m.processed().forEach((thread, n) -> {
        if (n > 0) {
          at.putIfAbsent(shortName(thread), m.nanos() / 1e9);
        }
      });
    }
    return at.entrySet().stream().map(e -> String.format("%s %.2f s", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** Streams' {@code process-total} of each stream thread, by thread name. */
  private static Map<String, Metric> processTotals(KafkaStreams streams) {
    Map<String, Metric> out = new TreeMap<>();
    streams.metrics().forEach((name, metric) -> {
      if (name.group().equals("stream-thread-metrics") && name.name().equals("process-total")) {
        out.put(name.tags().get("thread-id"), metric);
      }
    });
    return out;
  }

  private static Map<String, Double> processed(Map<String, Metric> processTotals) {
    Map<String, Double> out = new TreeMap<>();
    processTotals.forEach((thread, metric) -> out.put(thread,
        metric.metricValue() instanceof Double d ? d : 0.0));
    return out;
  }

  /** The records each stream thread had processed ({@code process-total}) at a moment of a pass, in ns from its start. */
  record Mark(long nanos, Map<String, Double> processed) {
    double total() {
      return processed.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /** A thread is done with its share once it is this close to its count at the end of the pass. */
  static final double DONE_SHARE = 0.99;

  /**
   * Records per second while every stream thread had input left to do: from the first mark at or after
   * {@code tenthNanos} at which each thread has processed some records, to the first at which one has done
   * {@link #DONE_SHARE} of what it did in the whole pass (its last records may be a repartition hop's, which arrive a
   * commit later). NaN when there is no such time of at least half a second. Why: a thread whose tasks start later than
   * the other's (the group leader's rejoin on a first start, waited out for a 3 s heartbeat) leaves
   * part of the steady window to the other thread alone, and so does a thread whose share is smaller; this rate shows
   * what both together do.
   */
  static double allThreadsAtWork(List<Mark> marks, long tenthNanos) {
    if (marks.isEmpty() || marks.get(marks.size() - 1).processed().size() < 2) {
      return Double.NaN;
    }
    Map<String, Double> finals = marks.get(marks.size() - 1).processed();
    int from = -1;
    int to = -1;
    for (int k = 0; k < marks.size() && to < 0; k++) {
      boolean allStarted = true;
      boolean oneDone = false;
      for (Map.Entry<String, Double> share : finals.entrySet()) {
        double count = marks.get(k).processed().getOrDefault(share.getKey(), 0.0);
        allStarted &= count > 0;
        oneDone |= count >= DONE_SHARE * share.getValue();
      }
      if (from < 0 && allStarted && marks.get(k).nanos() >= tenthNanos) {
        from = k;
      }
      if (from >= 0 && oneDone) {
        to = k;
      }
    }
    if (from < 0 || to <= from || marks.get(to).nanos() - marks.get(from).nanos() < 500_000_000L) {
      return Double.NaN;
    }
    return (marks.get(to).total() - marks.get(from).total())
        / ((marks.get(to).nanos() - marks.get(from).nanos()) / 1e9);
  }

  /**
   * Deletes the changelog and repartition topics of a finished pass. Each pass is a new application with its own,
   * and a run of fifteen warm-ups a phase would otherwise leave thousands of partitions on the broker, each with its
   * index files, for every later pass to run beside.
   */
  private static void deleteInternalTopics(Admin admin, String appId) throws Exception {
    Set<String> internal = admin.listTopics().names().get().stream().filter(t -> t.startsWith(appId + "-"))
        .collect(Collectors.toSet());
    if (!internal.isEmpty()) {
      admin.deleteTopics(internal).all().get();
    }
  }

  private static Map<TopicPartition, Long> ends(Admin admin, Set<String> topics) throws Exception {
    Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
    for (var d : admin.describeTopics(topics).allTopicNames().get().values()) {
      d.partitions().forEach(pi -> spec.put(new TopicPartition(d.name(), pi.partition()), OffsetSpec.latest()));
    }
    Map<TopicPartition, Long> out = new HashMap<>();
    admin.listOffsets(spec).all().get().forEach((tp, i) -> out.put(tp, i.offset()));
    return out;
  }

  /**
   * Alert latencies of one run: the topology fed samples of 1,000 loaded VMs while five migrations a second start.
   *
   * @param alerts        alerts measured
   * @param p50Millis     their median latency
   * @param p99Millis     their 99th percentile
   * @param achievedRate  the sample rate the generator achieved
   */
  record AlertLatency(int alerts, double p50Millis, double p99Millis, double achievedRate) {
  }

  private AlertLatency alertLatency(String bootstrap, ProcessorConfig config) throws Exception {
    int vms = 1000;
    String vc = "bench-vcenter";
    VgpuProfile profile = VgpuProfile.parse("A100-40C").orElseThrow();
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    List<Double> latencies = new ArrayList<>();
    try (StreamsProcessor processor = StreamsProcessor.start(streamsProperties(config, bootstrap), config,
        Clock.systemUTC(), null);
        KafkaProducer<byte[], byte[]> p = producer(bootstrap);
        KafkaConsumer<byte[], byte[]> alerts = consumer(bootstrap, "bench-alerts")) {
      if (!processor.awaitRunning(Duration.ofSeconds(120))) {
        throw new IllegalStateException("the topology did not start");
      }
      for (int i = 0; i < vms; i++) {
        VmInventoryEntry e = new VmInventoryEntry(vc, "vm-" + i, "bench-" + i, vmId(i), null,
            new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, null, List.of(), profile,
            Instant.now());
        send(p, Topics.VM_INVENTORY, e.key(), e, e.observedAt());
      }
      p.flush();
      alerts.subscribe(List.of(Topics.MIGRATION_ALERTS.name()));
      AtomicBoolean reading = new AtomicBoolean(true);
      Thread reader = new Thread(() -> {
        while (reading.get()) {
          for (ConsumerRecord<byte[], byte[]> r : alerts.poll(Duration.ofMillis(20))) {
            long now = System.nanoTime();
            MigrationAlert a = Topics.MIGRATION_ALERTS.valueSerde().decode(r.value());
            Long sent = a.state() == MigrationAlert.AlertState.FIRING ? sentAt.remove(a.migrationId()) : null;
            if (sent != null) {
              synchronized (latencies) {
                latencies.add((now - sent) / 1e6);
              }
            }
          }
        }
      }, "bench-alert-reader");
      reader.start();

      long begin = System.nanoTime();
      long total = settings.latencyLength().toNanos();
      long sentSamples = 0;
      long chain = 1;
      long warmup = Duration.ofSeconds(70).toNanos(); // a full alert window of samples before the first start
      while (System.nanoTime() - begin < warmup + total) {
        long elapsed = System.nanoTime() - begin;
        long due = elapsed * settings.rate() / 1_000_000_000L;
        Instant now = Instant.now();
        while (sentSamples < due) {
          int vm = (int) (sentSamples % vms);
          GpuSample g = new GpuSample(vmId(vm), "bench-" + vm, now, 0, "GPU-" + vm, "GRID A100-40C", null, 95.0,
              60.0, 30_000L, 40_960L, null, null, null, null, profile);
          send(p, Topics.GPU_SAMPLES, g.vmId(), g, now);
          sentSamples++;
        }
        if (elapsed > warmup && elapsed - warmup >= (chain - 1) * 200_000_000L) {
          int vm = (int) (chain * 7 % vms);
          EntityRef ref = new EntityRef("VirtualMachine", "vm-" + vm, "bench-" + vm);
          TaskSnapshot task = new TaskSnapshot("task-" + chain, "VirtualMachine.relocate", ref, "running", false,
              now, now, null, null, null, chain, "TaskReasonUser", "admin");
          VcenterEvent e = new VcenterEvent(vc, chain, chain, now, "TaskEvent", null,
              VcenterEventCategory.MIGRATION_TASK, "admin", ref, null, null, null, null, null, null, null, null,
              null, null, task);
          sentAt.put(Keys.migration(vc, chain), System.nanoTime());
          send(p, Topics.VCENTER_EVENTS, e.vmKey(), e, now);
          p.flush(); // the start is timed from here; do not let it wait in a batch
          chain++;
        }
        LockSupport.parkNanos(1_000_000);
      }
      double achieved = sentSamples / ((System.nanoTime() - begin) / 1e9);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!sentAt.isEmpty() && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      reading.set(false);
      reader.join(5000);
      List<Double> sorted;
      synchronized (latencies) {
        sorted = latencies.stream().sorted().toList();
      }
      if (sorted.isEmpty()) {
        throw new IllegalStateException("no alert arrived");
      }
      if (!sentAt.isEmpty()) {
        flushPrintf("%d migration starts raised no alert within 30 s%n", sentAt.size());
      }
      return new AlertLatency(sorted.size(), percentile(sorted, 50), percentile(sorted, 99), achieved);
    }
  }

  private void flushPrintf(String format, Object... args) {
    log.printf(format, args);
    log.flush();
  }

  static double percentile(List<Double> sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
  }

  /**
   * The id of VM {@code i}, as vCenter makes them: {@code 42} and random hex (deterministic here). Ids that differ
   * only in their last digits, as this benchmark's once did, are not what a fleet has: every key comparison in
   * Streams' record cache scanned their shared 33-character prefix.
   */
  static String vmId(int i) {
    String u = UUID.nameUUIDFromBytes(("bench-vm-" + i).getBytes(StandardCharsets.UTF_8))
        .toString();
    return "42" + u.substring(2);
  }

  private static <V> void send(KafkaProducer<byte[], byte[]> p, Topic<String, V> t, String key, V value,
      Instant at) {
    p.send(new ProducerRecord<>(t.name(), null, at.toEpochMilli(), t.encodeKey(key), t.encodeValue(value)));
  }
}
