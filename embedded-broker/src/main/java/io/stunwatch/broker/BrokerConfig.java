package io.stunwatch.broker;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.util.List;

/**
 * Settings of the embedded Kafka broker ({@code stunwatch broker}, the demo, the ITs).
 *
 * @param dataDir        where the broker keeps its log and metadata; a restart on the same directory keeps the data
 * @param host           interface to listen on and host name to advertise
 * @param port           client (PLAINTEXT) port; 0 picks a free one
 * @param controllerPort KRaft controller port; 0 picks a free one
 * @param partitions     partitions of the Stunwatch topics and of auto-sized internal topics
 * @param createTopics   whether to create the Stunwatch topics at start-up
 */
public record BrokerConfig(Path dataDir, String host, int port, int controllerPort, int partitions,
    boolean createTopics) {

  public static final ConfigKey<Path> DATA_DIR = ConfigKeys.path("broker.data-dir", Path.of("stunwatch-data", "broker"),
      "Directory of the embedded broker's log and metadata. Reused across restarts.");
  public static final ConfigKey<String> HOST = ConfigKeys.string("broker.host", "localhost",
      "Interface the embedded broker listens on and the host name it advertises. Loopback by default: the "
          + "embedded broker has no authentication.");
  public static final ConfigKey<Integer> PORT = ConfigKeys.port("broker.port", 9092,
      "Client port of the embedded broker; 0 picks a free port.");
  public static final ConfigKey<Integer> CONTROLLER_PORT = ConfigKeys.port("broker.controller-port", 9093,
      "KRaft controller port of the embedded broker; 0 picks a free port.");
  public static final ConfigKey<Integer> PARTITIONS = ConfigKeys.integer("broker.partitions", 3, 1, 1000,
      "Partitions of each Stunwatch topic the embedded broker creates.");
  public static final ConfigKey<Boolean> CREATE_TOPICS = ConfigKeys.bool("broker.create-topics", true,
      "Create the Stunwatch topics (with their retention and compaction) when the broker starts.");

  /** Every key this record reads. */
  public static final List<ConfigKey<?>> KEYS = List.of(DATA_DIR, HOST, PORT, CONTROLLER_PORT, PARTITIONS,
      CREATE_TOPICS);

  public BrokerConfig {
    if (port != 0 && port == controllerPort) {
      throw new IllegalArgumentException("broker.port and broker.controller-port must differ, both are " + port);
    }
  }

  /** Reads and validates the broker settings; throws {@link io.stunwatch.config.ConfigException} listing problems. */
  public static BrokerConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    Path dataDir = r.get(DATA_DIR);
    String host = r.get(HOST);
    int port = r.get(PORT);
    int controllerPort = r.get(CONTROLLER_PORT);
    int partitions = r.get(PARTITIONS);
    boolean createTopics = r.get(CREATE_TOPICS);
    r.check(port == 0 || port != controllerPort, CONTROLLER_PORT, "must differ from broker.port (" + port + ")");
    r.done();
    return new BrokerConfig(dataDir, host, port, controllerPort, partitions, createTopics);
  }

  /** A config for tests: free ports on loopback, in {@code dataDir}. */
  public static BrokerConfig ephemeral(Path dataDir) {
    return new BrokerConfig(dataDir, "localhost", 0, 0, 3, true);
  }

  public BrokerConfig withDataDir(Path dir) {
    return new BrokerConfig(dir, host, port, controllerPort, partitions, createTopics);
  }

  public BrokerConfig withPartitions(int n) {
    return new BrokerConfig(dataDir, host, port, controllerPort, n, createTopics);
  }
}
