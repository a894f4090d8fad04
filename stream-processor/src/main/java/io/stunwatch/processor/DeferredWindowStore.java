package io.stunwatch.processor;

import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Consumer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * A window store that keeps what is written to it during a commit interval as objects and writes each window's
 * last value to the store beneath once, when the task commits: {@link DeferredKeyValueStore}'s contract for
 * windows (read that class first).
 *
 * <p>Point reads ({@link #fetch(Object, long)}) and one key's forward range ({@link #fetch(Object, long, long)}, which
 * the migration processor reads a VM's seconds with) see pending writes, merged in time order. Every other range
 * sees what was written at the last commit.
 */
class DeferredWindowStore<K, V> extends DeferredStore<WindowStore<K, V>, K, V>
    implements WindowStore<K, V> {

  /** By key, then window start. */
  private final Map<K, NavigableMap<Long, Pending<V>>> pending = new ConcurrentHashMap<>();

  DeferredWindowStore(WindowStore<K, V> inner) {
    super(inner);
  }

  /** The timestamped kind, so that the processor and interactive queries see the type Streams built before. */
  static final class Timestamped<K, V> extends DeferredWindowStore<K, ValueAndTimestamp<V>>
      implements TimestampedWindowStore<K, V> {

    Timestamped(TimestampedWindowStore<K, V> inner) {
      super(inner);
    }
  }

  @Override
  public void put(K key, V value, long windowStart) {
    Pending<V> p = pendingOf(value);
    if (p == null) {
      wrapped().put(key, value, windowStart);
    } else {
      pending.computeIfAbsent(key, k -> new ConcurrentSkipListMap<>()).put(windowStart, p);
    }
  }

  @Override
  public V fetch(K key, long windowStart) {
    NavigableMap<Long, Pending<V>> windows = pending.get(key);
    Pending<V> p = windows == null ? null : windows.get(windowStart);
    return p != null ? p.value() : wrapped().fetch(key, windowStart);
  }

  @Override
  public WindowStoreIterator<V> fetch(K key, long timeFrom, long timeTo) {
    NavigableMap<Long, Pending<V>> windows = pending.get(key);
    WindowStoreIterator<V> stored = wrapped().fetch(key, timeFrom, timeTo);
    if (windows == null || timeFrom > timeTo) {
      return stored;
    }
    NavigableMap<Long, Pending<V>> in = windows.subMap(timeFrom, true, timeTo, true);
    // A copy: the iterator must not see the writes of a commit that happens while it is open.
    return in.isEmpty() ? stored : new Merged<>(stored, new java.util.TreeMap<>(in).entrySet().iterator());
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> fetch(K keyFrom, K keyTo, long timeFrom, long timeTo) {
    return wrapped().fetch(keyFrom, keyTo, timeFrom, timeTo);
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> fetchAll(long timeFrom, long timeTo) {
    return wrapped().fetchAll(timeFrom, timeTo);
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> all() {
    return wrapped().all();
  }

  @Override
  public WindowStoreIterator<V> backwardFetch(K key, long timeFrom, long timeTo) {
    return wrapped().backwardFetch(key, timeFrom, timeTo);
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> backwardFetch(K keyFrom, K keyTo, long timeFrom, long timeTo) {
    return wrapped().backwardFetch(keyFrom, keyTo, timeFrom, timeTo);
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> backwardFetchAll(long timeFrom, long timeTo) {
    return wrapped().backwardFetchAll(timeFrom, timeTo);
  }

  @Override
  public KeyValueIterator<Windowed<K>, V> backwardAll() {
    return wrapped().backwardAll();
  }

  @Override
  boolean hasPending() {
    return !pending.isEmpty();
  }

  @Override
  void writePending(Consumer<ProcessorRecordContext> enter) {
    for (Map.Entry<K, NavigableMap<Long, Pending<V>>> byKey : pending.entrySet()) {
      NavigableMap<Long, Pending<V>> windows = byKey.getValue();
      for (Map.Entry<Long, Pending<V>> w : windows.entrySet()) {
        enter.accept(w.getValue().context());
        wrapped().put(byKey.getKey(), w.getValue().value(), w.getKey());
      }
      pending.remove(byKey.getKey(), windows);
    }
  }

  @Override
  void dropPending() {
    pending.clear();
  }

  /** The stored windows of one key and its pending ones, in window order; a pending window replaces a stored one. */
  private static final class Merged<V> implements WindowStoreIterator<V> {
    private final WindowStoreIterator<V> stored;
    private final Iterator<Map.Entry<Long, Pending<V>>> pendingIt;
    private KeyValue<Long, V> nextStored;
    private Map.Entry<Long, Pending<V>> nextPending;
    private KeyValue<Long, V> next;

    Merged(WindowStoreIterator<V> stored, Iterator<Map.Entry<Long, Pending<V>>> pendingIt) {
      this.stored = stored;
      this.pendingIt = pendingIt;
      this.nextStored = stored.hasNext() ? stored.next() : null;
      this.nextPending = pendingIt.hasNext() ? pendingIt.next() : null;
      advance();
    }

    private void advance() {
      next = null;
      while (next == null && (nextStored != null || nextPending != null)) {
        if (nextPending == null || nextStored != null && nextStored.key < nextPending.getKey()) {
          next = nextStored;
          nextStored = stored.hasNext() ? stored.next() : null;
          continue;
        }
        if (nextStored != null && nextStored.key.equals(nextPending.getKey())) {
          nextStored = stored.hasNext() ? stored.next() : null; // replaced by the pending value
        }
        V v = nextPending.getValue().value();
        next = v == null ? null : KeyValue.pair(nextPending.getKey(), v); // a pending delete hides the window
        nextPending = pendingIt.hasNext() ? pendingIt.next() : null;
      }
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public KeyValue<Long, V> next() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      KeyValue<Long, V> out = next;
      advance();
      return out;
    }

    @Override
    public Long peekNextKey() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      return next.key;
    }

    @Override
    public void close() {
      stored.close();
    }
  }
}
