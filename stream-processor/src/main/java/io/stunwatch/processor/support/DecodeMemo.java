package io.stunwatch.processor.support;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A serde whose deserializer gives back the value it decoded before for the same bytes, among the last
 * {@code capacity} it decoded: for the global stores (inventories, the stun-time model), which change seldom and are
 * read at every reading of a VM that the DRS guard or an alert forecasts for. Decoding a model entry's JSON at each
 * of them was a quarter of the guard's stream-thread time (docs/performance.md).
 *
 * <p>Contract: the values are immutable (records whose lists and maps are copies), so one instance can be handed to
 * every reader; the same bytes give an equal value, so no answer depends on what was decoded before. Thread-safe:
 * the stream threads and the global thread read the same store.
 */
public final class DecodeMemo<V> implements Serde<V> {

  private final Serde<V> inner;
  private final Map<Bytes, V> decoded;

  public DecodeMemo(Serde<V> inner, int capacity) {
    this.inner = inner;
    this.decoded = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Bytes, V> eldest) {
        return size() > capacity;
      }
    };
  }

  /** A byte array as a map key, by content. */
  private static final class Bytes {
    private final byte[] b;
    private final int hash;

    Bytes(byte[] b) {
      this.b = b;
      this.hash = Arrays.hashCode(b);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Bytes other && other.hash == hash && Arrays.equals(other.b, b);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  @Override
  public Serializer<V> serializer() {
    return inner.serializer();
  }

  @Override
  public Deserializer<V> deserializer() {
    Deserializer<V> d = inner.deserializer();
    return (topic, bytes) -> {
      if (bytes == null) {
        return null;
      }
      Bytes key = new Bytes(bytes);
      synchronized (decoded) {
        V v = decoded.get(key);
        if (v != null) {
          return v;
        }
      }
      V v = d.deserialize(topic, bytes);
      if (v != null) {
        synchronized (decoded) {
          decoded.put(new Bytes(bytes.clone()), v); // the caller may reuse its array
        }
      }
      return v;
    };
  }
}
