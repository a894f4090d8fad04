package io.stunwatch.model.topic;

import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.json.SchemaException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;

/**
 * A typed topic: its name, how its keys and values are encoded, and how long Kafka keeps its records. Topics are
 * declared once, in {@link Topics}; nothing else spells a topic name.
 *
 * @param name       the Kafka topic name
 * @param keySerde   key encoding
 * @param valueSerde value encoding (versioned JSON)
 * @param cleanup    delete by age, or compact to the newest value per key
 * @param retention  how long records are kept; for a compacted topic, how long a tombstone is kept
 * @param <K>        key type
 * @param <V>        value type
 */
public record Topic<K, V>(String name, Serde<K> keySerde, JsonSerde<V> valueSerde, Cleanup cleanup,
    Duration retention) {

  public Topic {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(keySerde, "keySerde");
    Objects.requireNonNull(valueSerde, "valueSerde");
    Objects.requireNonNull(cleanup, "cleanup");
    Objects.requireNonNull(retention, "retention");
  }

  /** Kafka topic-level configs that give this topic its cleanup policy and retention. */
  public Map<String, String> topicConfigs() {
    return switch (cleanup) {
      case DELETE -> Map.of(
          TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
          TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
      case COMPACT -> Map.of(
          TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
          TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(retention.toMillis()));
    };
  }

  /** Encodes a key for this topic. */
  public byte[] encodeKey(K key) {
    return keySerde.serializer().serialize(name, key);
  }

  /** Encodes a value for this topic; null is a tombstone. */
  public byte[] encodeValue(V value) {
    return valueSerde.encode(value);
  }

  /**
   * Decodes the value of a raw record read from this topic.
   *
   * @throws RecordDecodeException naming topic, partition, offset and reason when it is not a valid value
   */
  public V decodeValue(ConsumerRecord<byte[], byte[]> raw) {
    try {
      return valueSerde.decode(raw.value());
    } catch (SchemaException e) {
      throw new RecordDecodeException(raw.topic(), raw.partition(), raw.offset(), "value: " + e.reason(), e);
    }
  }

  /**
   * Decodes the key of a raw record read from this topic.
   *
   * @throws RecordDecodeException naming topic, partition, offset and reason when it is not a valid key
   */
  public K decodeKey(ConsumerRecord<byte[], byte[]> raw) {
    try {
      return keySerde.deserializer().deserialize(raw.topic(), raw.key());
    } catch (SerializationException e) {
      throw new RecordDecodeException(raw.topic(), raw.partition(), raw.offset(), "key: " + e.getMessage(), e);
    }
  }

  /** How Kafka cleans up a topic. */
  public enum Cleanup {
    /** Records are deleted once older than the retention. */
    DELETE,
    /** Only the newest value per key is kept; a null value (tombstone) deletes the key. */
    COMPACT
  }
}
