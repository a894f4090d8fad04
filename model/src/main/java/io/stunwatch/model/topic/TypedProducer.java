package io.stunwatch.model.topic;

import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends typed records to catalog topics through one byte-array producer, so one producer (one connection pool,
 * one idempotence sequence) serves every topic a component writes.
 */
public final class TypedProducer implements AutoCloseable {

  private final Producer<byte[], byte[]> producer;

  public TypedProducer(Producer<byte[], byte[]> producer) {
    this.producer = producer;
  }

  /** Creates a {@link KafkaProducer} from {@code config}, with byte-array serializers forced. */
  public static TypedProducer create(Map<String, Object> config) {
    Map<String, Object> props = new HashMap<>(config);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return new TypedProducer(new KafkaProducer<>(props));
  }

  /** Sends {@code value} under {@code key}; the record's timestamp is {@code timestamp} (event time). */
  public <K, V> Future<RecordMetadata> send(Topic<K, V> topic, K key, V value, Instant timestamp,
      Callback callback) {
    return producer.send(new ProducerRecord<>(topic.name(), null, timestamp == null ? null : timestamp.toEpochMilli(),
        topic.encodeKey(key), topic.encodeValue(value)), callback);
  }

  public <K, V> Future<RecordMetadata> send(Topic<K, V> topic, K key, V value, Instant timestamp) {
    return send(topic, key, value, timestamp, null);
  }

  public void flush() {
    producer.flush();
  }

  /** The underlying producer, for transactions and metrics. */
  public Producer<byte[], byte[]> raw() {
    return producer;
  }

  @Override
  public void close() {
    producer.close();
  }
}
