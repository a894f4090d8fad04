package io.stunwatch.model.topic;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer of one {@link Topic} that decodes records itself, so that one undecodable record costs one
 * {@link DecodeFailureHandler} call and not the consumer: Kafka's own deserializer path would throw from every
 * {@code poll()} at the same offset, which is the crash loop this class exists to avoid.
 *
 * <p>Not thread-safe, like the {@link Consumer} it wraps.
 */
public final class TypedConsumer<K, V> implements AutoCloseable {

  private final Topic<K, V> topic;
  private final Consumer<byte[], byte[]> consumer;
  private final DecodeFailureHandler onFailure;
  private final LongAdder decoded = new LongAdder();
  private final LongAdder failures = new LongAdder();

  /** Wraps an existing byte-array consumer (a {@code MockConsumer} in unit tests). */
  public TypedConsumer(Topic<K, V> topic, Consumer<byte[], byte[]> consumer, DecodeFailureHandler onFailure) {
    this.topic = topic;
    this.consumer = consumer;
    this.onFailure = onFailure;
  }

  /**
   * Creates a {@link KafkaConsumer} from {@code config}; the key and value deserializers are forced to byte
   * arrays, whatever the config says.
   */
  public static <K, V> TypedConsumer<K, V> create(Topic<K, V> topic, Map<String, Object> config,
      DecodeFailureHandler onFailure) {
    Map<String, Object> props = new HashMap<>(config);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    return new TypedConsumer<>(topic, new KafkaConsumer<>(props), onFailure);
  }

  /** Joins the consumer group given by {@code group.id} on this topic. */
  public void subscribe() {
    consumer.subscribe(List.of(topic.name()));
  }

  /** Reads every partition from the start, outside any consumer group (for tools and tests). */
  public void assignAllFromBeginning(Duration timeout) {
    List<TopicPartition> partitions = consumer.partitionsFor(topic.name(), timeout).stream()
        .map(p -> new TopicPartition(p.topic(), p.partition()))
        .collect(Collectors.toList());
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /**
   * Polls once and decodes what arrived. Undecodable records are passed to the failure handler, counted and
   * skipped; their offsets advance like any other.
   */
  public List<TypedRecord<K, V>> poll(Duration timeout) {
    ConsumerRecords<byte[], byte[]> raw = consumer.poll(timeout);
    List<TypedRecord<K, V>> out = new ArrayList<>(raw.count());
    for (ConsumerRecord<byte[], byte[]> r : raw) {
      try {
        out.add(new TypedRecord<>(r.topic(), r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()),
            topic.decodeKey(r), topic.decodeValue(r)));
        decoded.increment();
      } catch (RecordDecodeException e) {
        failures.increment();
        onFailure.onFailure(r, e);
      }
    }
    return out;
  }

  public Topic<K, V> topic() {
    return topic;
  }

  /** Records decoded so far. */
  public long decodedCount() {
    return decoded.sum();
  }

  /** Records skipped as undecodable so far. */
  public long decodeFailures() {
    return failures.sum();
  }

  /** The underlying consumer, for commits and seeks. */
  public Consumer<byte[], byte[]> raw() {
    return consumer;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
