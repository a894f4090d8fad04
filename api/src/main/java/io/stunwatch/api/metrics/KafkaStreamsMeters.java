package io.stunwatch.api.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Binds Kafka Streams' metrics to a registry under Micrometer's names ({@code kafka.stream.state.block.cache.usage}),
 * as {@code KafkaStreamsMetrics} does, less the metrics that cannot be read off the stream thread.
 *
 * <p>Kafka Streams 4.4's transactional stores measure {@code uncommitted-bytes} with a gauge that reads the store's
 * RocksDB write batch and does not check that the store is open. Micrometer's binder reads every metric's value each
 * minute to see whether it is a number, and a scrape reads each gauge: a read while a rebalance or a shutdown closes
 * the store dereferences freed native memory, and the JVM dies ({@code SIGSEGV} in
 * {@code WriteBatch.getDataSize}). Those gauges are never read here ({@link #UNSAFE}).
 *
 * <p>Micrometer takes a map of metrics only through a client's {@code metrics()}, so the streams' filtered map is
 * given to it as a consumer that answers {@code metrics()} alone.
 */
public final class KafkaStreamsMeters {

  /** The names of Kafka metrics whose value is unsafe to read from another thread than the store's. */
  static final Set<String> UNSAFE = Set.of("uncommitted-bytes");

  private KafkaStreamsMeters() {
  }

  /** Binds {@code metrics} (a {@code KafkaStreams::metrics}) less {@link #UNSAFE}; close it with the streams. */
  public static AutoCloseable bind(Supplier<Map<MetricName, ? extends Metric>> metrics, MeterRegistry registry) {
    Consumer<?, ?> view = (Consumer<?, ?>) Proxy.newProxyInstance(Consumer.class.getClassLoader(),
        new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
          if (method.getName().equals("metrics") && (args == null || args.length == 0)) {
            return safe(metrics.get());
          }
          if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
              case "equals" -> proxy == args[0];
              case "hashCode" -> System.identityHashCode(proxy);
              default -> "Kafka Streams' metrics less " + UNSAFE;
            };
          }
          throw new UnsupportedOperationException(method.getName() + ": a view of Kafka Streams' metrics");
        });
    KafkaClientMetrics binder = new KafkaClientMetrics(view);
    binder.bindTo(registry);
    return binder;
  }

  private static Map<MetricName, Metric> safe(Map<MetricName, ? extends Metric> all) {
    Map<MetricName, Metric> out = new LinkedHashMap<>();
    all.forEach((name, metric) -> {
      if (!UNSAFE.contains(name.name())) {
        out.put(name, metric);
      }
    });
    return out;
  }
}
