package io.stunwatch.launcher;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Log levels. Logs go to standard error through SLF4J and Logback (the one binding); standard output is kept for
 * command results.
 *
 * @param level      level of Stunwatch's own loggers and the default
 * @param kafkaLevel level of the Kafka client, broker and Streams loggers, which are chatty at INFO
 */
public record LoggingConfig(LogLevel level, LogLevel kafkaLevel) {

  /** Log levels, as SLF4J names them. */
  public enum LogLevel { TRACE, DEBUG, INFO, WARN, ERROR }

  public static final ConfigKey<LogLevel> LEVEL = ConfigKeys.enumeration("log.level", LogLevel.class, LogLevel.INFO,
      "Level of Stunwatch's own log messages.");
  public static final ConfigKey<LogLevel> KAFKA_LEVEL = ConfigKeys.enumeration("log.kafka-level", LogLevel.class,
      LogLevel.WARN, "Level of Kafka's log messages (clients, Streams and the embedded broker).");

  public static final List<ConfigKey<?>> KEYS = List.of(LEVEL, KAFKA_LEVEL);

  /** Kafka logger names (the broker logs under "kafka" and "state.change.logger" as well as its packages). */
  private static final List<String> KAFKA_LOGGERS = List.of("org.apache.kafka", "kafka", "state.change.logger");
  /**
   * Loggers whose WARNs are expected on every start of a single-node broker, shown only when asked for. The
   * producer's Sender warns of each produce it retries and gets through: CONCURRENT_TRANSACTIONS while the transaction
   * coordinator writes the previous transaction's markers (a burst as the processor's first transactions start),
   * NOT_LEADER while a partition moves. A send it gives up on fails: Streams logs that as an ERROR, and the
   * collectors count and log their failed sends.
   */
  private static final List<String> BENIGN_WARN_LOGGERS = List.of(
      "org.apache.kafka.controller.QuorumController", "org.apache.kafka.clients.NetworkClient",
      "org.apache.kafka.clients.producer.internals.Sender");

  public static LoggingConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    LogLevel level = r.get(LEVEL);
    LogLevel kafka = r.get(KAFKA_LEVEL);
    r.done();
    return new LoggingConfig(level, kafka);
  }

  /** Applies the levels to Logback. */
  public void apply() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
      return; // another binding (a test harness): leave its configuration alone
    }
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.toLevel(level.name()));
    ctx.getLogger("io.stunwatch").setLevel(Level.toLevel(level.name()));
    for (String name : KAFKA_LOGGERS) {
      ctx.getLogger(name).setLevel(Level.toLevel(kafkaLevel.name()));
    }
    // yavijava prints SOAP bodies at DEBUG and TRACE, and the Login body holds the password: never below WARN.
    // Its WSClient logs every failed call with a stack trace at ERROR; the collector reports those with the URL.
    ctx.getLogger("com.vmware").setLevel(Level.WARN);
    ctx.getLogger("com.vmware.vim25.ws.WSClient").setLevel(Level.OFF);
    // MINA SSHD narrates each connection at INFO; collect hosts reports what matters per host itself.
    ctx.getLogger("org.apache.sshd").setLevel(Level.WARN);
    Level benign = kafkaLevel.compareTo(LogLevel.WARN) >= 0 ? Level.ERROR : Level.toLevel(kafkaLevel.name());
    for (String name : BENIGN_WARN_LOGGERS) {
      ctx.getLogger(name).setLevel(benign);
    }
  }
}
