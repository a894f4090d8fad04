package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stunwatch process} and {@code stunwatch api} started as separate processes under one application id, as a
 * site might start them: the process serves no queries, so the API must say that part of the state is out of its
 * reach (not ready, 503 naming why) instead of answering without it; once the process leaves, it answers for all.
 */
class ProcessBesideApiIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  private static final String TOKEN = "process-beside-api-" + Long.toHexString(System.nanoTime());

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private boolean answers(int port, String path, int status, String bodyPart) {
    try {
      HttpResponse<String> r = get(port, path);
      return r.statusCode() == status && r.body().contains(bodyPart);
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void anApiBesideAProcessSaysWhatItCannotReachAndAnswersForAllOnceItIsAlone() throws Exception {
    int port = Ports.reserve();
    Map<String, String> common = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", KAFKA.bootstrapServers(),
        "STUNWATCH_PROCESS_APPLICATION_ID", "beside");
    try (StunwatchProcess process = StunwatchProcess.start(env(common, "STUNWATCH_PROCESS_STATE_DIR",
        dir.resolve("p").toString(), "STUNWATCH_PROCESS_INSTANCE_ID", "processor-1"), "process");
        StunwatchProcess api = StunwatchProcess.start(env(common, "STUNWATCH_PROCESS_STATE_DIR",
            dir.resolve("a").toString(), "STUNWATCH_PROCESS_INSTANCE_ID", "api-1", "STUNWATCH_API_HOST",
            "127.0.0.1", "STUNWATCH_API_PORT", String.valueOf(port), "STUNWATCH_API_TOKEN", TOKEN), "api")) {
      api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
      process.awaitStdout("serves no queries", Duration.ofSeconds(90));
      Await.until(Duration.ofSeconds(120), () -> answers(port, "/api/migrations", 503, "stunwatch process"),
          "the list refused, naming the process", () -> {
            try {
              HttpResponse<String> r = get(port, "/api/migrations");
              return r.statusCode() + " " + r.body();
            } catch (Exception e) {
              return e.toString();
            }
          });
      assertThat(get(port, "/ready").statusCode()).as("not ready while part of the state is out of reach")
          .isEqualTo(503);
      // a VM's lookup goes to its partition's owner: here, or a 503 naming why, never a 500
      int refused = 0;
      for (int i = 0; i < 24; i++) {
        String vm = String.format("42%06d-0000-4000-8000-%012d", i, i);
        // a rebalance (the two members settling) answers "not ready, retry": retried, as a client would
        AtomicReference<HttpResponse<String>> answer = new java.util.concurrent.atomic
            .AtomicReference<>();
        Await.until(Duration.ofSeconds(60), () -> {
          try {
            answer.set(get(port, "/api/vms/" + vm + "/migrations"));
          } catch (Exception e) {
            return false;
          }
          return !(answer.get().statusCode() == 503 && answer.get().body().contains("retry shortly"));
        }, vm + " answered past any rebalance", () -> answer.get() == null ? "" : answer.get().body());
        HttpResponse<String> r = answer.get();
        assertThat(r.statusCode()).as(vm + ": " + r.body()).isIn(200, 503);
        if (r.statusCode() == 503) {
          assertThat(r.body()).contains("stunwatch process");
          refused++;
        }
      }
      assertThat(refused).as("VMs whose partition the process owns").isPositive();
      api.awaitStderr("Not ready: .*serves no queries", Duration.ofSeconds(30)); // logged once, as /ready says so

      process.terminate(Duration.ofSeconds(60));
      Await.until(Duration.ofSeconds(120), () -> answers(port, "/api/migrations", 200, "[")
          && answers(port, "/ready", 200, "READY"), "the API alone answers for every partition",
          () -> String.join("\n", api.stderr()));
    }
  }

  private static Map<String, String> env(Map<String, String> base, String... more) {
    Map<String, String> out = new HashMap<>(base);
    for (int i = 0; i < more.length; i += 2) {
      out.put(more[i], more[i + 1]);
    }
    return out;
  }
}
