package io.stunwatch.processor;

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
final class CatalogRouting {

  private static final Map<Class<?>, Topic<String, ?>> BY_TYPE = new HashMap<>();

  static {
    for (Topic<?, ?> t : Topics.ALL) {
      @SuppressWarnings("unchecked")
      Topic<String, ?> st = (Topic<String, ?>) t;
      BY_TYPE.put(t.valueSerde().type(), st);
    }
  }

  private CatalogRouting() {
  }

  /** The catalog topic of a value's type. */
  static Topic<String, ?> topicOf(Object value) {
    Topic<String, ?> t = BY_TYPE.get(value.getClass());
    if (t == null) {
      throw new IllegalArgumentException("no catalog topic for " + value.getClass().getName());
    }
    return t;
  }

  static final TopicNameExtractor<String, Object> TOPIC = (key, value, ctx) -> topicOf(value).name();

  /** Encodes any catalog value with its topic's serde. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  static final Serde<Object> VALUE = Serdes.serdeFrom(
      (topic, value) -> value == null ? null : ((Topic) topicOf(value)).encodeValue(value),
      (topic, bytes) -> {
        throw new UnsupportedOperationException("the output serde only writes");
      });
}
