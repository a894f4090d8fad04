package io.stunwatch.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientConfigTest {

  @TempDir
  Path dir;

  ConfigSource source(Map<String, String> env, String file) throws Exception {
    Path f = dir.resolve("stunwatch.properties");
    Files.writeString(f, file);
    return ConfigSource.load(Optional.of(f), env, KafkaClientConfig.KEYS);
  }

  @Test
  void saslSslBuildsTheJaasEntryFromAUserAndAPasswordFileAndNeverPrintsIt() throws Exception {
    Path pw = dir.resolve("kafka-password");
    Files.writeString(pw, "s3cr\"et\\pw\n");
    Path ca = dir.resolve("ca.pem");
    Files.writeString(ca, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    KafkaClientConfig c = KafkaClientConfig.from(source(Map.of("STUNWATCH_KAFKA_SASL_PASSWORD_FILE", pw.toString(),
        "STUNWATCH_KAFKA_CLIENT_CLIENT_DNS_LOOKUP", "use_all_dns_ips"), """
        kafka.bootstrap-servers=kafka-1.example.com:9094
        kafka.security.protocol=SASL_SSL
        kafka.sasl.mechanism=SCRAM-SHA-512
        kafka.sasl.username=worker-gpu-01
        kafka.ssl.ca-file=%s
        kafka.client.linger.ms=20
        """.formatted(ca)));
    Map<String, Object> p = c.clientProperties();
    assertThat(p).containsEntry("bootstrap.servers", "kafka-1.example.com:9094")
        .containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("ssl.truststore.type", "PEM").containsEntry("ssl.truststore.location", ca.toString())
        .containsEntry("linger.ms", "20").containsEntry("client.dns.lookup", "use_all_dns_ips");
    assertThat(((Password) p.get("sasl.jaas.config")).value()).isEqualTo(
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"worker-gpu-01\" "
            + "password=\"s3cr\\\"et\\\\pw\";");
    assertThat(c.toString()).doesNotContain("s3cr").contains("****");
    assertThat(String.valueOf(p)).doesNotContain("s3cr"); // Kafka's Password prints [hidden]
    assertThat(c.principalDescription()).isEqualTo("user 'worker-gpu-01' (SCRAM-SHA-512)");
  }

  @Test
  void aLoginWithoutItsPasswordFileOrMechanismFailsNamingTheKeysAndTheFileVariable() throws Exception {
    assertThatThrownBy(() -> KafkaClientConfig.from(source(Map.of(), """
        kafka.security.protocol=SASL_SSL
        kafka.sasl.username=worker
        """))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.sasl.mechanism").hasMessageContaining("kafka.sasl.password")
        .hasMessageContaining("STUNWATCH_KAFKA_SASL_PASSWORD_FILE");
    assertThatThrownBy(() -> KafkaClientConfig.from(source(Map.of(), """
        kafka.sasl.mechanism=PLAIN
        kafka.ssl.ca-file=/nowhere.pem
        """))).isInstanceOf(ConfigException.class).hasMessageContaining("would not be used");
  }

  @Test
  void aPassThroughPropertyIsCheckedAgainstTheKafkaClientsOwnDefinitions() throws Exception {
    assertThatThrownBy(() -> KafkaClientConfig.from(source(Map.of(), """
        kafka.client.linger.ms=soon
        kafka.client.no.such.property=1
        kafka.client.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required;
        kafka.client.acks=some
        """))).isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.client.linger.ms").hasMessageContaining("soon")
        .hasMessageContaining("kafka.client.no.such.property").hasMessageContaining("not a property of the Kafka")
        .hasMessageContaining("kafka.client.sasl.jaas.config").hasMessageContaining("own kafka.* keys")
        .hasMessageContaining("kafka.client.acks");
  }

  @Test
  void theFamilysVariablesAreNotReportedAsUnknownAndItsFileKeysAreAccepted() throws Exception {
    ConfigSource s = source(Map.of("STUNWATCH_KAFKA_CLIENT_RECONNECT_BACKOFF_MS", "100", "STUNWATCH_KAFKA_TYPO", "1"),
        "kafka.client.retry.backoff.ms=200\n");
    assertThat(s.warnings()).singleElement().asString().contains("STUNWATCH_KAFKA_TYPO");
    assertThat(s.family(KafkaClientConfig.CLIENT)).containsOnlyKeys("reconnect.backoff.ms", "retry.backoff.ms");
    assertThat(KafkaClientConfig.CLIENT.name()).isEqualTo("kafka.client.<property>");
    assertThat(KafkaClientConfig.CLIENT.envName()).isEqualTo("STUNWATCH_KAFKA_CLIENT_<PROPERTY>");
  }

  @Test
  void oauthBearerLogsInWithTheClientIdAndSecretAndNeedsItsTokenEndpoint() throws Exception {
    Path pw = dir.resolve("secret");
    Files.writeString(pw, "client-secret");
    assertThatThrownBy(() -> KafkaClientConfig.from(source(Map.of("STUNWATCH_KAFKA_SASL_PASSWORD_FILE",
        pw.toString()), "kafka.security.protocol=SASL_SSL\nkafka.sasl.mechanism=OAUTHBEARER\nkafka.sasl.username=sw\n")))
        .hasMessageContaining("sasl.oauthbearer.token.endpoint.url");
    KafkaClientConfig c = KafkaClientConfig.from(source(Map.of("STUNWATCH_KAFKA_SASL_PASSWORD_FILE", pw.toString()),
        "kafka.security.protocol=SASL_SSL\nkafka.sasl.mechanism=OAUTHBEARER\nkafka.sasl.username=sw\n"
            + "kafka.client.sasl.oauthbearer.token.endpoint.url=https://idp.example.com/token\n"));
    assertThat(((Password) c.clientProperties().get("sasl.jaas.config")).value())
        .contains("OAuthBearerLoginModule required clientId=\"sw\" clientSecret=\"client-secret\";");
    assertThat(c.clientProperties()).containsKey("sasl.login.callback.handler.class");
  }

  @Test
  void plaintextIsTheDefaultAndHasNoSecurityProperties() {
    KafkaClientConfig c = KafkaClientConfig.from(ConfigSource.of(Map.of()));
    assertThat(c.protocol()).isEqualTo(KafkaClientConfig.Protocol.PLAINTEXT);
    assertThat(c.clientProperties()).containsOnlyKeys("bootstrap.servers", "security.protocol");
    assertThat(c.principalDescription()).isNull();
  }
}
