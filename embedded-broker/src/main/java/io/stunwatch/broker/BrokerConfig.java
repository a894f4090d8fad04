package io.stunwatch.broker;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Settings of the embedded Kafka broker ({@code stunwatch broker}, the demo, the ITs).
 *
 * @param dataDir        where the broker keeps its log and metadata; a restart on the same directory keeps the data
 * @param host           interface to listen on and host name to advertise
 * @param port           client (PLAINTEXT) port; 0 picks a free one
 * @param controllerPort KRaft controller port; 0 picks a free one
 * @param partitions     partitions of the Stunwatch topics and of auto-sized internal topics
 * @param createTopics   whether to create the Stunwatch topics at start-up
 * @param secured        TLS, SCRAM logins and ACLs on the client port, or null for PLAINTEXT
 */
public record BrokerConfig(Path dataDir, String host, int port, int controllerPort, int partitions,
    boolean createTopics, Secured secured) {

  /** What a login may do: each role gets the ACLs of {@link BrokerAcls}. */
  public enum Role {
    /** A worker collector in a tenant's GPU VM: writes the sample topics, nothing else. */
    WORKER,
    /** The vCenter collector: writes the vCenter topics and reads back its own checkpoints. */
    VCENTER,
    /** The hosts collector: writes the host vGPU samples and reads the host inventory that names its hosts. */
    HOSTS,
    /** The processor, the API and the operator's {@code tail}: everything under the {@code stunwatch} prefix. */
    SERVICE
  }

  /** A SCRAM login of the embedded broker. */
  public record User(String name, Role role, String password) {
    @Override
    public String toString() {
      return "User[" + name + ", " + role + ", password=****]";
    }
  }

  /**
   * The secured client listener: SASL_SSL with SCRAM-SHA-512 and SCRAM-SHA-256, the broker's certificate from a
   * keystore, and the users with their roles. The broker's own administration uses a PLAINTEXT listener bound to
   * 127.0.0.1 on a free port.
   */
  public record Secured(Path keystore, String keystorePassword, List<User> users) {
    public Secured {
      users = List.copyOf(users);
    }

    @Override
    public String toString() {
      return "Secured[" + keystore + ", users=" + users + "]";
    }
  }

  /** PLAINTEXT, no logins. */
  public BrokerConfig(Path dataDir, String host, int port, int controllerPort, int partitions,
      boolean createTopics) {
    this(dataDir, host, port, controllerPort, partitions, createTopics, null);
  }

  public static final ConfigKey<Path> DATA_DIR = ConfigKeys.path("broker.data-dir", Path.of("stunwatch-data", "broker"),
      "Directory of the embedded broker's log and metadata. Reused across restarts.");
  public static final ConfigKey<String> HOST = ConfigKeys.string("broker.host", "localhost",
      "Interface the embedded broker listens on and the host name it advertises. Loopback by default: without "
          + "broker.ssl.keystore the embedded broker has no authentication.");
  public static final ConfigKey<Integer> PORT = ConfigKeys.port("broker.port", 9092,
      "Client port of the embedded broker; 0 picks a free port.");
  public static final ConfigKey<Integer> CONTROLLER_PORT = ConfigKeys.port("broker.controller-port", 9093,
      "KRaft controller port of the embedded broker; 0 picks a free port.");
  public static final ConfigKey<Integer> PARTITIONS = ConfigKeys.integer("broker.partitions", 3, 1, 1000,
      "Partitions of each Stunwatch topic the embedded broker creates.");
  public static final ConfigKey<Boolean> CREATE_TOPICS = ConfigKeys.bool("broker.create-topics", true,
      "Create the Stunwatch topics (with their retention and compaction) when the broker starts.");

  public static final ConfigKey<Path> SSL_KEYSTORE = ConfigKeys.path("broker.ssl.keystore", null,
      "PKCS12 or JKS keystore with the broker's certificate and key: the client port then speaks SASL_SSL (SCRAM) "
          + "with ACLs, and needs broker.users-file.");
  public static final ConfigKey<String> SSL_KEYSTORE_PASSWORD = ConfigKeys.secret("broker.ssl.keystore-password",
      "Password of broker.ssl.keystore, as a file (STUNWATCH_BROKER_SSL_KEYSTORE_PASSWORD_FILE).");
  public static final ConfigKey<Path> USERS_FILE = ConfigKeys.path("broker.users-file", null,
      "The secured broker's logins, one a line: '<user> <role> <password-file>', role worker (writes the sample "
          + "topics only), vcenter (the vCenter topics), hosts (collect hosts: the host vGPU samples, reading the host "
          + "inventory) or service (processor, API, tail).");

  /** Every key this record reads. */
  public static final List<ConfigKey<?>> KEYS = List.of(DATA_DIR, HOST, PORT, CONTROLLER_PORT, PARTITIONS,
      CREATE_TOPICS, SSL_KEYSTORE, SSL_KEYSTORE_PASSWORD, USERS_FILE);

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
    Path keystore = r.get(SSL_KEYSTORE);
    String keystorePassword = r.get(SSL_KEYSTORE_PASSWORD);
    Path usersFile = r.get(USERS_FILE);
    Secured secured = null;
    r.check(keystore != null || usersFile == null, SSL_KEYSTORE, "is required with broker.users-file: logins "
        + "travel over TLS only");
    if (keystore != null) {
      r.check(keystorePassword != null, SSL_KEYSTORE_PASSWORD, "is required with broker.ssl.keystore");
      r.check(usersFile != null, USERS_FILE, "is required with broker.ssl.keystore");
      List<User> users = usersFile == null ? List.of() : readUsers(r, usersFile);
      secured = new Secured(keystore, keystorePassword, users);
    }
    r.done();
    return new BrokerConfig(dataDir, host, port, controllerPort, partitions, createTopics, secured);
  }

  /**
   * The users file: {@code <user> <role> <password-file>} a line, the password file relative to it; '#' starts a
   * comment. Problems are added to {@code r}, naming the file and line.
   */
  public static List<User> readUsers(ConfigReader r, Path file) {
    List<User> users = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (IOException e) {
      r.check(false, USERS_FILE, "cannot read " + file + ": " + e.getMessage());
      return users;
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + ":" + (i + 1);
      String[] f = line.split("\\s+");
      if (f.length != 3 || !f[0].matches("[A-Za-z0-9._@-]+")) {
        r.problem(USERS_FILE.name(), null, where, "expected '<user> <role> <password-file>'");
        continue;
      }
      Role role;
      try {
        role = Role.valueOf(f[1].toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        r.problem(USERS_FILE.name(), f[1], where, "role must be worker, vcenter, hosts or service");
        continue;
      }
      Path pw = file.resolveSibling(f[2]);
      try {
        String password = Files.readString(pw).strip();
        if (password.length() < 12) {
          r.problem(USERS_FILE.name(), null, where, "the password in " + pw + " has fewer than 12 characters");
          continue;
        }
        users.add(new User(f[0], role, password));
      } catch (IOException e) {
        r.problem(USERS_FILE.name(), null, where, "cannot read the password file " + pw + ": " + e.getMessage());
      }
    }
    r.check(!users.isEmpty(), USERS_FILE, "names no user");
    return users;
  }

  /** This config with the client port secured. */
  public BrokerConfig withSecured(Secured s) {
    return new BrokerConfig(dataDir, host, port, controllerPort, partitions, createTopics, s);
  }

  /** A config for tests: free ports on loopback, in {@code dataDir}. */
  public static BrokerConfig ephemeral(Path dataDir) {
    return new BrokerConfig(dataDir, "localhost", 0, 0, 3, true);
  }

  public BrokerConfig withDataDir(Path dir) {
    return new BrokerConfig(dir, host, port, controllerPort, partitions, createTopics, secured);
  }

  public BrokerConfig withPartitions(int n) {
    return new BrokerConfig(dataDir, host, port, controllerPort, n, createTopics, secured);
  }
}
