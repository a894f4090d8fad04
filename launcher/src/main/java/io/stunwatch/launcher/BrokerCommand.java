package io.stunwatch.launcher;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code stunwatch broker}: a real single-node Kafka broker (KRaft) until stopped with Ctrl-C or SIGTERM.
 *
 * <p>Prints {@code Kafka broker ready at HOST:PORT} on standard output once clients can connect; scripts wait for
 * that line.
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
    description = {"Run a single-node Apache Kafka broker (KRaft combined mode) in this process until stopped.",
        "Its data stays in --data-dir, and a restart on the same directory keeps it.",
        "Prints 'Kafka broker ready at HOST:PORT' on standard output once it accepts clients."})
final class BrokerCommand implements Callable<Integer> {

  /** The line, on standard output, that says the broker accepts clients; followed by {@code host:port}. */
  static final String READY_LINE = "Kafka broker ready at ";

  private final LaunchContext ctx;

  @Mixin
  ConfigOption config;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Data directory (broker.data-dir).")
  Path dataDir;

  @Option(names = "--host", description = "Listen and advertise host (broker.host).")
  String host;

  @Option(names = "--port", description = "Client port, 0 for any free port (broker.port).")
  Integer port;

  @Option(names = "--controller-port", description = "KRaft controller port, 0 for any free (broker.controller-port).")
  Integer controllerPort;

  @Option(names = "--partitions", description = "Partitions of each Stunwatch topic (broker.partitions).")
  Integer partitions;

  BrokerCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    ConfigSource source = config.load(ctx)
        .override(BrokerConfig.DATA_DIR, dataDir, "--data-dir")
        .override(BrokerConfig.HOST, host, "--host")
        .override(BrokerConfig.PORT, port, "--port")
        .override(BrokerConfig.CONTROLLER_PORT, controllerPort, "--controller-port")
        .override(BrokerConfig.PARTITIONS, partitions, "--partitions");
    BrokerConfig brokerConfig = BrokerConfig.from(source);

    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(brokerConfig);
    ctx.out().println(READY_LINE + broker.bootstrapServers());
    ctx.out().println("  cluster id: " + broker.clusterId());
    ctx.out().println("  data dir:   " + broker.dataDir());
    ctx.out().println("  started in: " + broker.startupTime().toMillis() + " ms"
        + (broker.createdTopics().isEmpty() ? "" : ", created " + broker.createdTopics().size() + " topics"));
    ctx.out().println("Press Ctrl-C to stop.");
    ctx.out().flush();
    UntilStopped.await(broker, Duration.ofSeconds(60));
    return ExitCodes.OK;
  }
}
