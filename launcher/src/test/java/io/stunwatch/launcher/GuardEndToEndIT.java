package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.vcenter.VcenterConnection;
import io.stunwatch.collectors.vcenter.VcenterTrust;
import io.stunwatch.collectors.vcenter.YavijavaVcenterConnector;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.Vcsim;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRS guard end to end through the real CLI: a VM of vcsim's cluster, inventoried by {@code stunwatch collect
 * vcenter}, turns busy in its guest's readings; the processor of {@code stunwatch api} protects it, the collector sets
 * {@code manual} on it in vCenter at its next poll (read back from {@code ConfigurationEx}), and {@code GET /api/guard}
 * lists the protection with the collector's audit record. Ten minutes of idle readings later the processor releases it,
 * and the override is gone from vCenter.
 *
 * <p>The readings start 13 minutes back, so that the idle time has passed by the end of the test; the collector is
 * told to act on decisions up to 15 minutes old ({@code guard.max-decision-age}, 2 min by default) for that.
 */
class GuardEndToEndIT {

  private static final Logger LOG = LoggerFactory.getLogger(GuardEndToEndIT.class);

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "guard-e2e-" + Long.toHexString(System.nanoTime());
  /** The collector's poll: the decision is applied at the first poll after it is committed. */
  static final Duration POLL = Duration.ofSeconds(1);

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void aVmThatTurnsBusyIsSetToManualInVcenterAtTheCollectorsNextPoll() throws Exception {
    try (Vcsim vcsim = Vcsim.start(true);
        VcenterConnection vc = new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(),
            vcsim.password().toCharArray(), VcenterTrust.pinned(vcsim.sha256())).connect();
        TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()))) {
      VmInventoryEntry vm = vc.vms(Instant.now()).stream().filter(v -> v.cluster() != null
          && v.cluster().type().equals("ClusterComputeResource") && v.biosUuid() != null).findFirst().orElseThrow();
      String cluster = vm.cluster().value();
      assertThat(vc.drsOverrides(cluster)).doesNotContainKey(vm.moref());

      Path config = dir.resolve("vcenter.properties");
      Files.writeString(config, "vcenter.urls=" + vcsim.sdk() + "\nvcenter.thumbprints=127.0.0.1=" + vcsim.sha256()
          + "\nvcenter.poll-interval=" + POLL.toMillis() + "ms\nkafka.bootstrap-servers=" + KAFKA.bootstrapServers()
          + "\nguard.enabled=true\nguard.mode=enforce\nguard.max-decision-age=15m\n");
      Path password = dir.resolve("vc.pw");
      Files.writeString(password, vcsim.password() + "\n");
      int port = Ports.reserve();
      try (StunwatchProcess collector = StunwatchProcess.start(Map.of("STUNWATCH_VCENTER_USERNAME",
          vcsim.username(), "STUNWATCH_VCENTER_PASSWORD_FILE", password.toString()), "collect", "vcenter",
          "--config", config.toString());
          StunwatchProcess api = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
              KAFKA.bootstrapServers(), "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state").toString(),
              "STUNWATCH_API_HOST", "127.0.0.1", "STUNWATCH_API_PORT", String.valueOf(port), "STUNWATCH_API_TOKEN",
              TOKEN, "STUNWATCH_GUARD_ENABLED", "true"), "api")) {
        collector.awaitStderr("applying the DRS guard's decisions", Duration.ofSeconds(60));
        api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
        // the processor knows where the VM runs (the collector's inventory) before its readings come
        Await.until(Duration.ofSeconds(90), () -> vm.host().name().equals(answer(port, "/api/vms/" + vm.biosUuid()
            + "/migrate-check").path("host").asText()), "the VM placed by the processor",
            () -> String.join("\n", api.stderr()));

        // a minute and a half of its guest's readings: busy, 12 GiB of framebuffer in use
        Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofMinutes(13));
        readings(p, vm, t0, 90, 95.0, 12288);
        long sent = System.nanoTime();
        Await.until(Duration.ofSeconds(60), () -> DrsOverride.MANUAL.equals(overrides(vc, cluster)
            .get(vm.moref())), "the busy VM on manual in vCenter", () -> String.join("\n", collector.stderr()));
        Duration latency = Duration.ofNanos(System.nanoTime() - sent);
        LOG.info("From the readings sent to the override read back from vCenter: {} ms", latency.toMillis());
        // one processor commit and one poll, not the next HOLD a minute of readings later
        assertThat(latency).as("readings to override").isLessThan(Duration.ofSeconds(20));

        Await.until(Duration.ofSeconds(30), () -> {
          JsonNode guard = answer(port, "/api/guard");
          return guard.path("protectedVms").size() == 1 && guard.path("actions").size() == 1;
        }, "the protection and its audit record in GET /api/guard", () -> "GET /api/guard: " + answer(port, "/api/guard"));
        JsonNode guard = get(port, "/api/guard");
        assertThat(guard.path("protectedVms").get(0).path("vmId").asText()).isEqualTo(vm.biosUuid());
        JsonNode action = guard.path("actions").get(0);
        assertThat(action.path("vmName").asText()).isEqualTo(vm.name());
        assertThat(action.path("result").asText()).isEqualTo("APPLIED");
        assertThat(action.path("set").path("behavior").asText()).isEqualTo("MANUAL");
        assertThat(action.path("cluster").path("value").asText()).isEqualTo(cluster);

        // then idle, a few MiB in use, until now: released after ten minutes of it
        readings(p, vm, t0.plusSeconds(90), 13 * 60 - 90, 1.0, 300);
        Await.until(Duration.ofSeconds(60), () -> !overrides(vc, cluster).containsKey(vm.moref()),
            "the override removed once the VM has been idle for guard.release-after",
            () -> String.join("\n", collector.stderr()));
        Await.until(Duration.ofSeconds(30), () -> answer(port, "/api/guard").path("protectedVms").isEmpty()
            && answer(port, "/api/guard").path("actions").size() == 2, "the release and its audit record",
            () -> "GET /api/guard: " + answer(port, "/api/guard"));
        JsonNode released = get(port, "/api/guard").path("actions").get(0);
        assertThat(released.path("kind").asText()).isEqualTo("RELEASE");
        assertThat(released.path("result").asText()).isEqualTo("APPLIED");
        assertThat(released.path("previous").path("behavior").asText()).isEqualTo("MANUAL");
      }
    }
  }

  private JsonNode get(int port, String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(path + " answered " + r.statusCode() + ": " + r.body());
    }
    return Json.mapper().readTree(r.body());
  }

  private static void readings(TypedProducer p, VmInventoryEntry vm, Instant from, int seconds, double util,
      long fbUsedMiB) {
    for (int s = 0; s < seconds; s++) {
      Instant t = from.plusSeconds(s);
      p.send(Topics.GPU_SAMPLES, vm.biosUuid(), new GpuSample(vm.biosUuid(), vm.name(), t, 0, "GPU-0",
          "GRID T4-16C", null, util, util / 2, fbUsedMiB, 16384L, null, null, 1590L, "P0",
          VgpuProfile.parse("GRID T4-16C").orElseThrow()), t);
    }
    p.flush();
  }

  /** The answer, or a missing node while the API cannot give it yet (503 before its stores run). */
  private JsonNode answer(int port, String path) {
    try {
      return get(port, path);
    } catch (IOException e) {
      return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Map<String, DrsOverride> overrides(VcenterConnection vc, String cluster) {
    try {
      return vc.drsOverrides(cluster);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

}
