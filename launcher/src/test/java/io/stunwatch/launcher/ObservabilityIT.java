package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.RealPeers;
import java.io.IOException;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus scrapes the {@code /metrics} of a running {@code stunwatch api} fed a simulated fleet (plus one
 * undecodable record and one vCenter checkpoint, as the real peers would send). Then every PromQL expression of
 * every dashboard and alert rule must return data through Prometheus' HTTP API, {@code promtool} must pass the
 * rules and their tests, and every API query of every dashboard must answer 200 with the fields its panel reads.
 */
class ObservabilityIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "observability-it-" + Long.toHexString(System.nanoTime());

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void prometheusGetsDataForEveryDashboardAndRuleExpressionAndEveryDashboardApiQueryAnswers() throws Exception {
    Path prometheus = RealPeers.prometheus();
    Path promtool = RealPeers.promtool();
    Path root = GrafanaFiles.root();

    assertThat(run(dir, promtool.toString(), "check", "rules", root.resolve("prometheus/rules.yml").toString()))
        .as("promtool check rules").isZero();
    assertThat(run(root.resolve("prometheus"), promtool.toString(), "test", "rules", "rules-test.yml"))
        .as("promtool test rules").isZero();

    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    // with the hosts' vGPU view, which the fleet dashboard's scheduler table reads
    // seed 12: two of its moves fail, which the failures panel counts
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(12, 8, 3, start, Duration.ofMinutes(8),
        Duration.ofSeconds(20)), 1000, Duration.ofSeconds(5));
    Instant last = start.plus(Duration.ofMinutes(8)).minusSeconds(1);
    Set<String> settled = ScenarioReplay.settledBy(scenario, last);
    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ApiConfig apiConfig = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, false, 1000, Duration.ofDays(92), null,
        null);
    // with the DRS guard, whose panels and rule read its meters and audit trail
    try (ApiApplication api = ApiApplication.start(apiConfig, ProcessorConfig.defaults().withIdentity("obs-it",
        dir.resolve("state")).withGuard(GuardConfig.OFF.withEnabled(true)), kafka, Clock.systemUTC())) {
      Await.until(Duration.ofSeconds(90), () -> api.processor().streams().state()
          == KafkaStreams.State.RUNNING, "processor running", () -> api.processor().streams().state());
      ScenarioReplay.replay(KAFKA.bootstrapServers(), scenario);
      sendBadRecordAndCheckpoint(Instant.now());
      AtomicReference<Object> waitingFor = new AtomicReference<>();
      Await.until(Duration.ofSeconds(120), () -> {
        try {
          JsonNode all = api(api.port(), "/api/migrations?limit=1000");
          Set<String> missing = new TreeSet<>(settled);
          for (JsonNode n : all) {
            if (n.hasNonNull("stun")) {
              missing.remove(n.path("migration").path("id").asText());
            }
          }
          waitingFor.set("without an impact: " + missing);
          return missing.isEmpty();
        } catch (Exception e) {
          waitingFor.set(e);
          return false;
        }
      }, "every settled migration with its impact", waitingFor::get);

      int promPort = Ports.reserve();
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, """
          global:
            scrape_interval: 1s
            evaluation_interval: 1s
          rule_files:
            - %s
          scrape_configs:
            - job_name: stunwatch-api
              metrics_path: /metrics
              authorization:
                credentials: %s
              static_configs:
                - targets: ['127.0.0.1:%d']
          """.formatted(root.resolve("prometheus/rules.yml"), TOKEN, api.port()));
      Process server = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort,
          "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile())
          .start();
      try {
        String promUrl = "http://127.0.0.1:" + promPort;
        // several scrapes after the impacts settled, so that increase() and histogram_quantile() have two points
        Await.until(Duration.ofSeconds(60), () -> count(promUrl,
            "count_over_time(up{job=\"stunwatch-api\"}[1m]) >= 8 and up{job=\"stunwatch-api\"} == 1") == 1,
            "eight scrapes of the API by Prometheus",
            () -> readLog(dir.resolve("prometheus.log")));

        List<String> noData = new ArrayList<>();
        List<String> expressions = new ArrayList<>();
        GrafanaFiles.prometheusRules().forEach((name, expr) -> expressions.add(expr));
        for (Path d : GrafanaFiles.dashboards()) {
          GrafanaFiles.queries(d).stream().filter(GrafanaFiles.Query::prometheus)
              .forEach(q -> expressions.add(q.target().path("expr").asText()));
        }
        for (String expr : expressions) {
          String evaluable = GrafanaFiles.evaluable(expr);
          // absent(x) is quiet, with no data, while x has data: x must, or the rule watches a job that is not there
          evaluable = evaluable.startsWith("absent(") ? evaluable.substring(7, evaluable.length() - 1) : evaluable;
          int n = count(promUrl, evaluable);
          if (n == 0) {
            noData.add(evaluable);
          }
        }
        if (!noData.isEmpty()) {
          // name the series Prometheus does have, to tell a renamed meter from one that had no data
          noData.add("scraped names: " + names(promUrl));
        }
        assertThat(noData).as("expressions without data (of " + expressions.size() + ")").isEmpty();

        // the drill-down of a training VM's migration, which has every series (an idle VM has no RDMA)
        String migration = null;
        for (String id : settled.stream().sorted().toList()) {
          JsonNode timeline = api(api.port(), "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8))
              .path("timeline");
          boolean rdma = false;
          boolean throughput = false;
          for (JsonNode t : timeline) {
            rdma |= t.has("rdmaBytesPerSec");
            throughput |= t.has("throughput");
          }
          if (rdma && throughput) {
            migration = id;
            break;
          }
        }
        assertThat(migration).as("a settled migration of a VM with RDMA and throughput").isNotNull();
        // the evacuation plan of the host that migration's VM runs on now
        String host = api(api.port(), "/api/migrations/" + URLEncoder.encode(migration, StandardCharsets.UTF_8))
            .path("migration").path("vmId").asText();
        host = api(api.port(), "/api/vms/" + host + "/migrate-check").path("host").asText();
        for (Path d : GrafanaFiles.dashboards()) {
          for (GrafanaFiles.Query q : GrafanaFiles.queries(d)) {
            if (q.apiUrl()) {
              checkApiQuery(api.port(), q, start.minus(Duration.ofHours(1)), last.plus(Duration.ofHours(1)),
                  migration, host);
            }
          }
        }
      } finally {
        server.destroy();
        if (!server.waitFor(10, TimeUnit.SECONDS)) {
          server.destroyForcibly();
        }
      }
    }
  }

  /**
   * Sends what the real peers would: one record a collector's bug could produce, one vCenter checkpoint, one audit
   * record of the DRS guard.
   */
  private static void sendBadRecordAndCheckpoint(Instant now) {
    try (var raw = new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        KAFKA.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
      raw.send(new ProducerRecord<>(Topics.GPU_SAMPLES.name(), "vm".getBytes(StandardCharsets.UTF_8),
          "{\"v\":1,\"vmId\":".getBytes(StandardCharsets.UTF_8)));
    }
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        KAFKA.bootstrapServers()))) {
      // of a collector that runs the DRS guard and holds nothing
      VcenterCheckpoint c = new VcenterCheckpoint(FleetScenario.VCENTER, now, List.of(1L), now, Map.of(), List.of(),
          List.of(), List.of(), now, List.of());
      p.send(Topics.VCENTER_CHECKPOINTS, FleetScenario.VCENTER, c, now);
      // and one audit record of its guard
      GuardAction a = new GuardAction("4210000b-0000-4000-8000-00000000000b", FleetScenario.VCENTER, "vm-111",
          "gpu-vm-11", new EntityRef("ClusterComputeResource", "domain-c8", "gpu-cluster"), GuardAction.Kind.PROTECT,
          GuardAction.Result.DRY_RUN, DrsOverride.MANUAL, null, null,
          "would set DRS to manual for this VM (guard.mode=dry-run)", now);
      p.send(Topics.GUARD_ACTIONS, a.vmId(), a, now);
      p.flush();
    }
  }

  /**
   * The API query of a panel, variables filled in as Grafana would, answers 200; what the panel's root selector
   * picks is non-empty and has every field a column reads.
   */
  private void checkApiQuery(int port, GrafanaFiles.Query q, Instant from, Instant to, String migration, String host)
      throws Exception {
    StringBuilder url = new StringBuilder(fill(q.target().path("url").asText(), from, to, migration, host));
    String sep = "?";
    for (JsonNode param : q.target().path("url_options").path("params")) {
      url.append(sep).append(param.path("key").asText()).append('=')
          .append(URLEncoder.encode(fill(param.path("value").asText(), from, to, migration, host),
              StandardCharsets.UTF_8));
      sep = "&";
    }
    JsonNode body = api(port, url.toString());
    String rootSelector = q.target().path("root_selector").asText("");
    JsonNode rows = rootSelector.isEmpty() ? body : path(body, rootSelector);
    List<JsonNode> list = new ArrayList<>();
    if (rows.isArray()) {
      rows.forEach(list::add);
    } else if (!rows.isMissingNode() && !rows.isNull()) {
      list.add(rows);
    }
    assertThat(list).as(q.where() + ": " + url + " returned no rows").isNotEmpty();
    // JSON leaves unknown figures out (a migration still running has no stun): a column must be filled by some row
    for (JsonNode c : q.target().path("columns")) {
      String selector = c.path("selector").asText();
      assertThat(list).as(q.where() + ": " + url + " has no row with field " + selector + ", first: " + list.get(0))
          .anyMatch(row -> !path(row, selector).isMissingNode());
    }
  }

  private static String fill(String s, Instant from, Instant to, String migration, String host) {
    return s.replace("${__from:date:iso}", from.toString()).replace("${__to:date:iso}", to.toString())
        .replace("${__from}", String.valueOf(from.toEpochMilli()))
        .replace("${__to}", String.valueOf(to.toEpochMilli()))
        .replace("${migration:percentencode}", URLEncoder.encode(migration, StandardCharsets.UTF_8))
        .replace("${evacuate:percentencode}", URLEncoder.encode(host, StandardCharsets.UTF_8).replace("+", "%20"));
  }

  private static JsonNode path(JsonNode node, String dotted) {
    JsonNode n = node;
    for (String part : dotted.split("\\.")) {
      n = n.path(part);
    }
    return n;
  }

  private JsonNode api(int port, String pathAndQuery) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(pathAndQuery + " -> " + r.body()).isEqualTo(200);
    return GrafanaFiles.JSON.readTree(r.body());
  }

  /** How many series {@code query} returns now; 0 on an error, which the assertion then names. */
  private int count(String promUrl, String query) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(promUrl + "/api/v1/query?query="
          + URLEncoder.encode(query, StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
      JsonNode body = GrafanaFiles.JSON.readTree(r.body());
      if (!"success".equals(body.path("status").asText())) {
        throw new AssertionError("Prometheus refused " + query + ": " + r.body());
      }
      JsonNode result = body.path("data").path("result");
      return result.isArray() ? result.size() : 1;
    } catch (IOException e) {
      return 0; // not up yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  private String names(String promUrl) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(promUrl + "/api/v1/label/__name__/values")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException | InterruptedException e) {
      return e.toString();
    }
  }

  private static int run(Path cwd, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(cwd.toFile()).inheritIO().start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return p.exitValue();
  }

  private static String readLog(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log) : "(no log)";
    } catch (IOException e) {
      return e.toString();
    }
  }

}
