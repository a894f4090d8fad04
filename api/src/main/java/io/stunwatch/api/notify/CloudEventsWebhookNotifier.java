package io.stunwatch.api.notify;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.Meters;
import io.stunwatch.metrics.WebhookResult;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts each change of {@code stunwatch.migration-alerts} to a webhook as a CloudEvent ({@link CloudEvents}), on a
 * thread of its own, read_committed.
 *
 * <p>The API instances of one application share the consumer group {@code <application-id>-alert-webhook}, so each
 * change is posted by one instance. An offset is committed only once its change was delivered (2xx) or dropped, so a
 * restart resumes where delivery stopped: at least once, and a receiver tells repeats apart by the event id. A try
 * that gets no answer, a 408, a 429 or a 5xx is tried again after 1 s, doubling to 60 s, for as long as it takes, and
 * the partition waits for it: alerts stay in order. Another 4xx, or a record that does not decode, is dropped,
 * logged with its partition and offset, and counted ({@link Meters#ALERT_WEBHOOK_DELIVERIES}).
 */
public final class CloudEventsWebhookNotifier implements AlertNotifier {

  private static final Logger LOG = LoggerFactory.getLogger(CloudEventsWebhookNotifier.class);

  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration MAX_BACKOFF = Duration.ofSeconds(60);

  private final WebhookConfig config;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final HttpClient http;
  private final Map<WebhookResult, Counter> counters = new EnumMap<>(WebhookResult.class);
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;

  public CloudEventsWebhookNotifier(WebhookConfig config, KafkaClientConfig kafka, String applicationId,
      MeterRegistry registry) {
    this.config = config;
    Map<String, Object> c = new HashMap<>(kafka.clientProperties());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, applicationId + "-alert-webhook");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // A new group starts at the end, pinned as soon as a partition is assigned: a webhook switched on is for the
    // alerts to come, not a replay of a year's.
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
    // Retrying one receiver can take long: the group must not think this instance dead meanwhile.
    c.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) Duration.ofHours(1).toMillis());
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, applicationId + "-alert-webhook");
    this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.http = HttpClient.newBuilder().connectTimeout(config.timeout()).build();
    for (WebhookResult r : WebhookResult.values()) {
      counters.put(r, Counter.builder(Meters.ALERT_WEBHOOK_DELIVERIES).tag(Meters.TAG_RESULT, r.tag())
          .description("Alert changes offered to the alert webhook, by what became of each try")
          .register(registry));
    }
    this.thread = new Thread(this::run, "stunwatch-alert-webhook");
    this.thread.setDaemon(true);
  }

  @Override
  public CloudEventsWebhookNotifier start() {
    consumer.subscribe(List.of(Topics.MIGRATION_ALERTS.name()), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        // A partition the group never committed starts at its end: pin that end at once, so that an alert written
        // before the first delivery is not skipped when another instance (or a restart) takes the partition over.
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(new HashSet<>(partitions));
        for (TopicPartition tp : partitions) {
          if (committed.get(tp) == null) {
            start.put(tp, new OffsetAndMetadata(consumer.position(tp)));
          }
        }
        if (!start.isEmpty()) {
          consumer.commitSync(start);
        }
      }

      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        // offsets are committed after each batch: nothing is held back
      }
    });
    thread.start();
    LOG.info("Alert webhook: posting migration-under-load alerts as CloudEvents to {}", config.url());
    return this;
  }

  private void run() {
    try {
      while (running) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (!deliver(r)) {
            break; // stopping: what was not delivered is read again by whoever takes over
          }
          done.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        if (!done.isEmpty()) {
          consumer.commitSync(done);
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      LOG.error("Alert webhook stopped: {}", e.toString(), e);
    } finally {
      try {
        consumer.close(Duration.ofSeconds(5));
      } finally {
        stopped.countDown();
      }
    }
  }

  /** Delivers or drops one record; false only when stopping before either. */
  private boolean deliver(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() == null) {
      return true; // a tombstone: history retention forgot a migration, nothing to tell
    }
    String where = r.topic() + " partition " + r.partition() + " offset " + r.offset();
    byte[] body;
    String id;
    try {
      MigrationAlert a = Topics.MIGRATION_ALERTS.valueSerde().deserializer().deserialize(r.topic(), r.value());
      var event = CloudEvents.of(a);
      id = event.path("id").asText();
      body = event.toString().getBytes(StandardCharsets.UTF_8);
    } catch (RuntimeException e) {
      counters.get(WebhookResult.DROPPED).increment();
      LOG.error("Alert webhook: dropped the record at {}: it does not decode: {}", where, e.getMessage());
      return true;
    }
    Duration backoff = FIRST_BACKOFF;
    while (running) {
      String failure;
      try {
        HttpRequest.Builder req = HttpRequest.newBuilder(config.url()).timeout(config.timeout())
            .header("Content-Type", CloudEvents.CONTENT_TYPE)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (config.token() != null) {
          req.header("Authorization", "Bearer " + config.token());
        }
        int status = http.send(req.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status / 100 == 2) {
          counters.get(WebhookResult.DELIVERED).increment();
          return true;
        }
        if (status / 100 == 4 && status != 408 && status != 429) {
          counters.get(WebhookResult.DROPPED).increment();
          LOG.error("Alert webhook: {} refused event {} (from {}) with HTTP {}: dropped", config.url(), id, where,
              status);
          return true;
        }
        failure = "HTTP " + status;
      } catch (IOException e) {
        failure = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      counters.get(WebhookResult.RETRIED).increment();
      LOG.warn("Alert webhook: event {} (from {}) to {} failed ({}); trying again in {} s", id, where, config.url(),
          failure, backoff.toSeconds());
      if (!sleep(backoff)) {
        return false;
      }
      backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
    }
    return false;
  }

  /** Sleeps unless stopping; false when stopping. */
  private boolean sleep(Duration d) {
    long until = System.nanoTime() + d.toNanos();
    while (running && System.nanoTime() < until) {
      try {
        Thread.sleep(Math.min(100, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return running;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      if (!stopped.await(15, TimeUnit.SECONDS)) {
        LOG.warn("Alert webhook: still stopping after 15 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
