package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two {@code stunwatch api} processes with {@code process.standby-replicas=1}: each keeps a warm copy of the other's
 * stores. One is killed ({@code kill -9}); the other must answer for every VM as before, and be ready again, having
 * read back only what its copies lacked, not the killed one's changelogs whole.
 */
class StandbyFailoverIT {

  private static final Logger LOG = LoggerFactory.getLogger(StandbyFailoverIT.class);

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String APPLICATION = "standby-it";
  static final String TOKEN = "standby-it-token-" + Long.toHexString(System.nanoTime());
  static final ObjectMapper JSON = new ObjectMapper();
  /** {@code stunwatch_processor_restored_records_total{store="…",task="active"} N} on /metrics. */
  static final Pattern RESTORED = Pattern.compile(
      "(?m)^stunwatch_processor_restored_records_total\\{[^}]*task=\"(active|standby)\"[^}]*} ([0-9.eE+]+)$");

  /** {@code stunwatch_api_requests_seconds_count{route="/internal/…",…} N} on /metrics. */
  static final Pattern INTERNAL = Pattern.compile(
      "(?m)^stunwatch_api_requests_seconds_count\\{[^}]*route=\"/internal/[^}]*} ([0-9.eE+]+)$");

  /** How long the group waits for the killed instance before it moves its tasks. */
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);
  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theSurvivorAnswersForEveryVmFromItsStandbysWithoutRestoringTheChangelogsWhole() throws Exception {
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(13, 16, 4, start, Duration.ofMinutes(12),
        Duration.ofSeconds(20)));
    int portA = Ports.reserve();
    int portB = Ports.reserve();
    try (StunwatchProcess a = api("a", portA); StunwatchProcess b = api("b", portB)) {
      Await.until(Duration.ofSeconds(120), () -> status(portA, "/ready") == 200 && status(portB, "/ready") == 200,
          "both instances ready", () -> String.join("\n", b.stderr()));
      ScenarioReplay.replay(KAFKA.bootstrapServers(), scenario);

      // Every VM answered by both, the same; the standbys have followed the other's changelogs.
      Map<String, String> before = new HashMap<>();
      Await.until(Duration.ofSeconds(120), Duration.ofMillis(500), () -> {
        before.clear();
        for (FleetScenario.Vm vm : scenario.vms()) {
          String fromA = answer(portA, vm);
          if (fromA == null || !fromA.equals(answer(portB, vm))) {
            return false;
          }
          before.put(vm.id(), fromA);
        }
        return restored(portA, "standby") > 0 && restored(portB, "standby") > 0
            && ids(portA, scenario.vms().get(0)).size() > 0;
      }, "every VM answered alike by both instances, each with standbys", () -> before.keySet().toString());
      // the feed has ended: wait until the group has committed all of it, then until both answer exactly the same
      // twice in a row
      ProcessorOutputs.awaitQuiet(KAFKA.bootstrapServers(), APPLICATION,
          () -> a.isAlive() && b.isAlive() ? null : "an instance exited: " + a.stderr() + "\n" + b.stderr());
      Map<String, String> settled = new HashMap<>();
      Await.until(Duration.ofSeconds(120), Duration.ofSeconds(2), () -> {
        Map<String, String> now = new HashMap<>();
        for (FleetScenario.Vm vm : scenario.vms()) {
          now.put(vm.id(), answer(portB, vm));
        }
        boolean same = now.equals(settled);
        settled.clear();
        settled.putAll(now);
        return same;
      }, "answers that no longer change", settled::toString);

      // One migration's record, by its id: the instance asked finds which instance holds it (the owners index names
      // its VM) and asks that one alone, once; both instances give the same record.
      List<String> migrationIds = new ArrayList<>();
      for (FleetScenario.Vm vm : scenario.vms()) {
        ids(portB, vm).forEach(i -> migrationIds.add(i.substring(0, i.lastIndexOf('='))));
      }
      assertThat(migrationIds).as("migrations of the scenario").hasSizeGreaterThan(10);
      double internalBefore = internalRequests(portB);
      double indexFirst = internalRequests(portB, "/internal/migration-record");
      Map<String, String> records = new HashMap<>();
      for (String id : migrationIds) {
        HttpResponse<String> r = get(portA, "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as(id).isEqualTo(200);
        records.put(id, r.body());
      }
      double asked = internalRequests(portB) - internalBefore;
      LOG.info("{} migrations read by id from one instance: {} requests to the other", migrationIds.size(),
          (long) asked);
      assertThat(asked).as("requests the other instance got for %d records read by id", migrationIds.size())
          .isLessThanOrEqualTo(migrationIds.size());
      // asked again, each is read where its VM is, the index skipped: only the records the other holds are asked
      // of it (the first round asked it for those, and for every index entry it holds)
      double againBefore = internalRequests(portB);
      double indexBefore = internalRequests(portB, "/internal/migration-record");
      assertThat(indexBefore - indexFirst).as("owners index lookups asked of the other in the first round (each id's "
          + "entry is on either instance)").isPositive();
      for (String id : migrationIds) {
        assertThat(get(portA, "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8)).body())
            .as("%s again", id).isEqualTo(records.get(id));
      }
      double again = internalRequests(portB) - againBefore;
      LOG.info("the same {} read again: {} requests to the other", migrationIds.size(), (long) again);
      assertThat(internalRequests(portB, "/internal/migration-record") - indexBefore)
          .as("owners index lookups asked of the other for records read again").isZero();
      assertThat(again).as("requests the other instance got for the same records read again").isLessThanOrEqualTo(
          asked);
      for (String id : migrationIds) {
        assertThat(get(portB, "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8)).body())
            .as("%s from the other instance", id).isEqualTo(records.get(id));
      }

      long changelogRecords = changelogRecords();
      double restoredBefore = restored(portB, "active");
      double standbyUpdates = restored(portB, "standby");
      long rebalancesBefore = rebalances(b);
      long leftRunningBefore = leftRunning(b);
      a.kill();
      long killed = System.nanoTime();
      // Until the group has not heard from the killed instance for the session timeout, its tasks stay its own:
      // every VM answered before the survivor leaves RUNNING for the rebalance was answered from its standby copies.
      // That is what is waited for, not a fraction of the timeout, which a slow machine may spend on the answers.
      Set<String> unanswered = new TreeSet<>();
      boolean[] answered = {false};
      Await.until(SESSION_TIMEOUT.multipliedBy(2), Duration.ofMillis(100), () -> {
        boolean all = allAnswered(portB, scenario, settled, unanswered);
        answered[0] = all && leftRunning(b) == leftRunningBefore;
        return answered[0] || leftRunning(b) > leftRunningBefore;
      }, "the survivor answering every VM, or the group rebalancing", unanswered::toString);
      assertThat(answered[0]).as("the survivor answered every VM as before from its standbys while the killed "
          + "instance still held its tasks; unanswered when the group began to rebalance: %s", unanswered).isTrue();
      double fromStandbys = (System.nanoTime() - killed) / 1e9;
      // Then the tasks move to the survivor, which takes them over from its copies and is ready.
      Await.until(SESSION_TIMEOUT.multipliedBy(4), Duration.ofMillis(100), () -> status(portB, "/ready") == 200
          && rebalances(b) > rebalancesBefore, "the survivor ready again after a rebalance",
          () -> String.join("\n", b.stderr()));
      Await.until(Duration.ofSeconds(60), Duration.ofMillis(100), () -> allAnswered(portB, scenario, settled,
          unanswered), "the survivor answering every VM as before from its own tasks", unanswered::toString);
      double seconds = (System.nanoTime() - killed) / 1e9;
      double restoredAfter = restored(portB, "active") - restoredBefore;
      LOG.info("after kill -9 of one of two instances: every VM answered by the other from its standbys after {} s; "
          + "ready with every task after {} s, having restored {} changelog records of the {} the changelogs hold "
          + "(its standbys had read {})", String.format("%.1f", fromStandbys), String.format("%.1f", seconds),
          (long) restoredAfter, changelogRecords, (long) standbyUpdates);
      assertThat(changelogRecords).as("records in the application's changelogs").isGreaterThan(1_000);
      // The survivor's standbys followed the killed instance's changelogs (end offsets count commit markers too):
      // a whole restore of its tasks would have read as much again. Its standbys lacked at most what the last
      // commits wrote.
      assertThat(standbyUpdates).as("records the survivor's standbys read while both ran")
          .isGreaterThan(changelogRecords / 10.0);
      assertThat(restoredAfter).as("records the survivor restored into the tasks it took over")
          .isLessThan(standbyUpdates / 10.0);
    }
  }

  /** Whether every VM is answered on {@code port} as in {@code expected}; the others are left in {@code missing}. */
  private boolean allAnswered(int port, FleetScenario scenario, Map<String, String> expected, Set<String> missing) {
    missing.clear();
    for (FleetScenario.Vm vm : scenario.vms()) {
      if (!expected.get(vm.id()).equals(answer(port, vm))) {
        missing.add(vm.name());
      }
    }
    return missing.isEmpty();
  }

  /** How often the instance left RUNNING: a rebalance began. */
  private static long leftRunning(StunwatchProcess p) {
    return p.stderr().stream().filter(l -> l.contains("Stream processor RUNNING -> ")).count();
  }

  /** How many times the instance has come back to RUNNING from a rebalance, as its log says. */
  private static long rebalances(StunwatchProcess p) {
    return p.stderr().stream().filter(l -> l.contains("Stream processor REBALANCING -> RUNNING")).count();
  }

  private StunwatchProcess api(String name, int port) {
    StunwatchProcess p = StunwatchProcess.start(Map.of(
        "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", KAFKA.bootstrapServers(),
        "STUNWATCH_PROCESS_APPLICATION_ID", APPLICATION,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve(name).toString(),
        "STUNWATCH_PROCESS_INSTANCE_ID", APPLICATION + "-" + name,
        "STUNWATCH_PROCESS_STANDBY_REPLICAS", "1",
        "STUNWATCH_PROCESS_SESSION_TIMEOUT", SESSION_TIMEOUT.toSeconds() + "s",
        // The answers are compared across minutes of wall time: only event time may close the scenario's last
        // migrations, not a minute of no input, which a slow machine reaches between two reads of one record.
        "STUNWATCH_PROCESS_IDLE_CLOSE", "1d",
        "STUNWATCH_API_HOST", "127.0.0.1",
        "STUNWATCH_API_PORT", String.valueOf(port),
        "STUNWATCH_API_TOKEN", TOKEN), "api");
    p.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
    return p;
  }

  /** What the API says of a VM that does not change once its feed has ended: its migrations, and its load. */
  private String answer(int port, FleetScenario.Vm vm) {
    HttpResponse<String> load = get(port, "/api/vms/" + vm.id() + "/load?window=1m&from="
        + Instant.now().minus(Duration.ofHours(1)) + "&to=" + Instant.now().plus(Duration.ofHours(1)));
    if (load.statusCode() != 200) {
      return null;
    }
    JsonNode l = json(load.body());
    return ids(port, vm) + " " + l.path("latest").asText() + " " + l.path("windows").toString();
  }

  private Set<String> ids(int port, FleetScenario.Vm vm) {
    HttpResponse<String> r = get(port, "/api/migrations?limit=1000&vm=" + vm.id());
    if (r.statusCode() != 200) {
      return Set.of("status " + r.statusCode());
    }
    return StreamSupport.stream(json(r.body()).spliterator(), false)
        .map(n -> n.path("migration").path("id").asText() + "=" + n.path("migration").path("state").asText())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private HttpResponse<String> get(int port, String path) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(path + ": interrupted", e);
    }
  }

  private static JsonNode json(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalStateException("not JSON: " + body, e);
    }
  }

  private int status(int port, String path) {
    try {
      return get(port, path).statusCode();
    } catch (IllegalStateException e) {
      return -1;
    }
  }

  /** The requests an instance's internal routes have answered: other instances asking it for their parts. */
  private double internalRequests(int port) {
    Matcher m = INTERNAL.matcher(get(port, "/metrics").body());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** The requests an instance's internal route {@code route} has answered. */
  private double internalRequests(int port, String route) {
    Matcher m = Pattern.compile("(?m)^stunwatch_api_requests_seconds_count\\{[^}]*route=\"" + Pattern.quote(route)
        + "\"[^}]*} ([0-9.eE+]+)$").matcher(get(port, "/metrics").body());
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return sum;
  }

  /** Records read back into this instance's stores since it started, by {@code task}: active or standby. */
  private double restored(int port, String task) {
    Matcher m = RESTORED.matcher(get(port, "/metrics").body());
    double sum = 0;
    while (m.find()) {
      if (m.group(1).equals(task)) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }

  /** The records the application's changelogs hold now: the sum of their partitions' end offsets. */
  private static long changelogRecords() throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
      Set<String> topics = admin.listTopics().names().get().stream()
          .filter(t -> t.startsWith(APPLICATION + "-") && t.endsWith("-changelog")).collect(Collectors.toSet());
      Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
      admin.describeTopics(topics).allTopicNames().get().forEach((t, d) -> d.partitions()
          .forEach(p -> ends.put(new TopicPartition(t, p.partition()), OffsetSpec.latest())));
      return admin.listOffsets(ends).all().get().values().stream().mapToLong(o -> o.offset()).sum();
    }
  }

}
