package io.stunwatch.api.metrics;

import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.topic.RecordDecodeException;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds {@link MigrationMetrics} from the processor's output topics and the collectors' checkpoints, on a thread of
 * its own, read_committed.
 *
 * <p>All API instances of one application share the consumer group {@code <application-id>-metrics}, so each record
 * is counted by one instance and Prometheus sums the instances. A new group starts from the earliest offsets (the
 * checkpoints topic is compacted and must be read whole); a restarted instance resumes from its committed offsets,
 * so nothing is counted twice across restarts (at most a few seconds' worth after a crash).
 */
public final class TopicMetricsFeed implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopicMetricsFeed.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final MigrationMetrics metrics;
  private final Thread thread;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean running = true;

  public TopicMetricsFeed(KafkaClientConfig kafka, String applicationId, MigrationMetrics metrics) {
    Map<String, Object> c = new HashMap<>(kafka.clientProperties());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, applicationId + "-metrics");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true);
    c.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, 5000);
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, applicationId + "-metrics-feed");
    this.consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.metrics = metrics;
    this.thread = new Thread(this::run, "stunwatch-metrics-feed");
    this.thread.setDaemon(true);
  }

  public TopicMetricsFeed start() {
    consumer.subscribe(MigrationMetrics.topics());
    thread.start();
    return this;
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          dispatch(r);
        }
      }
    } catch (WakeupException e) {
      // close() asked us to stop
    } catch (RuntimeException e) {
      LOG.error("metrics feed stopped: {}", e.toString(), e);
    } finally {
      try {
        consumer.close(Duration.ofSeconds(5));
      } finally {
        stopped.countDown();
      }
    }
  }

  void dispatch(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() == null) {
      return; // a tombstone of a compacted topic
    }
    try {
      String t = r.topic();
      if (t.equals(Topics.MIGRATION_IMPACTS.name())) {
        metrics.onImpact(Topics.MIGRATION_IMPACTS.decodeValue(r));
      } else if (t.equals(Topics.MIGRATION_ALERTS.name())) {
        metrics.onAlert(Topics.MIGRATION_ALERTS.decodeValue(r));
      } else if (t.equals(Topics.DEAD_LETTERS.name())) {
        metrics.onDeadLetter(Topics.DEAD_LETTERS.decodeValue(r));
      } else if (t.equals(Topics.VCENTER_CHECKPOINTS.name())) {
        metrics.onCheckpoint(Topics.VCENTER_CHECKPOINTS.decodeValue(r));
      } else if (t.equals(Topics.VCENTER_EVENTS.name())) {
        metrics.onVcenterEvent(Topics.VCENTER_EVENTS.decodeValue(r));
      }
    } catch (RecordDecodeException e) {
      metrics.onUndecodable(e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    if (!stopped.await(10, TimeUnit.SECONDS)) {
      LOG.warn("metrics feed did not stop within 10 s");
    }
  }
}
