package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.api.ApiApplication;
import io.stunwatch.api.ApiConfig;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TestCertificates;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two API instances serving HTTPS, with certificates openssl made for them: each answers for the whole application,
 * so each calls the other over TLS, trusting the site's CA and verifying its name, with the instances' own
 * credential, which the public routes refuse and the users' token cannot replace.
 */
class ApiTlsIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String TOKEN = "api-tls-it-" + Long.toHexString(System.nanoTime());
  static final String INTERNAL = "api-tls-it-internal-" + Long.toHexString(System.nanoTime());

  @TempDir
  Path dir;

  HttpClient http;

  int status(int port, String path, String token) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  Set<String> ids(int port) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("https://localhost:" + port
        + "/api/migrations?limit=1000")).header("Authorization", "Bearer " + TOKEN).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new AssertionError(r.statusCode() + " " + r.body());
    }
    var page = ApiIT.JSON.readTree(r.body());
    return StreamSupport.stream(page.spliterator(), false)
        .map(n -> n.get("migration").get("id").asText()).collect(Collectors.toSet());
  }

  @Test
  void twoHttpsInstancesCallEachOtherOverTlsWithTheirOwnCredential() throws Exception {
    TestCertificates.Ca ca = TestCertificates.ca(dir, "site");
    TestCertificates.Leaf cert = TestCertificates.leaf(dir, ca, "api", "localhost", "127.0.0.1");
    http = HttpClient.newBuilder().sslContext(trusting(ca.certificate())).build();

    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(9, 8, 3, start, Duration.ofMinutes(6),
        Duration.ofSeconds(20)));
    Set<String> started = scenario.plans().stream().map(FleetScenario.Plan::migrationId).collect(Collectors.toSet());
    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ApiConfig api = new ApiConfig("127.0.0.1", 0, "localhost", TOKEN, true, 1000, Duration.ofDays(92), cert.certificate(),
        cert.key(), Duration.ofSeconds(60), 1024, INTERNAL, ca.certificate(), 2000);
    ProcessorConfig base = ProcessorConfig.defaults();
    try (ApiApplication a = ApiApplication.start(api, base.withIdentity("api-tls-it", dir.resolve("a")), kafka,
        Clock.systemUTC());
        ApiApplication b = ApiApplication.start(api, base.withIdentity("api-tls-it", dir.resolve("b")), kafka,
            Clock.systemUTC())) {
      Await.until(Duration.ofSeconds(90), () -> ready(a) && ready(b), "both instances ready with partitions of "
          + "their own", () -> "a ready " + ready(a) + ", b ready " + ready(b));
      ScenarioReplay.replay(KAFKA.bootstrapServers(), scenario);
      Await.until(Duration.ofSeconds(120), () -> {
        try {
          return ids(a.port()).containsAll(started) && ids(b.port()).containsAll(started);
        } catch (Exception | AssertionError e) {
          return false; // 503 while a rebalance settles
        }
      }, "every migration listed by both instances, each half fetched from the other over TLS", () -> {
        try {
          return "started " + started + "; a lists " + ids(a.port()) + "; b lists " + ids(b.port());
        } catch (Exception | AssertionError e) {
          return e.toString();
        }
      });

      // the internal routes take the instances' credential only; the public ones refuse it
      String lastHour = "/internal/migrations?from=" + start.minusSeconds(3600).toEpochMilli() + "&to="
          + Instant.now().toEpochMilli();
      assertThat(status(a.port(), lastHour, TOKEN)).isEqualTo(401);
      assertThat(status(a.port(), lastHour, INTERNAL)).isEqualTo(200);
      assertThat(status(a.port(), "/api/migrations", INTERNAL)).isEqualTo(401);
      // and bound their parameters as the public routes do
      assertThat(status(a.port(), "/internal/migrations?from=%2B1000000000-01-01T00:00:00Z", INTERNAL))
          .isEqualTo(400);
      assertThat(status(a.port(), "/internal/load-windows?vm=x&size=1y", INTERNAL)).isEqualTo(400);
      assertThat(status(a.port(), "/internal/migrations?from=0&to=" + Instant.now().toEpochMilli(), INTERNAL))
          .as("a range longer than api.max-range").isEqualTo(400);
    }
  }

  private boolean ready(ApiApplication app) {
    try {
      return status(app.port(), "/ready", TOKEN) == 200 && app.processor().streams().metadataForLocalThreads()
          .stream().mapToInt(t -> t.activeTasks().size()).sum() > 0;
    } catch (Exception e) {
      return false;
    }
  }

  /** An SSL context that trusts the site's CA only. */
  static SSLContext trusting(Path caPem) throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(caPem)) {
      ks.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }
}
