package io.stunwatch.bench;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Kafka Streams settings a benchmark run puts over the processor's own ({@code --streams-config KEY=VALUE}), so that
 * a one-setting experiment is a command line rather than a build nobody commits. Every key must be one that Streams
 * or the client it is prefixed for knows, and every value must be one that client accepts: a typo would otherwise
 * run a whole benchmark with nothing changed.
 */
public final class StreamsOverrides {

  /** Client prefixes Streams hands on, and the client configuration each one is checked against. */
  private static final Map<String, Set<String>> PREFIXES = new LinkedHashMap<>();

  static {
    PREFIXES.put(StreamsConfig.MAIN_CONSUMER_PREFIX, ConsumerConfig.configNames());
    PREFIXES.put(StreamsConfig.RESTORE_CONSUMER_PREFIX, ConsumerConfig.configNames());
    PREFIXES.put(StreamsConfig.GLOBAL_CONSUMER_PREFIX, ConsumerConfig.configNames());
    PREFIXES.put(StreamsConfig.CONSUMER_PREFIX, ConsumerConfig.configNames());
    PREFIXES.put(StreamsConfig.PRODUCER_PREFIX, ProducerConfig.configNames());
    PREFIXES.put(StreamsConfig.ADMIN_CLIENT_PREFIX, AdminClientConfig.configNames());
  }

  private StreamsOverrides() {
  }

  /**
   * The settings of {@code KEY=VALUE} arguments, in order (a later one of the same key wins). Values are checked by
   * {@link #applied}, which knows the settings they go over.
   *
   * @throws IllegalArgumentException naming the argument: no {@code =}, or a key no client knows
   */
  public static Map<String, String> parse(List<String> args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--streams-config '" + arg + "': must be KEY=VALUE");
      }
      String key = arg.substring(0, eq).trim();
      if (!known(key)) {
        throw new IllegalArgumentException("--streams-config '" + arg + "': '" + key + "' is not a Kafka Streams "
            + "setting, nor a consumer, producer or admin setting under one of the prefixes " + PREFIXES.keySet()
            + " (topic settings: topic.<name>)");
      }
      out.put(key, arg.substring(eq + 1).trim());
    }
    return out;
  }

  /**
   * Checks {@code base} with {@code overrides} over it as every client Streams builds from it would see it.
   *
   * @throws IllegalArgumentException naming the setting a client refused and why
   */
  public static Properties applied(Properties base, Map<String, String> overrides) {
    Properties p = new Properties();
    p.putAll(base);
    p.putAll(overrides);
    try {
      StreamsConfig c = new StreamsConfig(p);
      new ConsumerConfig(bytes(c.getMainConsumerConfigs("check", "check", 0)));
      new ConsumerConfig(bytes(c.getRestoreConsumerConfigs("check")));
      new ConsumerConfig(bytes(c.getGlobalConsumerConfigs("check")));
      new ProducerConfig(bytes(c.getProducerConfigs("check")));
      new AdminClientConfig(c.getAdminConfigs("check"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("--streams-config " + overrides + ": " + e.getMessage(), e);
    }
    return p;
  }

  /** A client's settings with the byte (de)serializers Streams gives every client when it creates it. */
  private static Map<String, Object> bytes(Map<String, Object> client) {
    Map<String, Object> out = new HashMap<>(client);
    out.putIfAbsent(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    out.putIfAbsent(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    out.putIfAbsent(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    out.putIfAbsent(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return out;
  }

  private static boolean known(String key) {
    if (StreamsConfig.configDef().names().contains(key)) {
      return true;
    }
    if (key.startsWith(StreamsConfig.TOPIC_PREFIX)) {
      return key.length() > StreamsConfig.TOPIC_PREFIX.length();
    }
    for (var e : PREFIXES.entrySet()) {
      if (key.startsWith(e.getKey()) && e.getValue().contains(key.substring(e.getKey().length()))) {
        return true;
      }
    }
    return false;
  }
}
