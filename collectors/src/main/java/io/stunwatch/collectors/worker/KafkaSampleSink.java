package io.stunwatch.collectors.worker;

import io.micrometer.core.instrument.Gauge;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.topic.Topic;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes samples to Kafka without ever blocking the inputs. Samples go into a bounded queue; one sender thread
 * hands them, in order, to an idempotent producer ({@code acks=all}), which retries through broker outages without
 * duplicating.
 *
 * <p>A sample is kept until Kafka acknowledges it or it is older than {@link DeliveryConfig#outageBound()}: an
 * outage shorter than that loses nothing. What is given up on is counted by input and {@link DropReason} and logged
 * at most once a minute per reason, never silently.
 */
public final class KafkaSampleSink implements SampleSink, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KafkaSampleSink.class);
  private static final Duration SEND_BLOCK = Duration.ofSeconds(1);

  private final DeliveryConfig config;
  private final Producer<byte[], byte[]> producer;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final BlockingQueue<Pending> queue;
  private final AtomicLong inFlight = new AtomicLong();
  private final Map<DropReason, LogLimiter> dropLogs = new EnumMap<>(DropReason.class);
  private final Thread sender;
  private volatile boolean running = true;

  /** A sink over a real {@link KafkaProducer} made from {@code kafkaProperties} plus delivery settings. */
  public static KafkaSampleSink create(DeliveryConfig config, Map<String, Object> kafkaProperties,
      CollectorMetrics metrics, Clock clock) {
    return new KafkaSampleSink(config, new KafkaProducer<>(producerProperties(config, kafkaProperties)), metrics,
        clock);
  }

  /**
   * The producer settings: idempotent, all replicas, retried until the outage bound, lz4, one request in flight. A
   * second batch sent behind a first that the broker turned away (a partition whose leadership it is still taking,
   * just after it started) can be appended as the partition's first; the first batch's sequence then never fits again,
   * and it is retried as {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until the outage bound drops it. With one request in
   * flight nothing overtakes it. A worker's few samples a second, batched for 20 ms, need no more.
   */
  static Map<String, Object> producerProperties(DeliveryConfig config, Map<String, Object> kafkaProperties) {
    Map<String, Object> p = new HashMap<>(kafkaProperties);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    p.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) config.outageBound().toMillis());
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    // send() may wait this long for metadata or buffer space; the sender thread, not sampling, waits.
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) SEND_BLOCK.toMillis());
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "stunwatch-worker-collector");
    return p;
  }

  public KafkaSampleSink(DeliveryConfig config, Producer<byte[], byte[]> producer, CollectorMetrics metrics,
      Clock clock) {
    this.config = config;
    this.producer = producer;
    this.metrics = metrics;
    this.clock = clock;
    this.queue = new ArrayBlockingQueue<>(config.maxBuffered());
    for (DropReason r : DropReason.values()) {
      dropLogs.put(r, new LogLimiter(1));
    }
    Gauge.builder(Meters.COLLECTOR_BUFFERED, this, KafkaSampleSink::buffered)
        .description("Samples waiting for Kafka").register(metrics.registry());
    this.sender = new Thread(this::sendLoop, "stunwatch-kafka-sender");
    this.sender.setDaemon(true);
    this.sender.start();
  }

  @Override
  public <V> void publish(CollectorInput input, Topic<String, V> topic, String key, V value, Instant timestamp) {
    Pending p = new Pending(input, new ProducerRecord<>(topic.name(), null, timestamp.toEpochMilli(),
        topic.encodeKey(key), topic.encodeValue(value)), clock.millis());
    if (!queue.offer(p)) {
      drop(input, DropReason.BUFFER_FULL, "the buffer of " + config.maxBuffered() + " samples is full");
    }
  }

  /** Samples queued or in flight. */
  public long buffered() {
    return queue.size() + inFlight.get();
  }

  private void sendLoop() {
    Pending head = null;
    while (running || head != null || !queue.isEmpty()) {
      try {
        if (head == null) {
          head = queue.poll(200, TimeUnit.MILLISECONDS);
          if (head == null) {
            continue;
          }
        }
        if (clock.millis() - head.enqueuedAt > config.outageBound().toMillis()) {
          drop(head.input, DropReason.DELIVERY_TIMEOUT, "Kafka unreachable for longer than "
              + config.outageBound());
          head = null;
          continue;
        }
        Pending sending = head;
        inFlight.incrementAndGet();
        // KafkaProducer reports some failures (no metadata within max.block.ms) by calling the callback inside
        // send() instead of throwing: catch those here, where the sample can still be kept and retried.
        Throwable[] immediate = new Throwable[1];
        boolean[] inSend = {true};
        Thread me = Thread.currentThread();
        try {
          producer.send(sending.record, (md, e) -> {
            if (inSend[0] && Thread.currentThread() == me) {
              immediate[0] = e;
              return;
            }
            inFlight.decrementAndGet();
            if (e == null) {
              metrics.sent(sending.input);
            } else if (e instanceof TimeoutException) {
              drop(sending.input, DropReason.DELIVERY_TIMEOUT, e.getMessage());
            } else {
              drop(sending.input, DropReason.SEND_FAILED, e.toString());
            }
          });
        } catch (KafkaException e) {
          immediate[0] = e;
        } finally {
          inSend[0] = false;
        }
        if (immediate[0] == null) {
          head = null;
        } else {
          inFlight.decrementAndGet();
          if (immediate[0] instanceof RetriableException) {
            continue; // Kafka is away (no metadata, no buffer space): keep the sample, try again
          }
          if (!running) {
            break; // the producer was closed under us on shutdown
          }
          drop(sending.input, DropReason.SEND_FAILED, immediate[0].toString());
          head = null;
        }
      } catch (InterruptedException e) {
        if (!running) {
          break;
        }
      }
    }
  }

  private void drop(CollectorInput input, DropReason reason, String why) {
    metrics.dropped(input, reason);
    String suffix = dropLogs.get(reason).admit();
    if (suffix != null) {
      LOG.warn("Dropped a {} sample ({}): {}{}", input.tag(), reason.tag(), why, suffix);
    }
  }

  /**
   * Sends what is queued, waiting at most {@code timeout}, then closes the producer. Samples still unsent then are
   * counted as dropped.
   */
  public void close(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!queue.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    running = false;
    try {
      sender.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    Pending p;
    while ((p = queue.poll()) != null) {
      drop(p.input, DropReason.DELIVERY_TIMEOUT, "still unsent at shutdown");
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(10));
  }

  private record Pending(CollectorInput input, ProducerRecord<byte[], byte[]> record, long enqueuedAt) {
  }
}
