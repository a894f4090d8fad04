package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.stunwatch.api.notify.CloudEvents;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert webhook through the real {@code stunwatch api}: each alert change reaches a real HTTP receiver as a
 * CloudEvent, with the receiver's token; a 503 is tried again and the change arrives once accepted; a 400 drops that
 * change alone and the next ones still go, in order; each outcome is counted on {@code /metrics}.
 */
class AlertWebhookIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "alert-webhook-it-token-0123456789";
  static final String RECEIVER_TOKEN = "receiver-secret-0123456789";
  static final String VC = "5f1d5b8e-0000-4000-8000-00000000c0de";
  static final Instant T0 = Instant.parse("2026-11-27T08:00:00Z");

  @TempDir
  Path dir;

  /** What the receiver got: the request's headers of interest and the event, in arrival order. */
  record Received(String contentType, String authorization, JsonNode event, int answered) {
  }

  @Test
  void eachAlertChangeArrivesAsACloudEventRetriedUntilAcceptedAndARefusalDropsOnlyItself() throws Exception {
    List<Received> received = new CopyOnWriteArrayList<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.setExecutor(Executors.newFixedThreadPool(2));
    receiver.createContext("/events", x -> {
      JsonNode event = Json.mapper().readTree(x.getRequestBody().readAllBytes());
      String id = event.path("id").asText();
      String subject = event.path("subject").asText();
      // the first try of the train-01 raise meets an overloaded receiver; refused-vm's events are refused for good
      int status = subject.equals("refused-vm") ? 400
          : subject.equals("train-01") && id.endsWith("/raised/" + T0.toEpochMilli())
              && received.stream().noneMatch(r -> r.event().path("id").asText().equals(id)) ? 503 : 202;
      received.add(new Received(x.getRequestHeaders().getFirst("Content-Type"),
          x.getRequestHeaders().getFirst("Authorization"), event, status));
      answer(x, status);
    });
    receiver.start();
    int port = Ports.reserve();
    try (StunwatchProcess api = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
            KAFKA.bootstrapServers(), "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state").toString(),
            "STUNWATCH_PROCESS_APPLICATION_ID", "webhook-it", "STUNWATCH_API_HOST", "127.0.0.1",
            "STUNWATCH_API_PORT", String.valueOf(port), "STUNWATCH_API_TOKEN", TOKEN,
            "STUNWATCH_API_ALERT_WEBHOOK_URL", "http://127.0.0.1:" + receiver.getAddress().getPort() + "/events",
            "STUNWATCH_API_ALERT_WEBHOOK_TOKEN", RECEIVER_TOKEN), "api");
        TypedProducer producer = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()))) {
      api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
      assertThat(String.join("\n", api.stdout() + "\n" + api.stderr())).as("the token never logged")
          .doesNotContain(RECEIVER_TOKEN);
      // A new webhook group starts at the end of the topic, pinned in its committed offsets once assigned: listening
      try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers()))) {
        int partitions = admin.describeTopics(List.of(Topics.MIGRATION_ALERTS.name())).allTopicNames().get()
            .get(Topics.MIGRATION_ALERTS.name()).partitions().size();
        Await.until(Duration.ofSeconds(60), Duration.ofMillis(200), () -> {
          try {
            return admin.listConsumerGroupOffsets("webhook-it-alert-webhook").partitionsToOffsetAndMetadata().get()
                .keySet().stream().filter(tp -> tp.topic().equals(Topics.MIGRATION_ALERTS.name())).count()
                == partitions;
          } catch (Exception e) {
            return false;
          }
        }, "the webhook's group at the end of each of the alert topic's partitions", () -> String.join("\n",
            api.stderr()));
      }

      send(producer, alert("1000", "train-01", MigrationAlert.AlertState.FIRING, T0));
      send(producer, alert("1000", "train-01", MigrationAlert.AlertState.RESOLVED, T0.plusSeconds(90)));
      send(producer, alert("2000", "refused-vm", MigrationAlert.AlertState.FIRING, T0.plusSeconds(100)));
      send(producer, alert("3000", "train-03", MigrationAlert.AlertState.FIRING, T0.plusSeconds(110)));
      // partitions are delivered in no order among themselves: wait for the last change of each
      Await.until(Duration.ofSeconds(60), () -> received.stream()
          .anyMatch(r -> r.event().path("subject").asText().equals("train-03")) && received.stream()
          .anyMatch(r -> r.event().path("type").asText().endsWith(".resolved") && r.answered() == 202),
          "train-03's raise and train-01's resolution delivered", () -> received.toString());

      // the same key goes to one partition, so train-01's raise, then its resolution, in order, the raise twice
      List<Received> train01 = received.stream().filter(r -> r.event().path("subject").asText().equals("train-01"))
          .toList();
      assertThat(train01).as("all received: %s\napi: %s", received, String.join("\n", api.stderr()))
          .extracting(r -> r.event().path("type").asText() + " " + r.answered()).containsExactly(
          CloudEvents.TYPE_PREFIX + "raised 503", CloudEvents.TYPE_PREFIX + "raised 202",
          CloudEvents.TYPE_PREFIX + "resolved 202");
      JsonNode raised = train01.get(1).event();
      assertThat(raised.path("specversion").asText()).isEqualTo("1.0");
      assertThat(raised.path("source").asText()).isEqualTo("/stunwatch/vcenter/" + VC);
      assertThat(raised.path("id").asText()).isEqualTo(VC + "/1000/raised/" + T0.toEpochMilli());
      assertThat(raised.path("id").asText()).as("a redelivery keeps its id")
          .isEqualTo(train01.get(0).event().path("id").asText());
      assertThat(raised.path("time").asText()).isEqualTo(T0.toString());
      assertThat(raised.path("datacontenttype").asText()).isEqualTo("application/json");
      assertThat(raised.path("data").path("forecast").path("basis").asText()).isEqualTo("SITE_LINEAR_FIT");
      assertThat(raised.path("data").path("forecast").path("reference").path("p50Seconds").asDouble())
          .isEqualTo(30.0);
      assertThat(train01.get(2).event().path("data").path("measured").path("stun").path("seconds").asDouble())
          .isEqualTo(24.5);
      assertThat(received).allSatisfy(r -> {
        assertThat(r.contentType()).startsWith("application/cloudevents+json");
        assertThat(r.authorization()).isEqualTo("Bearer " + RECEIVER_TOKEN);
      });
      assertThat(received.stream().filter(r -> r.event().path("subject").asText().equals("refused-vm")))
          .as("refused once, not retried").hasSize(1);

      String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
      assertThat(count(metrics, "retried")).isEqualTo(1);
      assertThat(count(metrics, "dropped")).isEqualTo(1);
      assertThat(count(metrics, "delivered")).as("train-01 twice, train-03").isEqualTo(3);
    } finally {
      receiver.stop(0);
    }
  }

  private static double count(String metrics, String result) {
    var m = Pattern.compile("^stunwatch_alert_webhook_deliveries_total\\{[^}]*result=\"" + result
        + "\"[^}]*} (\\S+)$", Pattern.MULTILINE).matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }

  private static void send(TypedProducer p, MigrationAlert a) {
    try {
      p.send(Topics.MIGRATION_ALERTS, a.migrationId(), a, a.updatedAt()).get();
    } catch (Exception e) {
      throw new IllegalStateException("could not send " + a.migrationId(), e);
    }
  }

  /** An alert as the processor writes it: raised with a forecast, resolved with the measured stun. */
  static MigrationAlert alert(String chain, String vm, MigrationAlert.AlertState state, Instant at) {
    StunForecast forecast = new StunForecast(24.0, 27.0, 1.6, 15.0, 40, StunForecast.Basis.SITE_LINEAR_FIT, 0.5,
        "profile:T4-16C", null, 25_000L, StunForecast.Reference.of("7.0.3", 15.0));
    return new MigrationAlert(VC + "/" + chain, state, "vm-" + chain, vm, "4210" + chain, new EntityRef("HostSystem",
        "host-1", "esx01"), new EntityRef("HostSystem", "host-2", "esx02"), Initiator.DRS, "T4-16C",
        new MigrationAlert.Load(92.0, 60L, 15360L, 93.8, null), List.of(MigrationAlert.Reason.GPU_UTILIZATION),
        forecast, T0, at, state == MigrationAlert.AlertState.FIRING ? null : new MigrationAlert.Measured(
            MigrationState.SUCCEEDED, 88.0, new StunTime(24.5, StunTime.Source.VMWARE_LOG), 31.0));
  }

  private static void answer(HttpExchange x, int status) throws IOException {
    byte[] b = "{}".getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    try (OutputStream out = x.getResponseBody()) {
      out.write(b);
    }
  }

}
