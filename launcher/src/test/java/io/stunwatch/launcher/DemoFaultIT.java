package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.launcher.demo.Demo;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.json.Json;
import io.stunwatch.testsupport.Await;
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
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault end-to-end test: while the demo's fleet keeps migrating VMs, the processor and the API are restarted.
 * Nothing is lost (every migration the API listed before is listed after, and the listed ids equal the migrations
 * the simulated vCenter started, before and across the restart: those planned, less the DRS moves the guard held
 * back), and the API answers again. How fast it answers is a product figure, measured by {@code stunwatch bench
 * fleet} (docs/performance.md); here it is logged and bounded only loosely (two minutes), so that a busy machine does
 * not fail a test of what is lost.
 */
class DemoFaultIT {

  private static final Logger LOG = LoggerFactory.getLogger(DemoFaultIT.class);

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void restartingTheProcessorAndApiLosesNoMigrationAndTheApiAnswersAgain() throws Exception {
    // Six simulated hours of history at x60 are six real minutes: the whole test, restart and the five simulated
    // minutes after it, happens while the fleet is sped up. Past the present the fleet runs live (x1), and five
    // simulated minutes would take five real ones. Each comparison is up to a fixed point of simulated time, not up
    // to the fleet's moving present: an API that lags a fleet at x60 by more than a real second would never match a
    // moving one.
    try (Demo demo = Demo.start(new Demo.Options(60, Duration.ofHours(6), 16, 7, dir.resolve("demo"), 0,
        Duration.ofSeconds(40)), Clock.systemUTC())) {
      String token = Files.readString(demo.tokenFile()).trim();
      Instant start = demo.simulationStart();

      // before: the API lists exactly the migrations the vCenter started up to the 20th planned one (those the guard
      // held back are not started), once the fleet is a simulated minute past it
      Instant before = demo.scenario().plans().stream().map(FleetScenario.Plan::start)
          .filter(t -> !t.isBefore(start)).sorted().skip(19).findFirst().orElseThrow();
      Await.until(Duration.ofSeconds(240), () -> {
        Instant fleetAt = demo.feed().lastReleased();
        if (fleetAt == null || fleetAt.isBefore(before.plusSeconds(60))) {
          return false;
        }
        Set<String> started = startedBy(demo, start, before);
        return started.size() >= 10 && started.equals(listed(demo, token, start, before).keySet());
      }, "the API to list every migration started in the first simulated minutes",
          () -> diagnosis(demo, token, start, before));
      Map<String, String> listedBefore = listed(demo, token, start, before);
      LOG.info("{} migrations listed before the restart (started by {})", listedBefore.size(), before);

      assertThat(demo.clock().live()).as("the fleet still sped up at the restart: %s",
          diagnosis(demo, token, start, before)).isFalse();
      long t0 = System.nanoTime();
      demo.site().restartApi();
      Await.until(Duration.ofMinutes(2), () -> {
        try {
          return status(demo, token, "/api/migrations?limit=1") == 200;
        } catch (Exception e) {
          return false;
        }
      }, "the API to answer again after the restart", () -> "the API answers "
          + statusOrWhy(demo, token, "/api/migrations?limit=1"));
      long answeredAfterMillis = (System.nanoTime() - t0) / 1_000_000;
      LOG.info("the API answered {} ms after the restart began", answeredAfterMillis);

      // after: the same migrations, none lost, none doubled; states only move forward
      Map<String, String> listedAfter = listed(demo, token, start, before);
      assertThat(listedAfter.keySet()).isEqualTo(listedBefore.keySet());
      listedBefore.forEach((id, state) -> {
        if (!state.equals("IN_PROGRESS")) {
          assertThat(listedAfter.get(id)).as(id).isEqualTo(state);
        }
      });

      // and what the fleet did during and after the restart arrives too
      // five simulated minutes past the restart, once the fleet is a simulated minute past that
      Instant by = demo.feed().lastReleased().plusSeconds(300);
      Await.until(Duration.ofSeconds(180), () -> {
        Instant fleetAt = demo.feed().lastReleased();
        return !fleetAt.isBefore(by.plusSeconds(60))
            && startedBy(demo, start, by).equals(listed(demo, token, start, by).keySet());
      }, "every migration started across the restart to be listed", () -> "compared up to " + by + " once the fleet "
          + "is past " + by.plusSeconds(60) + "; " + diagnosis(demo, token, start, by));
      assertThat(demo.fleetFailure()).isNull();
    }
  }

  /** The migrations the demo's vCenter started in [from, to]: those planned, less those DRS held back. */
  static Set<String> startedBy(Demo demo, Instant from, Instant to) {
    Set<String> heldBack = demo.heldBackMigrations();
    return demo.scenario().plans().stream().filter(p -> !p.start().isBefore(from) && !p.start().isAfter(to))
        .map(FleetScenario.Plan::migrationId).filter(id -> !heldBack.contains(id))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** Migration id to state, of those started in [from, to]; empty while the API does not answer. */
  Map<String, String> listed(Demo demo, String token, Instant from, Instant to) {
    Map<String, String> out = new TreeMap<>();
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(demo.site().apiUrl()
          + "/api/migrations?limit=1000&from=" + enc(from) + "&to=" + enc(to)))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return Map.of();
      }
      for (JsonNode m : Json.mapper().readTree(r.body())) {
        out.put(m.path("migration").path("id").asText(), m.path("migration").path("state").asText());
      }
    } catch (Exception e) {
      return Map.of();
    }
    return out;
  }

  /**
   * Where the comparison stands: the fleet's and the simulation's time and speed, and each migration the vCenter
   * started and the API does not list (with its plan), or the API lists and the vCenter did not start (with its
   * state there).
   */
  String diagnosis(Demo demo, String token, Instant from, Instant to) {
    StringBuilder out = new StringBuilder();
    out.append("fleet at ").append(demo.feed().lastReleased()).append(", simulated now ")
        .append(demo.clock().instant()).append(demo.clock().live() ? " (live, x1)" : " (x" + demo.clock().speedNow()
        + ")").append(", compared up to ").append(to);
    if (to == null) {
      return out.toString();
    }
    Set<String> started = startedBy(demo, from, to);
    Map<String, String> listed = listed(demo, token, from, to);
    out.append("; ").append(started.size()).append(" started, ").append(listed.size()).append(" listed");
    if (listed.isEmpty()) {
      out.append(" (the API answers ").append(statusOrWhy(demo, token, "/api/migrations?limit=1")).append(')');
    }
    Map<String, FleetScenario.Plan> plans = demo.scenario().plans().stream()
        .collect(Collectors.toMap(FleetScenario.Plan::migrationId, p -> p, (a, b) -> a));
    for (String id : started) {
      if (!listed.containsKey(id)) {
        FleetScenario.Plan p = plans.get(id);
        out.append("\n  missing ").append(id).append(": started ").append(p.start()).append(" for ").append(p.seconds())
            .append(" s").append(p.drs() ? ", DRS" : "").append(p.fails() ? ", to fail" : "").append(", ")
            .append(state(demo, token, id));
      }
    }
    listed.forEach((id, state) -> {
      if (!started.contains(id)) {
        FleetScenario.Plan p = plans.get(id);
        out.append("\n  listed, not started: ").append(id).append(' ').append(state)
            .append(p == null ? ", not planned" : ", planned at " + p.start())
            .append(demo.heldBackMigrations().contains(id) ? ", held back by the guard" : "");
      }
    });
    return out.toString();
  }

  /** The API's answer for one migration: its state, or the HTTP status. */
  String state(Demo demo, String token, String id) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(demo.site().apiUrl()
          + "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8)))
          .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200
          ? "in the API as " + Json.mapper().readTree(r.body()).path("migration").path("state").asText()
          : "GET /api/migrations/{id}: " + r.statusCode();
    } catch (Exception e) {
      return "GET /api/migrations/{id}: " + e;
    }
  }

  String statusOrWhy(Demo demo, String token, String path) {
    try {
      return String.valueOf(status(demo, token, path));
    } catch (Exception e) {
      return e.toString();
    }
  }

  int status(Demo demo, String token, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(demo.site().apiUrl() + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  static String enc(Instant t) {
    return URLEncoder.encode(t.toString(), StandardCharsets.UTF_8);
  }
}
