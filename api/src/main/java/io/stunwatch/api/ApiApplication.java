package io.stunwatch.api;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.api.metrics.FleetGauges;
import io.stunwatch.api.metrics.KafkaMeterFilters;
import io.stunwatch.api.metrics.KafkaStreamsMeters;
import io.stunwatch.api.metrics.MigrationMetrics;
import io.stunwatch.api.metrics.TopicMetricsFeed;
import io.stunwatch.api.notify.AlertNotifier;
import io.stunwatch.api.notify.CloudEventsWebhookNotifier;
import io.stunwatch.api.notify.WebhookConfig;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.Meters;
import io.stunwatch.metrics.RestoreKind;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.RestoreCounts;
import io.stunwatch.processor.StreamsProcessor;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;
import org.slf4j.LoggerFactory;

/**
 * {@code stunwatch api}: a processor instance (it owns some partitions' stores) and the HTTP API over every
 * instance's stores. Instances with the same {@code process.application-id} share the partitions and forward
 * queries to one another.
 */
public final class ApiApplication implements AutoCloseable {

  private final Vertx vertx;
  private final StreamsProcessor processor;
  private final String server;
  private final int port;
  private final PrometheusMeterRegistry registry;
  private final TopicMetricsFeed feed;
  private final AlertNotifier notifier;
  private final AutoCloseable kafkaMeters;

  /** How often the per-VM gauges are read from the local stores: Prometheus scrapes every 15 s by default. */
  static final long GAUGE_REFRESH_MILLIS = 5_000;

  private ApiApplication(Vertx vertx, StreamsProcessor processor, String server, int port,
      PrometheusMeterRegistry registry, TopicMetricsFeed feed, AlertNotifier notifier, AutoCloseable kafkaMeters) {
    this.notifier = notifier;
    this.kafkaMeters = kafkaMeters;
    this.vertx = vertx;
    this.port = port;
    this.processor = processor;
    this.server = server;
    this.registry = registry;
    this.feed = feed;
  }

  public static ApiApplication start(ApiConfig api, ProcessorConfig processorConfig, KafkaClientConfig kafka,
      Clock clock) throws Exception {
    return start(api, processorConfig, kafka, clock, WebhookConfig.NONE);
  }

  /** As {@link #start(ApiConfig, ProcessorConfig, KafkaClientConfig, Clock)}, posting alerts to {@code webhook}. */
  public static ApiApplication start(ApiConfig api, ProcessorConfig processorConfig, KafkaClientConfig kafka,
      Clock clock, WebhookConfig webhook) throws Exception {
    // Other instances must know this one's address before the first rebalance, so the port is fixed first.
    int port = api.port() != 0 ? api.port() : freePort();
    ApiConfig config = api.withPort(port);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    KafkaMeterFilters.all().forEach(registry.config()::meterFilter);
    new JvmMemoryMetrics().bindTo(registry);
    StreamsProcessor processor = StreamsProcessor.start(processorConfig, kafka, clock,
        config.advertisedHost() + ":" + port);
    AutoCloseable kafkaMeters = KafkaStreamsMeters.bind(processor.streams()::metrics, registry);
    Vertx vertx = Vertx.vertx();
    KafkaStreamsStoreReader reader = new KafkaStreamsStoreReader(vertx, processor.streams(),
        new HostInfo(config.advertisedHost(), port), config);
    var fleet = new FleetGauges(processor.streams(), registry, clock,
        config.vmSeries());
    RestoreCounts restores = processor.restores();
    Set<String> restoreMeters = ConcurrentHashMap.newKeySet();
    vertx.setPeriodic(GAUGE_REFRESH_MILLIS, id -> vertx.executeBlocking(() -> {
      fleet.refresh();
      // a store's counter from its first restore or standby update on
      restores.forEachStore((store, standby) -> {
        if (restoreMeters.add(store + (standby ? "/standby" : "/active"))) {
          FunctionCounter.builder(Meters.PROCESSOR_RESTORED_RECORDS, restores, r -> r.count(store, standby))
              .description("Changelog records read back into this instance's state stores since it started")
              .tag(Meters.TAG_STORE, store)
              .tag(Meters.TAG_TASK, (standby ? RestoreKind.STANDBY : RestoreKind.ACTIVE).tag())
              .register(registry);
        }
      });
      return null;
    }, false));
    var feed = new TopicMetricsFeed(kafka, processorConfig.applicationId(),
        new MigrationMetrics(registry, clock)).start();
    AlertNotifier notifier = null;
    try {
      if (webhook.enabled()) {
        notifier = new CloudEventsWebhookNotifier(webhook, kafka, processorConfig.applicationId(), registry).start();
      }
      AtomicBoolean warned = new AtomicBoolean();
      ApiServer.Readiness readiness = () -> {
        if (processor.streams().state() != KafkaStreams.State.RUNNING) {
          return false;
        }
        Optional<String> why = reader.whyNotQueryable();
        if (why.isPresent() && !warned.getAndSet(true)) {
          LoggerFactory.getLogger(ApiApplication.class).error("Not ready: {}", why.get());
        } else if (why.isEmpty()) {
          warned.set(false);
        }
        return why.isEmpty();
      };
      String server = new ApiServer(vertx, config, reader, readiness, registry, reader.internalEndpoint(),
          processorConfig.migrationTimeout(), clock, processorConfig).start(Runtime.getRuntime().availableProcessors())
          .await(30, TimeUnit.SECONDS);
      return new ApiApplication(vertx, processor, server, port, registry, feed, notifier, kafkaMeters);
    } catch (Exception e) {
      if (notifier != null) {
        notifier.close();
      }
      feed.close();
      kafkaMeters.close();
      processor.close();
      vertx.close();
      throw e;
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  public int port() {
    return port;
  }

  public StreamsProcessor processor() {
    return processor;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() throws Exception {
    try {
      vertx.undeploy(server).await(10, TimeUnit.SECONDS);
    } finally {
      try {
        if (notifier != null) {
          notifier.close();
        }
        feed.close();
        kafkaMeters.close(); // it reads the streams' metrics on a thread of its own: stopped before their stores
        processor.close();
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
  }
}
