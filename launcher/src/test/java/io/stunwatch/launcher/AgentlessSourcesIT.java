package io.stunwatch.launcher;

import static io.stunwatch.launcher.AgentlessSite.BY_HOST_NAME;
import static io.stunwatch.launcher.AgentlessSite.HOST_ONLY;
import static io.stunwatch.launcher.AgentlessSite.IDLE_HOST_SECONDS;
import static io.stunwatch.launcher.AgentlessSite.LABELED;
import static io.stunwatch.launcher.AgentlessSite.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPU VMs that run no Stunwatch worker: a site recorded three hours ago, where one VM is seen only by its ESXi hosts'
 * {@code nvidia-smi vgpu -q} (on the host it leaves, then on the one it reaches) and two only by exporters in their
 * guests, one through dcgm-exporter with a label naming the VM, one through nvidia_gpu_exporter known only by the
 * guest's host name. The recordings go through the real CLI ({@code collect vcenter|worker|prometheus --replay}) into
 * the embedded broker, {@code stunwatch api} processes them, and its answers must show each VM's migration with an
 * under-load alert and an impact, saying which view the GPU figures came from. The site is then fed again as it
 * would arrive live (the processor first, then the inventory, the readings and last the events) and must give the
 * same answers.
 */
class AgentlessSourcesIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String VC = "vc-agentless";
  static final String APPLICATION = "agentless-it";
  static final String TOKEN = "agentless-it-" + Long.toHexString(System.nanoTime());
  static final ObjectMapper JSON = new ObjectMapper();


  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void vmsSeenOnlyByTheirHostsOrByExportersHaveAlertsAndImpactsThatSayWhichViewTheyCameFrom() throws Exception {
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    Path site = Files.createDirectories(dir.resolve("site"));
    AgentlessSite.writeSite(site, base);
    Map<String, String> env = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", KAFKA.bootstrapServers(),
        "STUNWATCH_WORKER_TIMEZONE", "UTC");
    replayVcenter(env, site, true);
    replayReadings(env, site);

    int port = Ports.reserve();
    Map<String, String> answers;
    try (StunwatchProcess api = api(KAFKA.bootstrapServers(), port, "state")) {
      Await.until(Duration.ofSeconds(120), () -> settled(port, HOST_ONLY) && settled(port, LABELED)
          && settled(port, BY_HOST_NAME), "the three migrations settled", () -> String.join("\n", api.stderr()));
      // settled is not final: a host log read after an impact settled revises it, as a slow machine may read it
      awaitQuiet(KAFKA.bootstrapServers(), api);

      JsonNode hostOnly = get(port, "/api/migrations/" + enc(VC + "/" + HOST_ONLY.chain()));
      assertThat(hostOnly.path("loadSource").asText()).isEqualTo("HOST");
      assertThat(hostOnly.path("before").path("gpuUtilizationPct").asDouble()).isEqualTo(90.0);
      assertThat(hostOnly.path("during").path("gpuUtilizationPct").asDouble()).isLessThan(60.0);
      assertThat(hostOnly.path("after").path("gpuUtilizationPct").asDouble()).as("read on the destination host")
          .isEqualTo(85.0);
      assertThat(hostOnly.path("before").path("fbUsedMiB").asDouble()).isEqualTo(15360.0);
      assertThat(hostOnly.path("stun").path("source").asText()).isEqualTo("VMWARE_LOG");
      assertThat(hostOnly.path("stun").path("seconds").asDouble()).isEqualTo(12.5);
      assertThat(hostOnly.path("timeline").size()).as("a point per host reading").isBetween(60, 130);

      for (AgentlessSite.Vm vm : List.of(LABELED, BY_HOST_NAME)) {
        JsonNode i = get(port, "/api/migrations/" + enc(VC + "/" + vm.chain()));
        assertThat(i.path("loadSource").asText()).as(vm.name()).isEqualTo("GUEST");
        assertThat(i.path("before").path("gpuUtilizationPct").asDouble()).as(vm.name()).isEqualTo(96.0);
        assertThat(i.path("migration").path("vmId").asText()).isEqualTo(vm.uuid());
      }

      // the lists are read from the stores' last commit: a little after the point reads above
      String alertsPath = "/api/alerts?from=" + base + "&to=" + base.plusSeconds(SECONDS);
      Map<String, JsonNode> byMigration = new HashMap<>();
      Await.until(Duration.ofSeconds(60), () -> {
        try {
          byMigration.clear();
          get(port, alertsPath).forEach(a -> byMigration.put(a.path("migrationId").asText(), a));
          return byMigration.size() == 3;
        } catch (Exception e) {
          return false;
        }
      }, "three alerts listed", () -> byMigration.keySet().toString());
      assertThat(byMigration).containsOnlyKeys(VC + "/" + HOST_ONLY.chain(), VC + "/" + LABELED.chain(),
          VC + "/" + BY_HOST_NAME.chain());
      assertThat(byMigration.get(VC + "/" + HOST_ONLY.chain()).path("load").path("source").asText())
          .isEqualTo("HOST");
      assertThat(byMigration.get(VC + "/" + HOST_ONLY.chain()).path("reasons").toString())
          .contains("GPU_UTILIZATION", "FB_USED");
      assertThat(byMigration.get(VC + "/" + LABELED.chain()).path("load").path("source").asText())
          .isEqualTo("GUEST");
      assertThat(byMigration.values()).allSatisfy(a -> assertThat(a.path("state").asText()).isEqualTo("RESOLVED"));

      JsonNode load = get(port, "/api/vms/" + HOST_ONLY.uuid() + "/load?from=" + base + "&to="
          + base.plusSeconds(SECONDS));
      assertThat(load.path("source").asText()).isEqualTo("HOST");
      assertThat(load.path("views").size()).isEqualTo(1);
      JsonNode gpus = get(port, "/api/hosts/esx01/gpus");
      assertThat(gpus.size()).isEqualTo(1);
      assertThat(gpus.get(0).path("schedulerPolicy").asText()).isEqualTo("Best Effort (Time-sliced)");
      assertThat(get(port, "/api/hosts/esx02/gpus").get(0).path("schedulerPolicy").asText())
          .isEqualTo("Equal Share");
      answers = answers(port, base);
    }

    // The same site again, as it would arrive live: the processor running first, the inventory, then the readings,
    // then the vCenter's events. The answers must not depend on which came first.
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(
        Files.createDirectories(dir.resolve("broker-live"))))) {
      Map<String, String> liveEnv = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers(),
          "STUNWATCH_WORKER_TIMEZONE", "UTC");
      int livePort = Ports.reserve();
      try (StunwatchProcess api = api(broker.bootstrapServers(), livePort, "state-live")) {
        replayVcenter(liveEnv, site, false);
        replayReadings(liveEnv, site);
        replayVcenter(liveEnv, site, true);
        Await.until(Duration.ofSeconds(120), () -> settled(livePort, HOST_ONLY) && settled(livePort, LABELED)
            && settled(livePort, BY_HOST_NAME), "the three migrations settled, readings first",
            () -> String.join("\n", api.stderr()));
        awaitQuiet(broker.bootstrapServers(), api);
        Map<String, String> live = new TreeMap<>();
        Await.until(Duration.ofSeconds(60), () -> {
          try {
            live.clear();
            live.putAll(answers(livePort, base));
            return live.equals(answers);
          } catch (Exception e) {
            return false;
          }
        }, "the same impacts and alerts, readings first", () -> live + "\n  against " + answers);

        // the hosts' vGPUs of VMs the inventory does not have are dropped, and counted where an admin looks (a task's
        // Streams metrics reach /metrics when Micrometer's Kafka binder next looks for new ones, within a minute)
        double[] unresolved = new double[1];
        Await.until(Duration.ofSeconds(90), () -> {
          try {
            unresolved[0] = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + livePort
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body().lines()
                .filter(l -> l.contains("unresolved_gpu_samples_total") && !l.startsWith("#"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
          } catch (IOException e) {
            return false;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
          return unresolved[0] > 0;
        }, "unresolved readings counted on /metrics", () -> "unresolved_gpu_samples_total " + unresolved[0]);
        assertThat(unresolved[0]).as("one idle vGPU of another VM per host reading, on each host (esx02's from 300 s)")
            .isEqualTo((2.0 * SECONDS - IDLE_HOST_SECONDS) / 5);
      }
    }
  }

  /** {@code collect vcenter --replay…}: the inventory, and with {@code events} the events and the vmware.log stuns. */
  private static void replayVcenter(Map<String, String> env, Path site, boolean events) {
    List<String> args = new ArrayList<>(List.of("collect", "vcenter", "--vcenter-uuid", VC, "--replay-inventory",
        site.resolve("inventory.jsonl").toString()));
    if (events) {
      args.addAll(List.of("--replay", site.resolve("events.jsonl").toString(), "--replay-vmware-log",
          site.resolve("logs").toString()));
    }
    try (StunwatchProcess p = StunwatchProcess.start(env, args.toArray(String[]::new))) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
      assertThat(ReplayTable.published(p.stdout(), "vcenter-events")).isEqualTo(events ? 12 : 0);
      assertThat(ReplayTable.published(p.stdout(), "vcenter-inventory")).as("3 VMs, 2 hosts").isEqualTo(5);
      assertThat(ReplayTable.published(p.stdout(), "vmware-log")).as("stuns").isEqualTo(events ? 1 : 0);
      assertThat(ReplayTable.skipped(p.stdout())).isZero();
    }
  }

  /** The hosts' {@code nvidia-smi vgpu -q} loops and the exporters' dumps, through the real CLI. */
  private static void replayReadings(Map<String, String> env, Path site) {
    for (String esx : List.of("esx01", "esx02")) {
      // an ESXi host's looped recording: no VM id needed, each block at its own Timestamp
      // esx01's recording has no banners and is named a host loop in lower case; esx02's opens with idle blocks
      List<String> args = new ArrayList<>(List.of("collect", "worker", "--hostname", esx, "--replay",
          site.resolve(esx + "-vgpu-q.txt").toString()));
      if (esx.equals("esx01")) {
        args.addAll(List.of("--replay-as", "vgpu-query"));
      }
      try (StunwatchProcess p = StunwatchProcess.start(env, args.toArray(String[]::new))) {
        assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
        assertThat(ReplayTable.published(p.stdout(), "vgpu-query")).isPositive();
        assertThat(ReplayTable.skipped(p.stdout())).isZero();
      }
    }
    try (StunwatchProcess p = StunwatchProcess.start(env, "collect", "prometheus", "--vm-label", "vm", "--replay",
        site.resolve("dcgm-exporter.om").toString(), "--replay", site.resolve("nvidia-gpu-exporter.om").toString())) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
      // a reading every 5 s of each exporter's one GPU
      assertThat(p.stdout()).containsExactly("exporter: " + 2 * SECONDS / 5 + " read, " + 2 * SECONDS / 5
          + " sent, 0 unparsable, 0 dropped");
    }
  }

  private StunwatchProcess api(String bootstrap, int port, String state) {
    StunwatchProcess api = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve(state).toString(), "STUNWATCH_PROCESS_APPLICATION_ID",
        APPLICATION, "STUNWATCH_API_HOST", "127.0.0.1", "STUNWATCH_API_PORT", String.valueOf(port),
        "STUNWATCH_API_TOKEN", TOKEN), "api");
    api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
    return api;
  }


  /** Until the API's processor has committed every record it was given, and its outputs no longer grow. */
  private static void awaitQuiet(String bootstrap, StunwatchProcess api) throws Exception {
    ProcessorOutputs.awaitQuiet(bootstrap, APPLICATION,
        () -> api.isAlive() ? null : "the API exited: " + api.stderr());
  }

  /** Each migration's impact and alert as the API gives them. */
  private Map<String, String> answers(int port, Instant base) throws Exception {
    Map<String, String> out = new TreeMap<>();
    for (AgentlessSite.Vm vm : List.of(HOST_ONLY, LABELED, BY_HOST_NAME)) {
      String id = VC + "/" + vm.chain();
      out.put("impact " + id, get(port, "/api/migrations/" + enc(id)).toString());
    }
    get(port, "/api/alerts?from=" + base + "&to=" + base.plusSeconds(SECONDS)).forEach(a ->
        out.put("alert " + a.path("migrationId").asText(), a.toString()));
    return out;
  }

  /**
   * Live scraping: one good dcgm-exporter page among a target that answers too slowly, one that answers 500, one
   * that serves no exposition text and one that refuses connections. Each failure is counted by its reason on the
   * collector's /metrics, and the good target's readings keep reaching Kafka.
   */
  @Test
  void aScrapeThatFailsIsCountedByReasonAndNeverStopsTheOtherTargets() throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    String page = "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
        + "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-live\",modelName=\"NVIDIA A100-SXM4-40GB\","
        + "Hostname=\"trainer-live\"} 93\n"
        + "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-live\",modelName=\"NVIDIA A100-SXM4-40GB\","
        + "Hostname=\"trainer-live\"} 30000\n";
    server.createContext("/metrics", x -> answer(x, 200, page));
    server.createContext("/slow", x -> {
      try {
        Thread.sleep(3000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      answer(x, 200, page);
    });
    server.createContext("/error", x -> answer(x, 500, "exporter broke"));
    server.createContext("/html", x -> answer(x, 200, "<html><body>not metrics</body></html>\n"));
    server.start();
    int refused = Ports.reserve();
    int metricsPort = Ports.reserve();
    String root = "http://127.0.0.1:" + server.getAddress().getPort();
    try (StunwatchProcess p = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
        KAFKA.bootstrapServers(), "STUNWATCH_PROMETHEUS_INTERVAL", "1s", "STUNWATCH_PROMETHEUS_TIMEOUT", "500ms"),
        "collect", "prometheus", "--metrics-port", String.valueOf(metricsPort),
        "--target", root + "/slow", "--target", root + "/error", "--target", root + "/html",
        "--target", "http://127.0.0.1:" + refused + "/metrics", "--target", "train-live=" + root + "/metrics")) {
      p.awaitStdout("scraping 5 targets", Duration.ofSeconds(60));
      Map<String, Double> m = new HashMap<>();
      Await.until(Duration.ofSeconds(60), () -> {
        m.clear();
        m.putAll(collectorMetrics(metricsPort));
        return m.getOrDefault("failures timeout", 0.0) >= 1 && m.getOrDefault("failures http-status", 0.0) >= 1
            && m.getOrDefault("failures malformed", 0.0) >= 1 && m.getOrDefault("failures unreachable", 0.0) >= 1
            && m.getOrDefault("sent", 0.0) >= 3;
      }, "every kind of failure counted and the good target's readings sent", m::toString);
      assertThat(p.stderr()).anySatisfy(l -> assertThat(l).contains("scrape of " + root + "/error failed "
          + "(http-status): HTTP 500"));
    } finally {
      server.stop(0);
    }
    List<String> keys = new ArrayList<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers(),
        ConsumerConfig.GROUP_ID_CONFIG, "agentless-live-" + System.nanoTime(),
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of(Topics.EXPORTER_GPU_SAMPLES.name()));
      Await.until(Duration.ofSeconds(30), () -> {
        c.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
        return keys.contains("name:train-live");
      }, "the live target's readings in Kafka, under the VM it is mapped to", keys::toString);
    }
  }

  private static void answer(HttpExchange x, int status, String body) throws IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
    x.sendResponseHeaders(status, b.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(b);
    } catch (IOException e) {
      // the scraper gave up on a slow answer: nothing to send it to
    }
  }

  /** The collector's own counters: scrape failures by reason, and the exporter input's samples sent. */
  private Map<String, Double> collectorMetrics(int port) {
    Map<String, Double> out = new HashMap<>();
    try {
      String page = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      Matcher f = Pattern.compile("(?m)^stunwatch_collector_scrape_failures_total\\{reason=\"([a-z-]+)\",?\\} "
          + "([0-9.E]+)$").matcher(page);
      while (f.find()) {
        out.put("failures " + f.group(1), Double.parseDouble(f.group(2)));
      }
      Matcher s = Pattern.compile("(?m)^stunwatch_collector_samples_sent_total\\{input=\"exporter\",?\\} "
          + "([0-9.E]+)$").matcher(page);
      if (s.find()) {
        out.put("sent", Double.parseDouble(s.group(1)));
      }
    } catch (IOException | InterruptedException e) {
      out.put("unreachable metrics page", 1.0);
    }
    return out;
  }

  private boolean settled(int port, AgentlessSite.Vm vm) {
    try {
      // an impact closed before its VM's readings came through the resolving hop is rebuilt when they do
      JsonNode i = get(port, "/api/migrations/" + enc(VC + "/" + vm.chain()));
      return i.has("timeline") && i.has("loadSource");
    } catch (Exception | AssertionError e) {
      return false;
    }
  }

  private JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError(path + " -> " + r.statusCode() + " " + r.body());
    }
    return JSON.readTree(r.body());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
