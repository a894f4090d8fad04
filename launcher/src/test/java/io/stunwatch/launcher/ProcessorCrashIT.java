package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once under crashes: an 81k-record replay of a simulated fleet is processed twice by the real
 * {@code stunwatch process}, at the same time on two brokers, once without interruption and once with the JVM killed (SIGKILL: no shutdown hook, no
 * flush, a transaction possibly open) five times at random points during the replay. Read with read_committed:
 *
 * <ul>
 *   <li>{@code migrations} and {@code dead-letters} hold the same records per key, in the same order;</li>
 *   <li>{@code migration-impacts}, {@code migration-alerts} and {@code stun-model} end with the same value per key
 *       (what their compacted topics and the API's stores converge to), with no key missing or extra.</li>
 * </ul>
 *
 * <p>Why not the same sequences for the last three: a {@code vmware.log} figure takes one repartition hop more than
 * the samples, so in a catch-up it may arrive after the impact closed and revise it (one record more); and an
 * alert's forecast reads the global stun-model table, which Kafka Streams updates from its topic on its own thread,
 * in any run. Both are timing, not loss or duplication, and the forecast is therefore left out of the comparison.
 * Likewise the phase averages of an impact (before, during, after, the dip, the timeline) are computed when stream
 * time passes the settle window, and in a catch-up a sample at the edge of a phase may be processed just after
 * that: they must agree within 2 % (a sample or two of a hundred), not to the last digit.
 */
class ProcessorCrashIT {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessorCrashIT.class);

  @RegisterExtension
  static final KafkaBrokerExtension REFERENCE = KafkaBrokerExtension.perClass();
  @RegisterExtension
  static final KafkaBrokerExtension CRASHED = KafkaBrokerExtension.perClass();

  static final List<Topic<String, ?>> OUTPUTS = ProcessorOutputs.OUTPUTS;

  /**
   * Records a second, both runs: about 9 simulated seconds per real second. A live site, not a backlog: in a backlog
   * the samples run far ahead of the vCenter events, which take a repartition hop (see docs/limits.md);
   * the kills here make catch-ups of a few minutes of event time, as real restarts do.
   *
   * <p>The acceleration multiplies the skew between a task's partitions as it catches up and goes live again: a
   * second or two of fetch skew is that many seconds of event time on a site, but 18 times as many at 1,000 records
   * a second, which once exceeded the processor's 30 s close margin and closed an impact a few after-samples short.
   */
  static final int PACE = 500;

  @TempDir
  Path dir;

  @Test
  void outputsAfterFiveKillsEqualThoseOfAnUninterruptedRun() throws Exception {
    // Event time starts now: the wall-clock fallback (settle window past event time) never fires during the test,
    // so only event time decides, as it must for two runs to be comparable.
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    // 26 minutes of a 42-VM fleet: 80 migrations, 81,000 records, room for five kills 1,000 to 6,000 records apart
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(42, 24, 6, start, Duration.ofMinutes(26),
        Duration.ofSeconds(15)));
    long records = scenario.count();
    assertThat(records).isBetween(78_000L, 85_000L);

    // 1. the uninterrupted run, fed the same paced replay, on a broker of its own beside the other run: the two
    // share nothing but the machine, and the outputs must not depend on its pace
    CompletableFuture<Void> reference = CompletableFuture.runAsync(() -> {
      try (StunwatchProcess p = process(REFERENCE.bootstrapServers(), "reference")) {
        p.awaitStderr("-> RUNNING", Duration.ofSeconds(90));
        ScenarioReplay.replay(REFERENCE.bootstrapServers(), scenario, PACE, new AtomicLong());
        awaitQuiet(REFERENCE.bootstrapServers(), p);
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });

    // 2. the same replay, with the processor killed five times while it runs
    AtomicLong sent = new AtomicLong();
    Thread producer = new Thread(() -> ScenarioReplay.replay(CRASHED.bootstrapServers(), scenario, PACE, sent),
        "replay");
    producer.start();
    Random random = new Random(20261121);
    int kills = 0;
    while (kills < 5) {
      try (StunwatchProcess p = process(CRASHED.bootstrapServers(), "crashed")) {
        p.awaitStderr("-> RUNNING", Duration.ofSeconds(90));
        long killAt = sent.get() + 1_000 + random.nextInt(5_000);
        Await.until(Duration.ofSeconds(120), () -> sent.get() >= killAt || !producer.isAlive(),
            "the replay to reach record " + killAt, () -> sent.get() + " sent; producer alive " + producer.isAlive());
        p.kill();
        kills++;
        LOG.info("killed the processor ({} of 5) after {} of {} records were sent", kills, sent.get(), records);
      }
    }
    boolean killedDuringReplay = producer.isAlive();
    producer.join();
    try (StunwatchProcess p = process(CRASHED.bootstrapServers(), "crashed")) {
      awaitQuiet(CRASHED.bootstrapServers(), p);
    }
    Map<String, Map<String, List<String>>> actual = outputs(CRASHED.bootstrapServers());
    reference.get(10, TimeUnit.MINUTES);
    Map<String, Map<String, List<String>>> expected = outputs(REFERENCE.bootstrapServers());
    assertThat(expected.get(Topics.MIGRATION_IMPACTS.name())).hasSizeGreaterThan(50);
    assertThat(expected.get(Topics.MIGRATION_ALERTS.name())).isNotEmpty();

    // Both runs' outputs, for a look when this fails.
    Path out = Path.of("target", "crash-it");
    Files.createDirectories(out);
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve("uninterrupted.json").toFile(), expected);
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve("crashed.json").toFile(), actual);
    List<String> differences = new ArrayList<>();
    for (Topic<String, ?> t : OUTPUTS) {
      Map<String, List<String>> e = comparable(t, expected.get(t.name()));
      Map<String, List<String>> a = comparable(t, actual.get(t.name()));
      Set<String> keys = new TreeSet<>(e.keySet());
      keys.addAll(a.keySet());
      for (String k : keys) {
        if (!Objects.equals(e.get(k), a.get(k)) && !phasesAgree(e.get(k), a.get(k))) {
          differences.add(t.name() + " " + k + ":\n  uninterrupted " + e.get(k) + "\n  crashed       " + a.get(k));
        }
      }
    }
    assertThat(differences).as("records that differ from the uninterrupted run").isEmpty();
    assertThat(killedDuringReplay).as("all five kills happened during the replay").isTrue();
  }

  private StunwatchProcess process(String bootstrap, String name) {
    return StunwatchProcess.start(Map.of(
        "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve(name).toString(),
        // static membership: a restarted processor takes its partitions back without waiting for the session
        // timeout of the one killed
        "STUNWATCH_PROCESS_INSTANCE_ID", "crash-it-" + name), "process");
  }

  private static void awaitQuiet(String bootstrap, StunwatchProcess p) throws Exception {
    ProcessorOutputs.awaitQuiet(bootstrap, "stunwatch-processor",
        () -> p.isAlive() ? null : "the processor exited: " + p.stderr());
  }

  private static final ObjectMapper JSON =
      new ObjectMapper();

  /** What of a topic must be equal: the whole sequence per key, or the final value (see the class comment). */
  private static Map<String, List<String>> comparable(Topic<String, ?> t, Map<String, List<String>> perKey) {
    if (t == Topics.MIGRATIONS || t == Topics.DEAD_LETTERS) {
      return perKey;
    }
    Map<String, List<String>> last = new TreeMap<>();
    perKey.forEach((k, values) -> {
      try {
        var node = (ObjectNode) JSON.readTree(values.get(values.size() - 1));
        node.remove("forecast");
        if (node.get("recent") instanceof ArrayNode recent) {
          List<JsonNode> sorted = new ArrayList<>();
          recent.forEach(sorted::add);
          sorted.sort(Comparator.comparing(n -> n.get("migrationId").asText()));
          recent.removeAll();
          recent.addAll(sorted);
        }
        last.put(k, List.of(node.toString()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    return last;
  }

  static final Set<String> PHASES = Set.of("before", "during", "after", "throughputDipPct", "timeline");

  /** Equal but for phase figures within 2 % (see the class comment). */
  static boolean phasesAgree(List<String> expected, List<String> actual) {
    if (expected == null || actual == null || expected.size() != 1 || actual.size() != 1) {
      return false;
    }
    try {
      return close(JSON.readTree(expected.get(0)), JSON.readTree(actual.get(0)), false);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean close(JsonNode e, JsonNode a,
      boolean inPhase) {
    if (inPhase && e != null && a != null && e.isNumber() && a.isNumber()) {
      double x = e.asDouble();
      double y = a.asDouble();
      return Math.abs(x - y) <= 0.02 * Math.max(Math.abs(x), Math.abs(y)) + 1e-9;
    }
    if (inPhase && e != null && a != null && e.isArray() && a.isArray()) {
      return Math.abs(e.size() - a.size()) <= 2; // the timeline: a point or two at the edges
    }
    if (e == null || a == null || e.isValueNode() || a.isValueNode() || e.isArray() || a.isArray()) {
      return Objects.equals(e, a);
    }
    Set<String> names = new HashSet<>();
    e.fieldNames().forEachRemaining(names::add);
    a.fieldNames().forEachRemaining(names::add);
    for (String n : names) {
      if (!close(e.get(n), a.get(n), inPhase || PHASES.contains(n))) {
        return false;
      }
    }
    return true;
  }

  private static Map<String, Map<String, List<String>>> outputs(String bootstrap) {
    return ProcessorOutputs.outputs(bootstrap);
  }
}
