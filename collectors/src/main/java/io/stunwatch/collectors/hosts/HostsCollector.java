package io.stunwatch.collectors.hosts;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.DeliveryConfig;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.KafkaSampleSink;
import io.stunwatch.collectors.worker.MetricsServer;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.HostState;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code stunwatch collect hosts}: one process that reads every GPU host's vGPUs over SSH ({@code nvidia-smi vgpu -q
 * -l}), for hosts taken from the vCenter inventory or a list and followed as they come and go. One timer thread moves
 * every host's {@link HostSession} on; the SSH client's own threads carry the streams. Samples go out through the
 * same non-blocking Kafka sink as the worker collector's, as {@code host-vgpu} input.
 */
public final class HostsCollector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HostsCollector.class);
  private static final long TICK_MS = 250;

  /** Every configuration key of the hosts collector. */
  public static final List<ConfigKey<?>> KEYS = Stream.of(HostsConfig.KEYS, DeliveryConfig.KEYS)
      .flatMap(List::stream).toList();

  /** All settings, validated together at start-up. */
  public record Settings(HostsConfig hosts, DeliveryConfig delivery, KafkaClientConfig kafka) {

    public static Settings from(ConfigSource source) {
      return new Settings(HostsConfig.from(source), DeliveryConfig.from(source), KafkaClientConfig.from(source));
    }
  }

  private final HostsConfig config;
  private final HostShell shell;
  private final HostDirectory directory;
  private final Inputs inputs;
  private final HostMetrics hostMetrics;
  private final Map<String, HostSession> sessions = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private final KafkaSampleSink sink;
  private final PrometheusMeterRegistry registry;
  private final MetricsServer metricsServer;
  private long reconciledAt = Long.MIN_VALUE;

  HostsCollector(HostsConfig config, HostShell shell, HostDirectoryFactory directories, KafkaSampleSink sink,
      PrometheusMeterRegistry registry, CollectorMetrics metrics, Clock clock) throws IOException {
    this.config = config;
    this.shell = shell;
    this.sink = sink;
    this.registry = registry;
    this.inputs = new Inputs(new WorkerIdentity(null, "collect-hosts"), sink, metrics, clock);
    this.hostMetrics = new HostMetrics(registry, this::count);
    this.directory = directories.create(hostMetrics::listError);
    this.metricsServer = config.metricsPort() > 0
        ? MetricsServer.start(registry, config.metricsHost(), config.metricsPort()) : null;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "hosts-timer");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
  }

  /** Makes the host directory once the metrics exist, so that it can count its bad entries. */
  interface HostDirectoryFactory {
    HostDirectory create(Runnable badEntry);
  }

  /** Starts the collector: checks the Kafka login, then follows the hosts. */
  public static HostsCollector start(Settings s, Clock clock) throws IOException {
    HostsConfig c = s.hosts();
    c.checkFiles();
    s.kafka().checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CollectorMetrics metrics = new CollectorMetrics(registry, clock);
    KafkaSampleSink sink = KafkaSampleSink.create(s.delivery(), s.kafka().clientProperties(), metrics, clock);
    HostShell shell = new MinaSshHostShell(c.user(), c.identityFile(), c.knownHosts(), c.connectTimeout());
    HostDirectoryFactory directories = bad -> {
      HostDirectory file = c.hostsFile() == null ? Map::of : new FileHostDirectory(c.hostsFile(), c.port(), clock, bad);
      return c.source() == HostsConfig.Source.FILE ? file
          : new InventoryHostDirectory(s.kafka().clientProperties(), file, c.port(), bad);
    };
    HostsCollector collector = new HostsCollector(c, shell, directories, sink, registry, metrics, clock);
    LOG.info("Hosts collector started: hosts from {}{}, '{}' every {} s as {}{}", c.source().name().toLowerCase(),
        c.hostsFile() == null ? "" : " (" + c.hostsFile() + ")", c.streamCommand(), c.interval().toSeconds(),
        c.user(), collector.metricsServer == null ? "" : ", metrics on port " + collector.metricsServer.port());
    return collector;
  }

  private void tick() {
    try {
      long now = inputs.clock().millis();
      if (now - reconciledAt >= 1000 || reconciledAt == Long.MIN_VALUE) {
        reconciledAt = now;
        reconcile(directory.hosts());
      }
      for (HostSession s : sessions.values()) {
        s.tick();
      }
    } catch (RuntimeException e) {
      LOG.error("Hosts timer failed; it runs again", e);
    }
  }

  private void reconcile(Map<String, HostAddress> wanted) {
    for (HostSession s : List.copyOf(sessions.values())) {
      HostAddress now = wanted.get(s.host().name());
      if (!s.host().equals(now)) {
        sessions.remove(s.host().name());
        s.stop();
        hostMetrics.unfollow(s.host().name());
        LOG.info("{}: {}", s.host(), now == null ? "no longer followed" : "now reached at " + now);
      }
    }
    for (HostAddress h : wanted.values()) {
      sessions.computeIfAbsent(h.name(), n -> {
        HostSession s = new HostSession(h, shell, config, inputs, hostMetrics, ForkJoinPool.commonPool());
        hostMetrics.follow(n, s, HostSession::readingAgeSeconds);
        LOG.info("{}: followed", h);
        return s;
      });
    }
  }

  private long count(HostState state) {
    return sessions.values().stream().filter(s -> s.state() == state).count();
  }

  /** The hosts followed now, by name. */
  public Map<String, HostState> states() {
    Map<String, HostState> out = new java.util.TreeMap<>();
    sessions.forEach((n, s) -> out.put(n, s.state()));
    return out;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public CollectorMetrics metrics() {
    return inputs.metrics();
  }

  /** Stops following, closes the connections, then sends what is buffered (up to 10 s). */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sessions.values().forEach(HostSession::stop);
    directory.close();
    shell.close();
    sink.close(Duration.ofSeconds(10));
    if (metricsServer != null) {
      metricsServer.close();
    }
  }
}
