package io.stunwatch.testsupport;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real embedded Kafka broker for ITs, on free loopback ports, in a temporary directory that is deleted
 * afterwards.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.shared();
 * }</pre>
 *
 * <p>{@link #shared()} starts one broker for the whole test run (the first class that needs it starts it; JUnit
 * closes it when the run ends), which keeps the suite fast. {@link #perClass()} gives a class its own broker, for
 * tests that stop or restart it.
 */
public final class KafkaBrokerExtension implements BeforeAllCallback, AfterAllCallback {

  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(KafkaBrokerExtension.class);

  private final boolean shared;
  private RunningBroker running;

  private KafkaBrokerExtension(boolean shared) {
    this.shared = shared;
  }

  /** One broker for the whole run. Tests must use distinct keys or topics, or tolerate other tests' records. */
  public static KafkaBrokerExtension shared() {
    return new KafkaBrokerExtension(true);
  }

  /** A broker of the test class's own, stopped after its last test. */
  public static KafkaBrokerExtension perClass() {
    return new KafkaBrokerExtension(false);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    running = shared
        ? context.getRoot().getStore(NS).getOrComputeIfAbsent("broker", k -> RunningBroker.start(), RunningBroker.class)
        : RunningBroker.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (!shared && running != null) {
      running.close();
    }
  }

  public EmbeddedKafkaBroker broker() {
    if (running == null) {
      throw new IllegalStateException("the broker starts in beforeAll: register the extension as a static field");
    }
    return running.broker;
  }

  public String bootstrapServers() {
    return broker().bootstrapServers();
  }

  /** A started broker and its directory; JUnit closes it at the end of the run when stored in the root store. */
  static final class RunningBroker implements AutoCloseable {
    final Path dir;
    final EmbeddedKafkaBroker broker;

    private RunningBroker(Path dir, EmbeddedKafkaBroker broker) {
      this.dir = dir;
      this.broker = broker;
    }

    static RunningBroker start() {
      try {
        Path dir = Files.createTempDirectory("stunwatch-it-broker-");
        return new RunningBroker(dir, EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(dir)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        broker.close();
      } finally {
        deleteTree(dir);
      }
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }
}
