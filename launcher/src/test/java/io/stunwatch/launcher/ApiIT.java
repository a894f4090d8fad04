package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.metrics.Meters;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.streams.KafkaStreams;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code stunwatch api} instances (processor and HTTP each) on the embedded broker, fed a simulated fleet: every
 * endpoint answers from the real stores, and each instance answers for the whole application, forwarding what the
 * other owns.
 */
class ApiIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "api-it-token-" + Long.toHexString(System.nanoTime());
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError(path + " -> " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }

  int status(int port, String path, boolean auth) throws Exception {
    var b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (auth) {
      b.header("Authorization", "Bearer " + TOKEN);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  Set<String> ids(int port, String query) throws Exception {
    var page = get(port, "/api/migrations?limit=1000" + query);
    return StreamSupport.stream(page.spliterator(), false)
        .map(n -> n.get("migration").get("id").asText()).collect(Collectors.toSet());
  }

  /** The ids of every page of a list, following its cursor. */
  List<String> walk(int port, String query) throws Exception {
    List<String> out = new ArrayList<>();
    String cursor = null;
    do {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/api/migrations?" + query.substring(1) + (cursor == null ? "" : "&cursor=" + cursor)))
          .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JSON.readTree(r.body()).forEach(n -> out.add(n.get("migration").get("id").asText()));
      cursor = r.headers().firstValue("X-Next-Cursor").orElse(null);
    } while (cursor != null);
    return out;
  }

  @Test
  void twoInstancesAnswerEveryEndpointForTheWholeApplication() throws Exception {
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(9, 8, 3, start, Duration.ofMinutes(9),
        Duration.ofSeconds(20)));
    Instant last = start.plus(Duration.ofMinutes(9)).minusSeconds(1);
    Set<String> started = scenario.plans().stream().map(FleetScenario.Plan::migrationId).collect(Collectors.toSet());
    Set<String> settled = ScenarioReplay.settledBy(scenario, last);
    assertThat(settled).hasSizeGreaterThan(3);

    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ApiConfig api = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 1000, Duration.ofDays(92), null, null);
    ProcessorConfig base = ProcessorConfig.defaults();
    try (ApiApplication a = ApiApplication.start(api, base.withIdentity("api-it", dir.resolve("a")), kafka,
        Clock.systemUTC());
        ApiApplication b = ApiApplication.start(api, base.withIdentity("api-it", dir.resolve("b")), kafka,
            Clock.systemUTC())) {
      Await.until(Duration.ofSeconds(90), () -> ready(a) && ready(b) && tasks(a) > 0 && tasks(b) > 0,
          "both instances ready with partitions of their own",
          () -> "a: ready " + ready(a) + ", " + tasks(a) + " tasks; b: ready " + ready(b) + ", " + tasks(b) + " tasks");

      ScenarioReplay.replay(KAFKA.bootstrapServers(), scenario);

      // a failed migration has no stun (UNKNOWN); a successful, logged one must carry the vmware.log figure, which
      // may revise a gap estimate when the log record reaches the VM's task after the impact was first closed
      FleetScenario.Plan one = scenario.plans().stream()
          .filter(p -> settled.contains(p.migrationId()) && !p.fails() && p.logged()).findFirst().orElseThrow();
      String onePath = "/api/migrations/" + URLEncoder.encode(one.migrationId(), "UTF-8");
      Await.until(Duration.ofSeconds(120), () -> {
        try {
          return ids(a.port(), "").containsAll(started) && settledOn(a.port(), settled)
              && "VMWARE_LOG".equals(get(b.port(), onePath).path("stun").path("source").asText());
        } catch (Exception e) {
          return false; // 503 while a rebalance settles
        }
      }, "every migration listed and every settled one with its stun", () -> {
        try {
          Set<String> missing = new java.util.TreeSet<>(started);
          missing.removeAll(ids(a.port(), ""));
          return "not listed by a: " + missing + "; settled on a: " + settledOn(a.port(), settled) + "; " + onePath
              + " on b: " + get(b.port(), onePath).path("stun");
        } catch (Exception e) {
          return e.toString();
        }
      });

      // each instance answers for both
      assertThat(ids(b.port(), "")).isEqualTo(ids(a.port(), ""));
      FleetScenario.Plan drs = scenario.plans().stream().filter(FleetScenario.Plan::drs).findFirst().orElseThrow();
      assertThat(ids(b.port(), "&initiator=drs")).contains(drs.migrationId());
      assertThat(ids(a.port(), "&vm=" + drs.vm().id())).contains(drs.migrationId())
          .allMatch(id -> scenario.plans().stream().anyMatch(p -> p.migrationId().equals(id)
              && p.vm().equals(drs.vm())));

      // a VM's list, paged one row at a time in every sort on each instance (one of them asks the other), is the
      // list read whole and sorted
      for (String sort : List.of("start", "-start", "stun", "-stun", "duration", "-duration")) {
        List<String> whole = walk(a.port(), "&vm=" + drs.vm().id() + "&count=true&sort=" + sort);
        assertThat(whole).as(sort).hasSizeGreaterThan(1);
        for (int port : new int[] {a.port(), b.port()}) {
          assertThat(walk(port, "&vm=" + drs.vm().id() + "&limit=1&sort=" + sort)).as(sort).isEqualTo(whole);
        }
      }

      // one not settled yet has no impact record: it is answered with its summary, from whichever instance has it
      String open = started.stream().filter(id -> !settled.contains(id)).findFirst().orElseThrow();
      for (int port : new int[] {a.port(), b.port()}) {
        var running = get(port, "/api/migrations/" + URLEncoder.encode(open, "UTF-8"));
        assertThat(running.path("migration").path("id").asText()).isEqualTo(open);
        assertThat(running.has("timeline")).isFalse();
      }

      var impact = get(b.port(), onePath);
      assertThat(impact.get("timeline").size()).isGreaterThan(100);
      assertThat(impact.get("stun").get("source").asText()).isEqualTo("VMWARE_LOG");
      assertThat(impact.get("stun").get("seconds").asDouble()).isCloseTo(one.stunMillis() / 1000.0,
          Offset.offset(0.01));

      for (FleetScenario.Plan p : scenario.plans()) {
        // one VM's list, read from the one partition that holds it, locally or on the other instance
        Set<String> ofVm = scenario.plans().stream().filter(q -> q.vm().equals(p.vm()))
            .map(FleetScenario.Plan::migrationId).filter(started::contains).collect(Collectors.toSet());
        assertThat(ids(a.port(), "&vm=" + p.vm().id())).as("migrations of " + p.vm().name()).isEqualTo(ofVm)
            .isEqualTo(ids(b.port(), "&vm=" + p.vm().id()));
        var load = get(a.port(), "/api/vms/" + p.vm().id() + "/load?window=10s&from=" + start + "&to=" + last);
        assertThat(load.get("windows").size()).as("windows of " + p.vm().name()).isGreaterThan(10);
        assertThat(get(b.port(), "/api/vms/" + p.vm().id() + "/load").get("vmId").asText()).isEqualTo(p.vm().id());
      }
      assertThat(get(a.port(), "/api/alerts?from=" + start + "&to=" + last).size()).isGreaterThan(0);
      var util = get(b.port(), "/api/utilization?groupBy=host&from=" + start.truncatedTo(ChronoUnit.DAYS)
          + "&to=" + last);
      assertThat(util.size()).isGreaterThan(0);
      assertThat(util.get(0).get("busyGpuHours").asDouble() + util.get(0).get("idleGpuHours").asDouble())
          .isGreaterThan(0);
      var annotations = get(a.port(), "/api/grafana/annotations?from=" + start.toEpochMilli() + "&to="
          + last.toEpochMilli());
      assertThat(annotations.size()).isEqualTo(started.size());
      // The model is read back from its topic by each instance's global store, after the commit that wrote the
      // impacts: it may trail the lists by one read of that topic.
      Await.until(Duration.ofSeconds(30), () -> {
        try {
          return get(a.port(), "/api/stun-time/stats?groupBy=profile").size() > 0
              && get(b.port(), "/api/stun-time/stats?groupBy=profile").size() > 0;
        } catch (Exception e) {
          return false;
        }
      }, "the stun-time model of the settled migrations, on both instances", () -> {
        try {
          return "a: " + get(a.port(), "/api/stun-time/stats?groupBy=profile") + "; b: "
              + get(b.port(), "/api/stun-time/stats?groupBy=profile");
        } catch (Exception e) {
          return e.toString();
        }
      });
      var forecast = get(b.port(), "/api/stun-time/forecast?vm=" + drs.vm().id());
      assertThat(forecast.get("forecast").get("p50Seconds").asDouble()).isGreaterThan(0);

      assertThat(status(a.port(), "/api/migrations", false)).isEqualTo(401);
      assertThat(status(a.port(), "/api/migrations/no-such-id", true)).isEqualTo(404);
      assertThat(status(a.port(), "/ready", false)).isEqualTo(200);
      HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.port()
          + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body()).contains("stunwatch_api_requests").contains("kafka_stream");

      // each VM's gauges are on the /metrics of the instance that owns it, and only there: together, every VM once
      // (by its id, labelled with the vCenter of the inventory)
      Await.until(Duration.ofSeconds(30), () -> {
        List<String> both = new ArrayList<>(vmsOnMetrics(a.port()));
        both.addAll(vmsOnMetrics(b.port()));
        return both.size() >= scenario.vms().size();
      }, "every VM's GPU gauge on one of the instances",
          () -> "a: " + vmsOnMetrics(a.port()) + "; b: " + vmsOnMetrics(b.port()) + "; of " + scenario.vms().size());
      List<String> onA = vmsOnMetrics(a.port());
      List<String> onB = vmsOnMetrics(b.port());
      assertThat(onA).as("on a").isNotEmpty();
      assertThat(onB).as("on b").isNotEmpty();
      List<String> all = new ArrayList<>(onA);
      all.addAll(onB);
      assertThat(all).as("one series per VM").hasSize(scenario.vms().size());
      for (FleetScenario.Vm vm : scenario.vms()) {
        assertThat(all.stream().filter(l -> l.equals(vm.id() + " " + FleetScenario.VCENTER)).count())
            .as(vm.name() + " on exactly one instance, with its vCenter").isEqualTo(1);
      }
    }
  }

  /** {@code <vm_id> <vcenter>} of each GPU utilization series on an instance's /metrics page. */
  private List<String> vmsOnMetrics(int port) {
    String page;
    try {
      page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    Pattern vm = Pattern.compile("[{,]vm_id=\"([^\"]*)\"");
    Pattern vcenter = Pattern.compile("[{,]vcenter=\"([^\"]*)\"");
    List<String> out = new ArrayList<>();
    for (String line : page.split("\n")) {
      if (line.startsWith(Meters.VM_GPU_UTILIZATION.replace('.', '_') + "{")) {
        Matcher m = vm.matcher(line);
        Matcher v = vcenter.matcher(line);
        if (m.find() && v.find()) {
          out.add(m.group(1) + " " + v.group(1));
        }
      }
    }
    return out;
  }

  private boolean settledOn(int port, Set<String> settled) throws Exception {
    var all = get(port, "/api/migrations?limit=1000");
    Map<String, Boolean> withStun = new HashMap<>();
    all.forEach(n -> withStun.put(n.get("migration").get("id").asText(), n.hasNonNull("stun")));
    return settled.stream().allMatch(id -> Boolean.TRUE.equals(withStun.get(id)));
  }

  private static boolean ready(ApiApplication app) {
    return app.processor().streams().state() == KafkaStreams.State.RUNNING;
  }

  private static int tasks(ApiApplication app) {
    return app.processor().streams().metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size())
        .sum();
  }

}
