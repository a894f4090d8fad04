package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRS guard's decisions from the real processor of {@code stunwatch api} on the embedded broker: a busy VM with a
 * large framebuffer is protected and listed by {@code /api/guard}, and released once its readings have been idle for
 * {@code guard.release-after}; a busy VM with a small one is not.
 */
class GuardIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "guard-it-token-" + Long.toHexString(System.nanoTime());
  static final String VC = "vc-guard";
  static final String BIG = "42000000-0000-4000-8000-000000000001";
  static final String SMALL = "42000000-0000-4000-8000-000000000002";

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  /** GET /api/guard, or why it has no answer. */
  String guardOrWhy(int port) {
    try {
      return "GET /api/guard: " + guard(port);
    } catch (Exception e) {
      return "GET /api/guard: " + e;
    }
  }

  JsonNode guard(int port) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/guard"))
        .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("/api/guard answered " + r.statusCode() + ": " + r.body());
    }
    return new ObjectMapper().readTree(r.body());
  }

  /** The guard's decisions as written (read_committed); one key, one partition: in order. */
  private static List<GuardDecision> decisions() {
    return TopicContents.readAll(KAFKA.bootstrapServers(), Topics.GUARD_DECISIONS).stream().map(r -> r.value())
        .toList();
  }

  private static void readings(TypedProducer p, String vm, Instant from, int seconds, double util, long fbUsedMiB) {
    for (int s = 0; s < seconds; s++) {
      Instant t = from.plusSeconds(s);
      p.send(Topics.GPU_SAMPLES, vm, new GpuSample(vm, "guest", t, 0, "GPU-" + vm, "GRID T4-16C", null, util, 20.0,
          fbUsedMiB, 16384L, null, null, 1590L, "P0", VgpuProfile.parse("GRID T4-16C").orElseThrow()), t);
    }
  }

  @Test
  void aBusyVmIsProtectedListedAndReleasedByTheRealProcessor() throws Exception {
    Instant t0 = Instant.now().minus(Duration.ofMinutes(30)).truncatedTo(ChronoUnit.SECONDS);
    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ApiConfig api = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 1000, Duration.ofDays(92), null, null);
    ProcessorConfig config = ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO)
        .withGuard(GuardConfig.OFF.withEnabled(true)).withIdentity("guard-it", dir.resolve("state"));
    try (ApiApplication app = ApiApplication.start(api, config, kafka, Clock.systemUTC());
        TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()))) {
      HostInventoryEntry h = new HostInventoryEntry(VC, "host-1", "esx01", null, List.of(), 25_000L, t0, "7.0.3",
          "7.0.3");
      p.send(Topics.HOST_INVENTORY, h.key(), h, t0);
      for (String vm : List.of(BIG, SMALL)) {
        VmInventoryEntry e = new VmInventoryEntry(VC, "vm-" + vm.substring(35), "train-" + vm.substring(35), vm,
            null, new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, 65536L, List.of("grid_t4-16c"),
            VgpuProfile.parse("grid_t4-16c").orElseThrow(), t0);
        p.send(Topics.VM_INVENTORY, e.key(), e, t0);
      }
      readings(p, BIG, t0, 180, 95.0, 12288);   // p95 on vSphere 7's figure: 36 s
      readings(p, SMALL, t0, 180, 95.0, 4096);  // 12 s
      p.flush();

      Await.until(Duration.ofSeconds(90), () -> {
        try {
          return guard(app.port()).path("protectedVms").size() == 1;
        } catch (Exception e) {
          return false; // 503 until the processor runs
        }
      }, "the busy VM with the large framebuffer to be protected", () -> guardOrWhy(app.port()));
      JsonNode protectedVm = guard(app.port()).path("protectedVms").get(0);
      assertThat(protectedVm.path("vmId").asText()).isEqualTo(BIG);
      assertThat(protectedVm.path("since").asText()).isEqualTo(t0.plusSeconds(1).toString());
      assertThat(protectedVm.path("decision").path("forecast").path("p95Seconds").asDouble()).isEqualTo(36.0);
      assertThat(guard(app.port()).path("enabled").asBoolean()).isTrue();

      readings(p, BIG, t0.plusSeconds(180), 12 * 60, 2.0, 12288);
      p.flush();
      Await.until(Duration.ofSeconds(90), () -> {
        try {
          return guard(app.port()).path("protectedVms").isEmpty();
        } catch (Exception e) {
          return false;
        }
      }, "the VM to be released after ten minutes of idle readings", () -> guardOrWhy(app.port()));

      // the store reaches RocksDB just before the commit that writes the RELEASE record: read the topic until then
      Await.until(Duration.ofSeconds(30), () -> {
        List<GuardDecision> all = decisions();
        return !all.isEmpty() && all.get(all.size() - 1).action() == GuardDecision.Action.RELEASE;
      }, "the RELEASE decision committed", () -> "decisions " + decisions());
      List<GuardDecision> decisions = decisions();
      assertThat(decisions).extracting(GuardDecision::vmId).containsOnly(BIG);
      assertThat(decisions.get(0).action()).isEqualTo(GuardDecision.Action.PROTECT);
      assertThat(decisions.get(decisions.size() - 1).action()).isEqualTo(GuardDecision.Action.RELEASE);
      assertThat(decisions).extracting(GuardDecision::action).contains(GuardDecision.Action.HOLD);
    }
  }
}
