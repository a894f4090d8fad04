package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.StunwatchProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recorded site fed as a new user feeds it: {@code stunwatch collect vcenter --replay-inventory --replay}, then
 * {@code stunwatch collect worker --replay --vm-id} once per VM, each its own process one after another, then the
 * {@code vmware.log} stuns, and only then {@code stunwatch process} on a fresh state directory, which reads the whole
 * backlog at once as it does after downtime. The site is {@link ReplayEquivalenceIT}'s (concurrent migrations on
 * shared partitions, a failed one that ends first, a long one that ends last, a busy four-GPU VM), with two hours of
 * samples per VM: one VM's recording runs the task's stream time far past the others' migrations.
 *
 * <p>Each way runs three times: the answer must not depend on timing inside the processor (how far its samples got
 * before the events were read), and every run must equal the first and be right.
 */
class BacklogReplayIT {

  private static final Logger LOG = LoggerFactory.getLogger(BacklogReplayIT.class);
  /** Two hours of samples per VM, the migrations about six minutes in. */
  static final int RECORDED_SECONDS = 2 * 3600;
  static final int RUNS = 3;

  @TempDir
  Path dir;

  @Test
  void eventsOrSamplesFirstEachVmFromItsOwnProcessAndTheProcessorStartedOnTheBacklogGiveOneRightAnswer()
      throws Exception {
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    Path site = Files.createDirectories(dir.resolve("site"));
    ReplayEquivalenceIT.writeSite(site, base, RECORDED_SECONDS);
    Map<String, Map<String, String>> runs = new LinkedHashMap<>();
    for (int run = 0; run < 2 * RUNS; run++) {
      boolean eventsFirst = run % 2 == 0;
      String way = (eventsFirst ? "events first" : "samples first") + ", run " + (run / 2 + 1);
      runs.put(way, run(site, eventsFirst, "run-" + run));
      check(way, runs.get(way));
    }
    Map<String, String> reference = runs.values().iterator().next();
    List<String> differences = new ArrayList<>();
    runs.forEach((way, r) -> {
      Set<String> keys = new TreeSet<>(reference.keySet());
      keys.addAll(r.keySet());
      for (String k : keys) {
        if (!Objects.equals(reference.get(k), r.get(k))) {
          differences.add(way + " " + k + ":\n  first " + reference.get(k) + "\n  this  " + r.get(k));
        }
      }
    });
    assertThat(differences).as("final values that differ from the first run").isEmpty();
  }

  private Map<String, String> run(Path site, boolean eventsFirst, String name) throws Exception {
    long began = System.nanoTime();
    try (EmbeddedKafkaBroker b = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(
        Files.createDirectories(dir.resolve("broker-" + name))))) {
      Map<String, String> env = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", b.bootstrapServers(),
          "STUNWATCH_WORKER_TIMEZONE", "UTC");
      if (eventsFirst) {
        vcenter(env, site, "--replay", site.resolve("events.jsonl").toString());
      }
      for (ReplayEquivalenceIT.Vm vm : ReplayEquivalenceIT.VMS) {
        try (StunwatchProcess p = StunwatchProcess.start(env, "collect", "worker", "--replay",
            site.resolve("worker").resolve(vm.name()).toString(), "--vm-id", vm.uuid(), "--hostname", vm.name())) {
          assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
        }
      }
      if (!eventsFirst) {
        vcenter(env, site, "--replay", site.resolve("events.jsonl").toString());
      }
      vcenter(env, site, "--replay-vmware-log", site.resolve("logs").toString());
      try (StunwatchProcess p = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
          b.bootstrapServers(), "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state-" + name).toString()),
          "process")) {
        p.awaitStderr("-> RUNNING", Duration.ofSeconds(90));
        ProcessorOutputs.awaitQuiet(b.bootstrapServers(), ReplayEquivalenceIT.GROUP,
            () -> p.isAlive() ? null : "the processor exited: " + p.stderr());
      }
      Map<String, String> latest = new TreeMap<>();
      ProcessorOutputs.outputs(b.bootstrapServers()).forEach((topic, perKey) -> perKey.forEach((key, values) ->
          latest.put(topic + " " + key, values.get(values.size() - 1))));
      LOG.info("{}: {} outputs in {} s", name, latest.size(), Duration.ofNanos(System.nanoTime() - began).toSeconds());
      return latest;
    }
  }

  private static void vcenter(Map<String, String> env, Path site, String... replay) {
    List<String> args = new ArrayList<>(List.of("collect", "vcenter", "--vcenter-uuid", ReplayEquivalenceIT.VC,
        "--replay-inventory", site.resolve("inventory.jsonl").toString()));
    args.addAll(List.of(replay));
    try (StunwatchProcess p = StunwatchProcess.start(env, args.toArray(String[]::new))) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
    }
  }

  /** What every run must show, as an admin reads it. */
  private static void check(String way, Map<String, String> r) throws Exception {
    String vc = ReplayEquivalenceIT.VC;
    // migration id, duration (s), stunned seconds in the guest's samples, vmware.log figure or null
    record Expected(String id, int seconds, int gap, Double log, MigrationState state) {
    }
    for (Expected e : List.of(
        new Expected(vc + "/1100", 75, 29, 28.9, MigrationState.SUCCEEDED),
        new Expected(vc + "/1200", 20, 0, null, MigrationState.SUCCEEDED),
        new Expected(vc + "/1300", 120, 58, 58.1, MigrationState.SUCCEEDED),
        new Expected(vc + "/1400", 35, 0, null, MigrationState.FAILED))) {
      Migration m = value(r, Topics.MIGRATIONS, e.id());
      assertThat(m.state()).as(way + " " + e.id()).isEqualTo(e.state());
      MigrationImpact i = value(r, Topics.MIGRATION_IMPACTS, e.id());
      assertThat(i.migration().state()).as(way + " " + e.id()).isEqualTo(e.state());
      assertThat(Duration.between(i.during().from(), i.during().to()).toSeconds())
          .as(way + " " + e.id() + ": the during window is the migration's duration (and its end second)")
          .isEqualTo(e.seconds() + 1L);
      // the estimate is the stun itself without a log figure, and beside it as a second witness with one
      StunTime estimate = i.stunEstimate() != null ? i.stunEstimate() : i.stun();
      assertThat(estimate.source()).as(way + " " + e.id()).isEqualTo(StunTime.Source.SAMPLE_GAP_ESTIMATE);
      assertThat(estimate.seconds()).as(way + " " + e.id() + ": the gap in the samples")
          .isBetween(e.gap() - 2.0, e.gap() + 2.0);
      if (e.log() != null) {
        assertThat(i.stun()).as(way + " " + e.id() + ": the vmware.log figure")
            .isEqualTo(new StunTime(e.log(), StunTime.Source.VMWARE_LOG));
      }
    }
    assertThat(r.keySet()).as(way).noneMatch(k -> k.startsWith(Topics.DEAD_LETTERS.name()));
  }

  private static <V> V value(Map<String, String> r, Topic<String, V> topic, String key) throws Exception {
    String json = r.get(topic.name() + " " + key);
    assertThat(json).as(topic.name() + " " + key).isNotNull();
    return Json.mapper().readValue(json, topic.valueSerde().type());
  }
}
