package io.stunwatch.processor.state;

import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * Store builders that put a {@link DeferredKeyValueStore} or {@link DeferredWindowStore} in front of a store Kafka
 * Streams builds (metered, logged, RocksDB). Kafka Streams' own record cache is turned off beneath it: the deferred
 * store does its work, without serializing each write.
 */
public final class DeferredStores {

  private DeferredStores() {
  }

  public static <K, V> StoreBuilder<KeyValueStore<K, V>> keyValue(StoreBuilder<KeyValueStore<K, V>> inner) {
    return keyValue(inner, 0);
  }

  /**
   * A deferred key-value store that also keeps the values of the last {@code keep} keys written after their commit as
   * objects, for values that cost much to decode (see {@link DeferredKeyValueStore}).
   */
  public static <K, V> StoreBuilder<KeyValueStore<K, V>> keyValue(StoreBuilder<KeyValueStore<K, V>> inner, int keep) {
    return new Builder<>(inner.withCachingDisabled(), s -> new DeferredKeyValueStore<>(s, keep));
  }

  /** A deferred key-value store flushed with others of its task in {@code order}, which names it. */
  public static <K, V> StoreBuilder<KeyValueStore<K, V>> keyValue(StoreBuilder<KeyValueStore<K, V>> inner,
      FlushOrder order) {
    order.requireNamed(inner.name()); // when the topology is built, not when a task starts
    return new Builder<>(inner.withCachingDisabled(), s -> new DeferredKeyValueStore<>(s, 0, order));
  }

  public static <K, V> StoreBuilder<WindowStore<K, V>> window(StoreBuilder<WindowStore<K, V>> inner) {
    return new Builder<>(inner.withCachingDisabled(), DeferredWindowStore::new);
  }

  public static <K, V> StoreBuilder<TimestampedWindowStore<K, V>> timestampedWindow(
      StoreBuilder<TimestampedWindowStore<K, V>> inner) {
    return new Builder<>(inner.withCachingDisabled(), DeferredWindowStore.Timestamped::new);
  }

  /** Builds the inner store and wraps it; everything else is the inner builder's. */
  private static final class Builder<T extends StateStore> implements StoreBuilder<T> {
    private final StoreBuilder<T> inner;
    private final UnaryOperator<T> wrap;

    Builder(StoreBuilder<T> inner, UnaryOperator<T> wrap) {
      this.inner = inner;
      this.wrap = wrap;
    }

    @Override
    public StoreBuilder<T> withCachingEnabled() {
      throw new UnsupportedOperationException("a deferred store is its own cache");
    }

    @Override
    public StoreBuilder<T> withCachingDisabled() {
      return this;
    }

    @Override
    public StoreBuilder<T> withLoggingEnabled(Map<String, String> config) {
      inner.withLoggingEnabled(config);
      return this;
    }

    @Override
    public StoreBuilder<T> withLoggingDisabled() {
      inner.withLoggingDisabled();
      return this;
    }

    @Override
    public T build() {
      return wrap.apply(inner.build());
    }

    @Override
    public Map<String, String> logConfig() {
      return inner.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
      return inner.loggingEnabled();
    }

    @Override
    public String name() {
      return inner.name();
    }
  }
}
