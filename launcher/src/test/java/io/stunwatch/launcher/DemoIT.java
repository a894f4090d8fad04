package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.json.Json;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.StunwatchProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End-to-end acceptance: the real {@code stunwatch demo --speed 60}, headless, checked through its public API only
 * (the HTTP API with the token it wrote, and {@code /metrics}), then stopped with Ctrl-C (SIGINT).
 */
class DemoIT {

  static final int VMS = 32;

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theDemoShowsMigrationsStunsAlertsAnnotationsAndPerVmSeriesThroughThePublicApi() throws Exception {
    Path data = dir.resolve("demo");
    try (StunwatchProcess demo = StunwatchProcess.start("demo", "--speed", "60", "--history", "2h", "--port", "0",
        "--data-dir", data.toString(), "--duration", "10m", "--summary-every", "1s")) {
      String url = demo.awaitStdout("^" + Pattern.quote(DemoCommand.READY_LINE) + "(\\S+)$",
          Duration.ofSeconds(120)).group(1);
      String token = Files.readString(data.resolve("api-token")).trim();
      long begin = System.nanoTime();
      Matcher from = demo.awaitStdout("simulated from (\\S+) at x60", Duration.ofSeconds(30));
      Instant start = Instant.parse(from.group(1));
      String[] range = {null};

      // the demo runs at 60x: two simulated hours take two real minutes
      List<JsonNode> migrations = new ArrayList<>();
      Await.until(Duration.ofSeconds(300), Duration.ofMillis(250), () -> {
        migrations.clear();
        range[0] = "from=" + enc(start.toString()) + "&to=" + enc(Instant.now().toString());
        try {
          get(url, token, "/api/migrations?limit=1000&" + range[0]).forEach(migrations::add);
        } catch (Exception e) {
          return false; // 503 until the processor's stores are ready
        }
        return migrations.stream().filter(m -> "VMWARE_LOG".equals(m.path("stun").path("source").asText()))
            .count() >= 15 && migrations.stream().anyMatch(m -> "FAILED".equals(state(m)));
      }, "15 migrations with their vmware.log stun, and a failed one", () -> String.join("\n", demo.stdout()));

      System.out.printf("demo: %d migrations listed after %d ms%n", migrations.size(),
          (System.nanoTime() - begin) / 1_000_000);
      assertThat(migrations).extracting(m -> m.path("migration").path("initiator").asText())
          .contains("USER", "DRS");
      // a quarter of the fleet has no worker in its guest: those VMs are seen from their hosts only
      assertThat(migrations).extracting(m -> m.path("loadSource").asText()).contains("GUEST", "HOST");
      for (JsonNode m : migrations) {
        JsonNode stun = m.path("stun");
        if (stun.path("source").asText().equals("VMWARE_LOG")) {
          // the simulated vCenter follows VMware's published vSphere 7 figure, about 2 s per GiB of FB in use
          double perGiB = stun.get("seconds").asDouble() / (m.get("fbUsedMiB").asDouble() / 1024);
          assertThat(perGiB).as("stun per GiB of " + m.path("migration").path("id")).isBetween(1.6, 2.4);
        }
      }

      Set<String> underLoad = migrations.stream().filter(m -> m.path("underLoad").asBoolean())
          .map(m -> m.path("migration").path("id").asText()).collect(Collectors.toSet());
      assertThat(underLoad).as("migrations under load").isNotEmpty();
      JsonNode alerts = get(url, token, "/api/alerts?limit=1000&" + range[0]);
      Set<String> alerted = StreamSupport.stream(alerts.spliterator(), false)
          .map(a -> a.path("migrationId").asText()).collect(Collectors.toSet());
      assertThat(alerted).containsAll(underLoad);
      for (JsonNode a : alerts) {
        JsonNode load = a.path("load");
        assertThat(load.path("gpuUtilizationAvgPct").asDouble() >= 50 || load.path("fbUsedPct").asDouble() >= 80
            || load.path("rdmaBitsPerSec").asDouble() >= 1e9).as("alert over a threshold: " + a).isTrue();
        // The forecast scales the framebuffer in use, so it exists exactly when that is known: an alert raised on
        // RDMA alone, before any GPU sample of the window reached the task (the demo lags its clock at first), has
        // none, rather than a forecast of 0 s.
        JsonNode p50 = a.path("forecast").path("p50Seconds");
        if (load.path("fbUsedMiB").isNumber()) {
          assertThat(p50.isNumber()).as("forecast of " + a).isTrue();
          assertThat(p50.asDouble() > 0).as("forecast of " + a).isEqualTo(load.path("fbUsedMiB").asLong() > 0);
        } else {
          assertThat(a.hasNonNull("forecast")).as("forecast of " + a).isFalse();
        }
      }

      planningBeforeAMove(url, token, data.resolve("api-token"), migrations);

      JsonNode annotations = get(url, token, "/api/grafana/annotations?from=" + start.toEpochMilli() + "&to="
          + Instant.now().toEpochMilli());
      assertThat(annotations.size()).isGreaterThanOrEqualTo(migrations.size());
      assertThat(annotations.get(0).path("title").asText()).startsWith("vMotion ");

      // per-VM series exist while the VM's samples are fresh: on a busy machine the fleet may lag for a while
      String gpu = Meters.VM_GPU_UTILIZATION.replace('.', '_');
      List<String> names = IntStream.range(0, VMS).mapToObj(i -> String.format("gpu-vm-%02d", i)).toList();
      String[] metrics = {""};
      Set<String> missing = new TreeSet<>(names);
      long seriesWait = System.nanoTime();
      // A VM's series goes once its newest sample is 300 simulated seconds old: 5 real seconds at x60, so a fleet
      // that lags its clock (the summary says "fleet N min behind") has gaps until it catches up, at the latest
      // some seconds after the demo reaches the present at 2 real minutes. A scrape renders some 200 KB: once a
      // second, so that asking does not slow down the fleet it waits for (every 20 ms cost the demo half a core).
      Await.until(Duration.ofSeconds(240), Duration.ofSeconds(1), () -> {
        try {
          metrics[0] = http.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
          return false;
        }
        Set<String> vmsWithSeries = Pattern.compile("^" + gpu + "\\{[^}]*vm=\"([^\"]+)\"", Pattern.MULTILINE)
            .matcher(metrics[0]).results().map(r -> r.group(1)).collect(Collectors.toSet());
        missing.clear();
        names.stream().filter(n -> !vmsWithSeries.contains(n)).forEach(missing::add);
        return missing.isEmpty();
      }, "a GPU utilization series for each of the " + VMS + " VMs", () -> "missing " + missing + "; series:\n"
          + metrics[0].lines().filter(l -> l.startsWith(gpu) || l.startsWith(Meters.LAST_EVENT.replace('.', '_')))
              .collect(Collectors.joining("\n")) + "\n--- demo stdout ---\n" + String.join("\n", demo.stdout()));
      System.out.printf("demo: a series for each VM after %d ms more%n", (System.nanoTime() - seriesWait) / 1_000_000);
      assertThat(metrics[0]).contains(Meters.VM_RDMA.replace('.', '_') + "{")
          .contains(Meters.VM_FB_USED.replace('.', '_') + "{")
          .contains(Meters.VM_THROUGHPUT.replace('.', '_') + "{");

      assertThat(status(url, null, "/api/migrations")).as("no token").isEqualTo(401);

      // a second demo on the same port says which port and what to do, and leaves the first one alone
      String port = url.substring(url.lastIndexOf(':') + 1);
      long t0 = System.nanoTime();
      try (StunwatchProcess second = StunwatchProcess.start("demo", "--port", port, "--data-dir",
          dir.resolve("second").toString())) {
        assertThat(second.awaitExit(Duration.ofSeconds(120))).isEqualTo(ExitCodes.FAILED);
        System.out.printf("second demo on the same port: exit after %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        assertThat(second.stderr()).contains("stunwatch demo: the API's port " + port
            + " is in use: choose another with --port (0 for any free one)");
      }
      assertThat(status(url, token, "/api/migrations?limit=1")).isEqualTo(200);

      t0 = System.nanoTime();
      int exit = demo.interrupt(Duration.ofSeconds(90));
      System.out.printf("demo stopped %d ms after SIGINT%n", (System.nanoTime() - t0) / 1_000_000);
      assertThat(exit).as("exit on Ctrl-C").isIn(0, 130);
      assertThat(demo.stdout()).anyMatch(l -> l.startsWith("Stopped."));
      // a newcomer's first minutes: a handful of warnings at most, each meaning something, and no error, the
      // embedded broker's included.
      List<String> warnings = demo.stderr().stream().filter(l -> l.contains(" WARN ")).toList();
      assertThat(demo.stderr()).as("errors").noneMatch(l -> l.contains(" ERROR "));
      assertThat(warnings).as("warnings").hasSizeLessThanOrEqualTo(10);
      assertThat(demo.stdout()).anyMatch(l -> l.matches("^\\[.* UTC .*\\] \\d+ migrations, \\d+ under-load alerts .*"));
    }
  }

  /**
   * The plans of the same demo: the backtest of its forecasts, a VM's migrate check, its host's evacuation, and the
   * CLI that prints that plan.
   */
  void planningBeforeAMove(String url, String token, Path tokenFile, List<JsonNode> migrations) throws Exception {
    // a stun joins the model once its impact settles, two simulated minutes after its migration ended
    JsonNode[] answer = {null};
    Await.until(Duration.ofSeconds(120), Duration.ofSeconds(1), () -> {
      try {
        answer[0] = get(url, token, "/api/stun-time/accuracy");
      } catch (Exception e) {
        return false;
      }
      return answer[0].path("overall").path("count").asLong() >= 15;
    }, "15 backtested stuns", () -> String.valueOf(answer[0]));
    JsonNode accuracy = answer[0];
    System.out.println("demo: forecast accuracy " + accuracy.path("overall"));
    assertThat(accuracy.path("vcenterVersion").asText()).as("the simulated vCenter's AboutInfo").isEqualTo("7.0.3");
    JsonNode overall = accuracy.path("overall");
    assertThat(overall.path("medianAbsPctError").asDouble()).as("median error of every forecast").isLessThan(25.0);
    assertThat(overall.path("referenceMedianAbsPctError").isNumber()).isTrue();
    assertThat(accuracy.path("profiles").size()).isGreaterThan(1);

    String vm = migrations.stream().filter(m -> "VMWARE_LOG".equals(m.path("stun").path("source").asText()))
        .map(m -> m.path("migration").path("vmId").asText()).findFirst().orElseThrow();
    JsonNode check = get(url, token, "/api/vms/" + vm + "/migrate-check");
    assertThat(check.path("safe").isBoolean()).as("a yes or a no: " + check).isTrue();
    assertThat(check.path("safe").asBoolean()).isEqualTo(check.path("reasons").isEmpty());
    assertThat(check.path("byHourOfDay").size()).isEqualTo(24);
    assertThat(check.path("inputs").path("linkMbps").asLong()).as("the simulated hosts' vMotion uplink")
        .isEqualTo(25_000L);
    String host = check.path("host").asText();

    JsonNode plan = get(url, token, "/api/hosts/" + enc(host) + "/evacuation");
    JsonNode vms = plan.path("vms");
    assertThat(vms.size()).as("VMs on " + host).isGreaterThan(0);
    List<String> actions = new ArrayList<>();
    for (int i = 0; i < vms.size(); i++) {
      JsonNode row = vms.get(i);
      assertThat(row.path("order").asInt()).isEqualTo(i + 1);
      actions.add(row.path("action").asText());
      JsonNode f = row.path("forecast");
      if (f.isObject()) {
        assertThat(f.path("reference").path("p50Seconds").isNumber()).as("VMware's figure beside " + row).isTrue();
        assertThat(f.path("basis").asText()).as("a profile the demo has moved: " + row).startsWith("SITE_");
      }
    }
    assertThat(actions).as("idle first, then busy, then deferred, then those that would fail").isSortedAccordingTo(
        Comparator.comparingInt(a -> List.of("MOVE", "MOVE_LAST", "DEFER", "WOULD_FAIL").indexOf(a)));
    assertThat(actions).allMatch(a -> List.of("MOVE", "MOVE_LAST", "DEFER", "WOULD_FAIL").contains(a));
    assertThat(plan.path("totals").path("vms").asInt()).isEqualTo(vms.size());

    // The fleet goes on moving VMs, and a CLI started on a busy machine asks seconds after the API was asked: the
    // host may have lost its VMs meanwhile. Each plan is consistent with itself; the host asked is the checked VM's
    // where it is now, until a plan shows a VM on it.
    long rows = 0;
    for (int attempt = 1; attempt <= 5 && rows == 0; attempt++) {
      String now = attempt == 1 ? host : get(url, token, "/api/vms/" + vm + "/migrate-check").path("host").asText();
      try (StunwatchProcess cli = StunwatchProcess.start(Map.of("STUNWATCH_API_TOKEN_FILE", tokenFile.toString()),
          "plan", "evacuate", now, "--api", url)) {
        assertThat(cli.awaitExit(Duration.ofSeconds(60))).as(String.join("\n", cli.stderr())).isZero();
        System.out.println("demo: stunwatch plan evacuate " + now + "\n" + String.join("\n", cli.stdout()));
        assertThat(cli.stdout()).first().asString().startsWith("Evacuation of " + now);
        long listed = cli.stdout().stream()
            .filter(l -> l.matches("^\\s+\\d+\\s+(MOVE|MOVE_LAST|DEFER|WOULD_FAIL)\\s.*")).count();
        assertThat(cli.stdout()).anyMatch(l -> l.startsWith("Total: " + listed + " VMs"));
        rows = listed;
      }
    }
    assertThat(rows).as("VMs in a plan of the checked VM's host, in 5 tries").isPositive();
    try (StunwatchProcess cli = StunwatchProcess.start(Map.of("STUNWATCH_API_TOKEN_FILE", tokenFile.toString()),
        "plan", "check", vm, "--api", url)) {
      int exit = cli.awaitExit(Duration.ofSeconds(60));
      List<String> out = cli.stdout();
      assertThat(exit).as("0 when safe, 3 when not: " + out + cli.stderr()).isIn(0, PlanCommand.NOT_SAFE);
      assertThat(out).first().asString().contains(exit == 0 ? ": safe to migrate now" : ": not safe to migrate now");
    }
  }

  static String state(JsonNode m) {
    return m.path("migration").path("state").asText();
  }

  JsonNode get(String url, String token, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(path + ": " + r.statusCode() + " " + r.body());
    }
    return Json.mapper().readTree(r.body());
  }

  int status(String url, String token, String path) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
