package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StunwatchTopology;
import io.stunwatch.processor.processors.LiveCommits;
import java.io.PrintWriter;
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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
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
   * @param guard         whether a fourth phase runs the topology with the DRS guard's decisions
   *                      ({@code guard.enabled}), measured against the topology without it in the same rounds
   */
  public record Settings(int records, int rate, Duration latencyLength, Path dir, int threads, int rounds,
      int partitions, Map<String, String> streamsConfig, int maxWarmups, boolean guard) {
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
   * @param allThreadsPerSec records per second while every stream thread had input left ({@link StreamThreads#allThreadsAtWork});
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

    /** The same, with the rate while every stream thread had input left ({@link StreamThreads#allThreadsAtWork}). */
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
      try (KafkaProducer<byte[], byte[]> p = BenchKafka.producer(bootstrap)) {
        fleet.forEach(p::send);
        p.flush();
      }
      Set<String> inputs = fleet.stream().map(ProducerRecord::topic).collect(Collectors.toSet());
      BenchKafka.createTopic(bootstrap, "bench.raw", settings.partitions());
      BenchKafka.createTopic(bootstrap, "bench.passthrough", settings.partitions());

      ProcessorConfig config = ProcessorConfig.defaults().withThreads(settings.threads()).withIdentity(
          "bench-topology", settings.dir().resolve("state"));
      // The inventory is read by a global table, whose consumer commits no group offsets: the topology is done
      // when its stream sources are.
      Set<String> streamSources = new HashSet<>(inputs);
      streamSources.remove(Topics.VM_INVENTORY.name());
      StreamsPass streams = new StreamsPass(settings, log);
      List<PhaseRuns> phases = new ArrayList<>(List.of(
          new PhaseRuns("raw produce+consume", "bench-raw",
              name -> RawPass.run(bootstrap, inputs, fleet.size(), name, settings.threads())),
          new PhaseRuns("Streams passthrough", "bench-passthrough",
              name -> streams.run(bootstrap, passthroughTopology(inputs), name, inputs)),
          new PhaseRuns("topology", "bench-topology",
              name -> streams.run(bootstrap, StunwatchTopology.build(config, Clock.systemUTC()), name, streamSources))));
      if (settings.guard()) {
        // the guard reads each GPU reading's alert window again: what that costs the same records
        ProcessorConfig guarded = config.withGuard(GuardConfig.OFF.withEnabled(true)).withIdentity("bench-guard",
            settings.dir().resolve("state-guard"));
        phases.add(new PhaseRuns("topology with the DRS guard", "bench-guard",
            name -> streams.run(bootstrap, StunwatchTopology.build(guarded, Clock.systemUTC()), name, streamSources)));
      }
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
      if (settings.guard()) {
        Phase guard = phases.get(3).median();
        double[] guardCpu = cpuAgainstPassthrough(phases.get(3).results(), phases.get(2).results());
        flushPrintf("topology with the DRS guard: %,.0f records/s steady = %.2f of the topology's; its stream threads' "
            + "CPU per record against the topology's of the same round: median %.2f (every round: %s)%n",
            guard.rate().steadyPerSec(), guard.rate().steadyPerSec() / topology.rate().steadyPerSec(),
            median(guardCpu), Arrays.stream(guardCpu).mapToObj(x -> String.format("%.2f", x))
                .collect(Collectors.joining(", ")));
      }
      double allThreads = phases.get(2).medianAllThreads();
      flushPrintf("topology with every stream thread at work: %,.0f records/s, median of the measured passes that had "
          + "half a second of it = %.2f of raw%n", allThreads, allThreads / raw.rate().steadyPerSec());

      // Its own application: the measured pass's member, closed without leaving the group (Streams' default),
      // would otherwise hold the first rebalance for a session timeout.
      ProcessorConfig latencyConfig = config.withIdentity("bench-latency", settings.dir().resolve("state-latency"));
      AlertLatencyRun.AlertLatency latency = new AlertLatencyRun(settings.rate(), settings.latencyLength(), log)
          .run(bootstrap, StreamsPass.properties(settings, latencyConfig, bootstrap), latencyConfig);
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

  private static Topology passthroughTopology(Set<String> inputs) {
    StreamsBuilder b = new StreamsBuilder();
    b.stream(inputs, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .to("bench.passthrough", Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
    return b.build();
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


}
