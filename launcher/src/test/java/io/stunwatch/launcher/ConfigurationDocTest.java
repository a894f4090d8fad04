package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/configuration.md is generated from the catalog; this fails when someone forgets to regenerate it. */
class ConfigurationDocTest {

  @Test
  void configurationReferenceMatchesTheCatalog() throws Exception {
    String doc = Files.readString(Path.of("..", "docs", "configuration.md"));
    assertThat(doc)
        .as("docs/configuration.md is stale: run ./stunwatch config keys --markdown > docs/configuration.md")
        .isEqualTo(ConfigCommand.markdown());
  }

  @Test
  void theSaslSslExampleIsAConfigurationStunwatchAccepts(@TempDir Path dir)
      throws Exception {
    String example = ConfigCommand.SASL_SSL_EXAMPLE;
    String file = example.substring(example.indexOf("```properties") + 13, example.indexOf("```", example.indexOf(
        "```properties") + 13)).strip();
    Path ca = dir.resolve("kafka-ca.pem");
    Files.writeString(ca, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    Path config = dir.resolve("worker.conf");
    Files.writeString(config, file.replace("/etc/stunwatch/kafka-ca.pem", ca.toString()) + "\n");
    Path pw = dir.resolve("kafka-password");
    Files.writeString(pw, "a-password-of-some-length\n");
    var source = ConfigSource.load(Optional.of(config), Map.of(
        "STUNWATCH_KAFKA_SASL_PASSWORD_FILE", pw.toString()), ConfigCatalog.ALL);
    var kafka = KafkaClientConfig.from(source);
    assertThat(kafka.protocol()).isEqualTo(KafkaClientConfig.Protocol.SASL_SSL);
    assertThat(kafka.clientProperties()).containsEntry("client.dns.lookup", "use_all_dns_ips");
  }

  @Test
  void catalogHasEveryComponentsKeysOnce() {
    assertThat(ConfigCatalog.ALL).extracting(ConfigKey::name).doesNotHaveDuplicates()
        .contains("broker.port", "kafka.bootstrap-servers", "log.level");
    assertThat(ConfigCatalog.ALL).extracting(ConfigKey::envName).doesNotHaveDuplicates();
  }
}
