package io.stunwatch.processor.support;

import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The serdes the topology reads its inputs with. A value that does not decode is the deserialization exception
 * handler's ({@link DeadLetterDeserializationExceptionHandler}): it becomes a dead letter in the task's transaction.
 */
public final class InputSerdes {

  /**
   * More distinct keys than this and {@link #KEYS} starts over: the keys are VM ids and vMotion ids, and this bounds
   * what a producer keying by something else could make it hold.
   */
  static final int MAX_KEYS = 100_000;

  private InputSerdes() {
  }

  /**
   * Record keys, each decoded as the instance first seen. Why: the key is a VM id, and a sample is looked up by it in
   * a dozen maps on its way (each processor's held state, each deferred store's pending writes); decoding makes a new
   * string of it for every record, whose every lookup would then compare it byte by byte with the map's own
   * instance. One lookup here makes the others identity checks, with the hash cached. Shared by the stream threads.
   */
  public static final Serde<String> KEYS = Serdes.serdeFrom(Serdes.String().serializer(), new CanonicalKeys(MAX_KEYS));

  /**
   * A catalog topic's values seen as the type {@code S} they share, so that streams of several kinds merge without a
   * cast. A record with no value is refused (a dead letter, not a null passed on).
   */
  public static <S, V extends S> Serde<S> of(Topic<String, V> topic) {
    return widened(topic.valueSerde());
  }

  /** {@code serde}'s values seen as the type {@code S} they share; see {@link #of}. */
  public static <S, V extends S> Serde<S> widened(JsonSerde<V> serde) {
    Class<V> type = serde.type();
    Serializer<S> ser = (topic, value) -> value == null ? null : serde.encode(type.cast(value));
    Deserializer<V> de = serde.deserializer();
    Deserializer<S> des = (topic, bytes) -> {
      if (bytes == null) {
        throw new SerializationException("topic " + topic + ": a record with no value; a " + type.getSimpleName()
            + " was expected");
      }
      return de.deserialize(topic, bytes);
    };
    return Serdes.serdeFrom(ser, des);
  }

  /** See {@link #KEYS}. */
  static final class CanonicalKeys implements Deserializer<String> {
    private final ConcurrentHashMap<String, String> keys = new ConcurrentHashMap<>();
    private final int maxKeys;

    CanonicalKeys(int maxKeys) {
      this.maxKeys = maxKeys;
    }

    @Override
    public String deserialize(String topic, byte[] data) {
      return data == null ? null : canonical(new String(data, StandardCharsets.UTF_8));
    }

    String canonical(String key) {
      // A lookup first: a key is nearly always known, and a get takes no lock where putIfAbsent locks the bin.
      String seen = keys.get(key);
      if (seen != null) {
        return seen;
      }
      seen = keys.putIfAbsent(key, key);
      if (seen != null) {
        return seen;
      }
      if (keys.size() > maxKeys) {
        keys.clear();
        keys.put(key, key);
      }
      return key;
    }
  }
}
