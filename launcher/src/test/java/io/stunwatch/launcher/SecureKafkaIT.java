package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.TestCertificates;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A site on a network shared with tenants: the embedded broker serves SASL_SSL (SCRAM) with ACLs, certificates made
 * by openssl. The whole pipeline runs over it through the real CLI (both collectors replaying a recorded site, the
 * API with its processor); a worker's login can write its samples and nothing else; a wrong password and an
 * untrusted certificate stop a command at once with the reason.
 */
class SecureKafkaIT {

  private static final String TOKEN = "secure-kafka-it-" + Long.toHexString(System.nanoTime());

  @TempDir
  Path dir;

  private EmbeddedKafkaBroker broker;

  @AfterEach
  void stop() {
    if (broker != null) {
      broker.close();
    }
  }

  private Path password(String user) throws Exception {
    Path f = dir.resolve(user + ".password");
    Files.writeString(f, user + "-" + UUID.randomUUID() + "\n");
    return f;
  }

  /** The environment of a command logging in as {@code user} with the password in {@code passwordFile}. */
  private Map<String, String> login(String user, Path passwordFile, Path ca) {
    Map<String, String> env = new HashMap<>();
    env.put("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    env.put("STUNWATCH_KAFKA_SECURITY_PROTOCOL", "SASL_SSL");
    env.put("STUNWATCH_KAFKA_SASL_MECHANISM", "SCRAM-SHA-512");
    env.put("STUNWATCH_KAFKA_SASL_USERNAME", user);
    env.put("STUNWATCH_KAFKA_SASL_PASSWORD_FILE", passwordFile.toString());
    env.put("STUNWATCH_KAFKA_SSL_CA_FILE", ca.toString());
    return env;
  }

  @Test
  void thePipelineRunsOverSaslSslAndAWorkersLoginCanOnlyWriteItsSamples() throws Exception {
    TestCertificates.Ca ca = TestCertificates.ca(dir, "site");
    TestCertificates.Leaf cert = TestCertificates.leaf(dir, ca, "broker", "localhost", "127.0.0.1");
    Path workerPw = password("worker-gpu");
    Path vcenterPw = password("vcenter");
    Path servicePw = password("service");
    broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(dir.resolve("kafka")).withSecured(
        new BrokerConfig.Secured(cert.keystore(), cert.keystorePassword(), List.of(
            new BrokerConfig.User("service", BrokerConfig.Role.SERVICE, Files.readString(servicePw).strip())))));
    // the collectors' logins, as a site adds them to its own Kafka: through the CLI, on the brokers' admin listener
    Path users = dir.resolve("kafka-users");
    Files.writeString(users, "# user role password-file\nworker-gpu worker worker-gpu.password\n"
        + "vcenter vcenter vcenter.password\n");
    try (StunwatchProcess access = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
        String.valueOf(broker.clientConfig().get("bootstrap.servers"))), "config", "access", "--users-file",
        users.toString())) {
      assertThat(access.awaitExit(Duration.ofSeconds(90))).as(String.join("\n", access.stderr())).isZero();
      assertThat(access.stdout()).anyMatch(l -> l.startsWith("2 logins and ") && l.contains("worker-gpu (worker)"));
    }

    // the recorded site, through both collectors' replay paths, each with its own login
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    Path site = Files.createDirectories(dir.resolve("site"));
    ReplayEquivalenceIT.writeSite(site, base);
    try (StunwatchProcess p = StunwatchProcess.start(login("vcenter", vcenterPw, ca.certificate()), "collect",
        "vcenter", "--vcenter-uuid", ReplayEquivalenceIT.VC, "--replay-inventory",
        site.resolve("inventory.jsonl").toString(), "--replay", site.resolve("events.jsonl").toString(),
        "--replay-vmware-log", site.resolve("logs").toString())) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
    }
    for (ReplayEquivalenceIT.Vm vm : ReplayEquivalenceIT.VMS) {
      Map<String, String> env = login("worker-gpu", workerPw, ca.certificate());
      env.put("STUNWATCH_WORKER_TIMEZONE", "UTC");
      try (StunwatchProcess p = StunwatchProcess.start(env, "collect", "worker", "--replay",
          site.resolve("worker").resolve(vm.name()).toString(), "--vm-id", vm.uuid(), "--hostname", vm.name())) {
        assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
        assertThat(p.stdout()).isNotEmpty();
        assertThat(ReplayTable.skipped(p.stdout())).isZero();
      }
    }

    int port = Ports.reserve();
    Map<String, String> apiEnv = login("service", servicePw, ca.certificate());
    apiEnv.putAll(Map.of("STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state").toString(), "STUNWATCH_API_HOST",
        "127.0.0.1", "STUNWATCH_API_PORT", String.valueOf(port), "STUNWATCH_API_TOKEN", TOKEN));
    try (StunwatchProcess api = StunwatchProcess.start(apiEnv, "api")) {
      api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
      HttpClient http = HttpClient.newHttpClient();
      Await.until(Duration.ofSeconds(180), () -> {
        try {
          HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
              + "/api/migrations?from=" + base.minus(Duration.ofHours(1)))).header("Authorization", "Bearer " + TOKEN)
              .build(), HttpResponse.BodyHandlers.ofString());
          return r.statusCode() == 200 && r.body().split("\"vmName\"", -1).length - 1 >= ReplayEquivalenceIT.VMS.size();
        } catch (Exception e) {
          return false;
        }
      }, "every VM's migration listed by the API, all of it carried over SASL_SSL", api::stderr);
      for (String line : api.stderr()) {
        assertThat(line).doesNotContain(Files.readString(servicePw).strip());
      }
    }

    // what a compromised GPU VM can do with its worker's login: write its samples, and no more
    KafkaClientConfig worker = KafkaClientConfig.from(ConfigSource.load(Optional.empty(),
        login("worker-gpu", workerPw, ca.certificate()), KafkaClientConfig.KEYS));
    Map<String, Object> producer = new HashMap<>(worker.clientProperties());
    producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producer, new ByteArraySerializer(),
        new ByteArraySerializer())) {
      p.send(new ProducerRecord<>(Topics.GPU_SAMPLES.name(), new byte[] {1}, new byte[] {1})).get(30, TimeUnit.SECONDS);
      assertThatThrownBy(() -> p.send(new ProducerRecord<>(Topics.VCENTER_EVENTS.name(), new byte[] {1},
          new byte[] {1})).get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(TopicAuthorizationException.class).hasMessageContaining(Topics.VCENTER_EVENTS.name());
    }
    Map<String, Object> consumer = new HashMap<>(worker.clientProperties());
    consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumer, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      c.assign(List.of(new TopicPartition(Topics.MIGRATIONS.name(), 0)));
      assertThatThrownBy(() -> c.poll(Duration.ofSeconds(20))).isInstanceOf(TopicAuthorizationException.class)
          .hasMessageContaining(Topics.MIGRATIONS.name());
    }
    consumer.put(ConsumerConfig.GROUP_ID_CONFIG, "stunwatch-processor");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumer, new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      c.subscribe(List.of(Topics.GPU_SAMPLES.name()));
      assertThatThrownBy(() -> c.poll(Duration.ofSeconds(20))).isInstanceOf(GroupAuthorizationException.class)
          .hasMessageContaining("stunwatch-processor");
    }
    // and through the CLI an operator would use, the refusal is named
    try (StunwatchProcess tail = StunwatchProcess.start(login("worker-gpu", workerPw, ca.certificate()), "tail",
        Topics.MIGRATIONS.name())) {
      assertThat(tail.awaitExit(Duration.ofSeconds(60))).isEqualTo(ExitCodes.FAILED);
      assertThat(String.join("\n", tail.stderr())).contains("not authorized").contains(Topics.MIGRATIONS.name());
    }
  }

  @Test
  void aWrongPasswordOrAnUntrustedCertificateStopsACommandAtOnceWithTheReason() throws Exception {
    TestCertificates.Ca ca = TestCertificates.ca(dir, "site");
    TestCertificates.Leaf cert = TestCertificates.leaf(dir, ca, "broker", "localhost", "127.0.0.1");
    Path workerPw = password("worker-gpu");
    broker = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(dir.resolve("kafka")).withSecured(
        new BrokerConfig.Secured(cert.keystore(), cert.keystorePassword(), List.of(
            new BrokerConfig.User("worker-gpu", BrokerConfig.Role.WORKER, Files.readString(workerPw).strip())))));
    Path wrong = dir.resolve("wrong.password");
    Files.writeString(wrong, "not-the-password-at-all\n");
    long started = System.nanoTime();
    try (StunwatchProcess p = StunwatchProcess.start(login("worker-gpu", wrong, ca.certificate()), "tail",
        Topics.GPU_SAMPLES.name())) {
      assertThat(p.awaitExit(Duration.ofSeconds(60))).isEqualTo(ExitCodes.FAILED);
      assertThat(String.join("\n", p.stderr())).contains("refused the login of user 'worker-gpu' (SCRAM-SHA-512)")
          .doesNotContain("not-the-password-at-all");
    }
    TestCertificates.Ca other = TestCertificates.ca(dir, "elsewhere");
    try (StunwatchProcess p = StunwatchProcess.start(login("worker-gpu", workerPw, other.certificate()), "tail",
        Topics.GPU_SAMPLES.name())) {
      assertThat(p.awaitExit(Duration.ofSeconds(60))).isEqualTo(ExitCodes.FAILED);
      assertThat(String.join("\n", p.stderr())).contains("TLS handshake with Kafka at " + broker.bootstrapServers())
          .contains(other.certificate().toString());
    }
    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("no retry loop").isLessThan(Duration.ofSeconds(90));
  }
}
