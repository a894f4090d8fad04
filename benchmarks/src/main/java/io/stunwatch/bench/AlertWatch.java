package io.stunwatch.bench;

import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the alerts, migrations and impacts topics (read_committed) from their ends: the FIRING alerts' latency
 * from their migration's start, and the arrival of every output record.
 */
final class AlertWatch implements Runnable, AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> arrivals = Collections.synchronizedList(new ArrayList<>());
  private volatile Instant measureFrom = Instant.MAX;
  private volatile Instant measureTo = Instant.MIN;
  private Thread thread;

  AlertWatch(String bootstrap) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-fleet-watch-" + System.nanoTime());
    consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(Topics.MIGRATION_ALERTS.name(), Topics.MIGRATIONS.name(),
        Topics.MIGRATION_IMPACTS.name()));
  }

  void start() {
    thread = new Thread(this, "fleet-alert-watch");
    thread.setDaemon(true);
    thread.start();
  }

  /** Measures the alerts of migrations that start within {@code [from, to)}. */
  void measure(Instant from, Instant to) {
    measureFrom = from;
    measureTo = to;
  }

  @Override
  public void run() {
    while (!stop.get()) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        long now = System.nanoTime();
        arrivals.add(now);
        if (r.topic().equals(Topics.MIGRATION_ALERTS.name()) && r.value() != null) {
          MigrationAlert a = Topics.MIGRATION_ALERTS.valueSerde().decode(r.value());
          Instant wall = Instant.now();
          if (a.state() == MigrationAlert.AlertState.FIRING && !a.raisedAt().isBefore(measureFrom)
              && a.raisedAt().isBefore(measureTo)) {
            latencies.add(Duration.between(a.raisedAt(), wall).toNanos() / 1e6);
          }
        }
      }
    }
    consumer.close();
  }

  /** The FIRING alerts' latencies from their raise time (their migration's start) to their arrival here. */
  FleetBenchmark.Latency latency() {
    List<Double> l = new ArrayList<>(latencies);
    Collections.sort(l);
    if (l.isEmpty()) {
      return new FleetBenchmark.Latency("alert", 0, Double.NaN, Double.NaN);
    }
    return new FleetBenchmark.Latency("alert", l.size(), l.get(l.size() / 2), l.get((int) Math.min(l.size() - 1,
        Math.round(l.size() * 0.99))));
  }

  /** Seconds from {@code nanos} ({@link System#nanoTime}) to the first output record that arrived after it. */
  double firstOutputAfter(long nanos) {
    synchronized (arrivals) {
      return arrivals.stream().filter(t -> t > nanos).findFirst().map(t -> (t - nanos) / 1e9).orElse(Double.NaN);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    if (thread != null) {
      thread.join(10_000);
    }
  }
}
