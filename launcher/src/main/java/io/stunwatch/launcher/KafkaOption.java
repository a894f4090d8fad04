package io.stunwatch.launcher;

import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import picocli.CommandLine.Option;

/** The {@code --bootstrap-servers} option of every command that talks to Kafka. */
public final class KafkaOption {

  @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
      description = "Kafka brokers (kafka.bootstrap-servers).")
  String bootstrapServers;

  /** {@code source} with the option applied, when given. */
  ConfigSource apply(ConfigSource source) {
    return source.override(KafkaClientConfig.BOOTSTRAP_SERVERS, bootstrapServers, "--bootstrap-servers");
  }
}
