package io.stunwatch.processor.support;

import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.TopicNameExtractor;

/**
 * One sink for every output: a record goes to the catalog topic of its type, encoded by that topic's serde. Keeps
 * topic names and encodings in the catalog alone.
 */
public final class CatalogSink {

  private static final Map<Class<?>, Topic<?, ?>> BY_TYPE = new HashMap<>();

  static {
    for (Topic<?, ?> t : Topics.ALL) {
      BY_TYPE.put(t.valueSerde().type(), t);
    }
  }

  private CatalogSink() {
  }

  /**
   * An output that deletes its key from a compacted catalog topic: sent as a record with no value, which compaction
   * keeps for the topic's retention and then drops with every earlier value of the key.
   *
   * @param topic the topic whose key it deletes
   */
  public record Tombstone(Topic<String, ?> topic) {
  }

  /** A tombstone for {@code topic}. */
  public static Tombstone tombstone(Topic<String, ?> topic) {
    return new Tombstone(topic);
  }

  /** The catalog topic of a value's type, or a tombstone's topic. */
  static Topic<?, ?> topicOf(Object value) {
    if (value instanceof Tombstone t) {
      return t.topic();
    }
    Topic<?, ?> t = BY_TYPE.get(value.getClass());
    if (t == null) {
      throw new IllegalArgumentException("no catalog topic for " + value.getClass().getName());
    }
    return t;
  }

  /** {@code value} encoded for {@code topic}, whose value type it is. */
  private static <V> byte[] encode(Topic<?, V> topic, Object value) {
    return topic.encodeValue(topic.valueSerde().type().cast(value));
  }

  public static final TopicNameExtractor<String, Object> TOPIC_OF = (key, value, ctx) -> topicOf(value).name();

  /** Encodes any catalog value with its topic's serde, and a {@link Tombstone} as no value. */
  public static final Serde<Object> VALUE_SERDE = Serdes.serdeFrom(
      (topic, value) -> value == null || value instanceof Tombstone ? null : encode(topicOf(value), value),
      (topic, bytes) -> {
        throw new UnsupportedOperationException("the output serde only writes");
      });
}
