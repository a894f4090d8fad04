package io.stunwatch.config;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * How components reach Kafka.
 *
 * @param bootstrapServers comma-separated {@code host:port} list
 */
public record KafkaClientConfig(String bootstrapServers) {

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = ConfigKeys.custom("kafka.bootstrap-servers",
      "host:port list", "a comma-separated list of host:port", "localhost:9092",
      "Kafka brokers the collectors, processor and API connect to.", KafkaClientConfig::parseServers);

  public static final List<ConfigKey<?>> KEYS = List.of(BOOTSTRAP_SERVERS);

  public static KafkaClientConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    String servers = r.get(BOOTSTRAP_SERVERS);
    r.done();
    return new KafkaClientConfig(servers);
  }

  /** The common client properties. */
  public Map<String, Object> clientProperties() {
    return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
  }

  private static String parseServers(String raw) {
    for (String s : raw.split(",")) {
      String hp = s.trim();
      int colon = hp.lastIndexOf(':');
      if (colon <= 0 || colon == hp.length() - 1) {
        throw new IllegalArgumentException("must be a comma-separated list of host:port, '" + hp + "' is not");
      }
      try {
        int port = Integer.parseInt(hp.substring(colon + 1));
        if (port < 1 || port > 65535) {
          throw new NumberFormatException();
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("port of '" + hp + "' must be an integer in 1..65535");
      }
    }
    return raw.replace(" ", "");
  }
}
