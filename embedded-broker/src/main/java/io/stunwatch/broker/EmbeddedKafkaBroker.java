package io.stunwatch.broker;

import io.stunwatch.model.topic.TopicProvisioner;
import io.stunwatch.model.topic.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka 4.4 broker, single node, KRaft combined mode (broker and controller in one process), run
 * in-process. It formats its data directory on first start and reuses it afterwards, so data survives a restart.
 *
 * <p>{@link #start} returns once the broker answers a client; {@link #close} shuts it down and waits.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final String CONTROLLER = "CONTROLLER";
  private static final int NODE_ID = 1;
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static final String INTERNAL = "INTERNAL";
  /** The secured broker's administration listener: loopback only, where its PLAINTEXT principal is trusted. */
  private static final String INTERNAL_HOST = "127.0.0.1";

  private final BrokerConfig config;
  private final KafkaRaftServer server;
  private final String bootstrapServers;
  private final String adminServers;
  private final String clusterId;
  private final Duration startupTime;
  private final List<String> createdTopics;
  private boolean closed;

  private EmbeddedKafkaBroker(BrokerConfig config, KafkaRaftServer server, String bootstrapServers,
      String adminServers, String clusterId, Duration startupTime, List<String> createdTopics) {
    this.config = config;
    this.server = server;
    this.bootstrapServers = bootstrapServers;
    this.adminServers = adminServers;
    this.clusterId = clusterId;
    this.startupTime = startupTime;
    this.createdTopics = createdTopics;
  }

  /**
   * Formats the data directory if needed, starts the broker and waits until it answers.
   *
   * @throws IllegalStateException when the directory cannot be formatted or the broker does not come up
   */
  public static EmbeddedKafkaBroker start(BrokerConfig config) {
    long t0 = System.nanoTime();
    Path dataDir = config.dataDir().toAbsolutePath();
    Path logDir = dataDir.resolve("kafka-logs");
    int port = config.port() == 0 ? freePort(config.host()) : config.port();
    int controllerPort = config.controllerPort() == 0 ? freePortOtherThan(config.host(), port)
        : config.controllerPort();
    try {
      Files.createDirectories(logDir);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create broker data directory " + logDir + ": " + e, e);
    }
    String clusterId = format(logDir);
    int internalPort = config.secured() == null ? 0 : freePortOtherThan(INTERNAL_HOST, port, controllerPort);
    Properties props = serverProperties(config, logDir, port, controllerPort, internalPort);
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
    String bootstrap = config.host() + ":" + port;
    // the broker's own administration: the client port, or the loopback PLAINTEXT listener of a secured broker
    String admin = config.secured() == null ? bootstrap : INTERNAL_HOST + ":" + internalPort;
    List<String> created;
    try {
      server.startup();
      created = awaitReadyAndCreateTopics(admin, config);
      if (config.secured() != null) {
        addUsersAndAcls(admin, config.secured());
      }
    } catch (RuntimeException e) {
      shutdownQuietly(server);
      throw new IllegalStateException("embedded Kafka broker failed to start on " + bootstrap + " with data in "
          + dataDir + ": " + e.getMessage(), e);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    LOG.info("Kafka broker ready at {} (cluster {}, data in {}, started in {} ms)", bootstrap, clusterId, dataDir,
        took.toMillis());
    return new EmbeddedKafkaBroker(config, server, bootstrap, admin, clusterId, took, created);
  }

  /** {@code host:port} for {@code bootstrap.servers}. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String clusterId() {
    return clusterId;
  }

  public Path dataDir() {
    return config.dataDir().toAbsolutePath();
  }

  /** From the call to {@link #start} until the broker answered. */
  public Duration startupTime() {
    return startupTime;
  }

  /** The Stunwatch topics this start created (empty on a restart, when they already existed). */
  public List<String> createdTopics() {
    return createdTopics;
  }

  /**
   * Client properties to administer this broker: its client port, or for a secured broker the loopback listener
   * whose (unauthenticated) principal is its super user.
   */
  public Map<String, Object> clientConfig() {
    return Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, adminServers);
  }

  /** Shuts the broker down and waits for it; idempotent. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      server.shutdown();
      server.awaitShutdown();
      LOG.info("Kafka broker at {} stopped", bootstrapServers);
    }
  }

  private static Properties serverProperties(BrokerConfig config, Path logDir, int port, int controllerPort,
      int internalPort) {
    Properties p = new Properties();
    String host = config.host();
    p.put("process.roles", "broker,controller");
    p.put("node.id", String.valueOf(NODE_ID));
    p.put("controller.quorum.voters", NODE_ID + "@" + host + ":" + controllerPort);
    p.put("controller.listener.names", CONTROLLER);
    BrokerConfig.Secured secured = config.secured();
    if (secured == null) {
      p.put("listeners", "PLAINTEXT://" + host + ":" + port + "," + CONTROLLER + "://" + host + ":" + controllerPort);
      p.put("advertised.listeners", "PLAINTEXT://" + host + ":" + port);
      p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
      p.put("inter.broker.listener.name", "PLAINTEXT");
    } else {
      // clients log in with SCRAM over TLS; the broker talks to itself on loopback, where ANONYMOUS is super user
      p.put("listeners", "SASL_SSL://" + host + ":" + port + "," + INTERNAL + "://" + INTERNAL_HOST + ":"
          + internalPort + "," + CONTROLLER + "://" + INTERNAL_HOST + ":" + controllerPort);
      p.put("controller.quorum.voters", NODE_ID + "@" + INTERNAL_HOST + ":" + controllerPort);
      p.put("advertised.listeners", "SASL_SSL://" + host + ":" + port + "," + INTERNAL + "://" + INTERNAL_HOST + ":"
          + internalPort);
      p.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL," + INTERNAL + ":PLAINTEXT," + CONTROLLER
          + ":PLAINTEXT");
      p.put("inter.broker.listener.name", INTERNAL);
      p.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,SCRAM-SHA-256");
      for (String m : List.of("scram-sha-512", "scram-sha-256")) {
        p.put("listener.name.sasl_ssl." + m + ".sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;");
      }
      p.put("ssl.keystore.location", secured.keystore().toAbsolutePath().toString());
      p.put("ssl.keystore.password", secured.keystorePassword());
      p.put("ssl.keystore.type", secured.keystore().getFileName().toString().toLowerCase(Locale.ROOT)
          .endsWith(".jks") ? "JKS" : "PKCS12");
      p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
      p.put("super.users", "User:ANONYMOUS");
      p.put("allow.everyone.if.no.acl.found", "false");
    }
    p.put("log.dirs", logDir.toString());
    p.put("metadata.log.dir", logDir.toString());
    p.put("num.partitions", String.valueOf(config.partitions()));
    // Without these, on one node, consumer groups and Streams wait forever with nothing logged at WARN.
    p.put("offsets.topic.replication.factor", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    // Smaller internal topics: 50 partitions each cost seconds on the first group or transaction.
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.num.partitions", "5");
    // A typo'd topic name should fail loudly, not create a new topic.
    p.put("auto.create.topics.enable", "false");
    // The cleaner's default 128 MiB buffer is sized for big clusters; compacted topics here are small.
    p.put("log.cleaner.dedupe.buffer.size", String.valueOf(16 * 1024 * 1024));
    return p;
  }

  /** Formats the log directory on first use and returns the cluster id stored there. */
  private static String format(Path logDir) {
    Path meta = logDir.resolve("meta.properties");
    if (Files.exists(meta)) {
      return readClusterId(meta);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String clusterId = Uuid.randomUuid().toString();
    try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      new Formatter()
          .setPrintStream(ps)
          .setNodeId(NODE_ID)
          .setClusterId(clusterId)
          .setDirectories(List.of(logDir.toString()))
          .setMetadataLogDirectory(logDir.toString())
          .setControllerListenerName(CONTROLLER)
          .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
          .setIgnoreFormatted(true)
          .run();
    } catch (Exception e) {
      throw new IllegalStateException("cannot format broker storage in " + logDir + ": " + e.getMessage(), e);
    }
    LOG.debug("Formatted {}: {}", logDir, out.toString(StandardCharsets.UTF_8).trim());
    return clusterId;
  }

  private static String readClusterId(Path meta) {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(meta)) {
      p.load(in);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + meta + ": " + e, e);
    }
    String id = p.getProperty("cluster.id");
    if (id == null) {
      throw new IllegalStateException(meta + " has no cluster.id: not a Kafka data directory?");
    }
    return id;
  }

  private static List<String> awaitReadyAndCreateTopics(String bootstrap, BrokerConfig config) {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) READY_TIMEOUT.toMillis()))) {
      admin.describeCluster().nodes().get(READY_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (!config.createTopics()) {
        return List.of();
      }
      return TopicProvisioner.ensure(admin, Topics.ALL, config.partitions(), (short) 1, READY_TIMEOUT);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the broker", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("broker did not answer within " + READY_TIMEOUT + ": " + e, e);
    }
  }

  /** Adds the users of a secured broker through its administration listener. */
  private static void addUsersAndAcls(String admin, BrokerConfig.Secured secured) {
    try (Admin a = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, admin))) {
      BrokerAcls.apply(a, secured.users(), READY_TIMEOUT);
    }
  }

  private static void shutdownQuietly(KafkaRaftServer server) {
    try {
      server.shutdown();
      server.awaitShutdown();
    } catch (RuntimeException e) {
      LOG.debug("Ignoring error while stopping a broker that failed to start", e);
    }
  }

  private static int freePort(String host) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on " + host + ": " + e, e);
    }
  }

  private static int freePortOtherThan(String host, int... taken) {
    while (true) {
      int p = freePort(host);
      if (Arrays.stream(taken).noneMatch(t -> t == p)) {
        return p;
      }
    }
  }
}
