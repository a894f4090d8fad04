package io.stunwatch.processor.state;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A key-value store that keeps what is written to it during a commit interval as objects, and writes each key's
 * last value to the store beneath (serialized, to RocksDB and its changelog) once, when the task commits.
 *
 * <p>Why: the stores written on every GPU and RDMA sample are written far more often than committed. Kafka Streams'
 * record cache serializes the value on every write and files it in an ordered map of bytes, about a fifth of the
 * stream thread's time on this topology (docs/performance.md). Here a write is a hash-map put.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #get} sees every write, pending or not, from any thread (interactive queries included).</li>
 *   <li>Iterators ({@link #range}, {@link #all}, ...) and IQv2 {@link #query} see what was written at the last
 *       commit: at most one commit interval behind. No processor iterates the stores built with this class.</li>
 *   <li>Pending writes reach the store beneath in {@link #flushCache}, which Kafka Streams calls on every root store
 *       that is a {@link CachedStateStore} before it flushes the producer and commits the transaction (as it does
 *       for its own record cache), so under exactly-once a commit holds the state of the input it commits. Each write
 *       is replayed with the record context it was made in, so the changelog records keep their timestamps.</li>
 *   <li>A task closed without committing (a crash, a fenced producer) drops its pending writes, as its transaction
 *       is aborted with them.</li>
 * </ul>
 *
 * <p>It relies on Kafka Streams internals, which the build pins with the Kafka version: {@link CachedStateStore},
 * {@link InternalProcessorContext}, and {@link org.apache.kafka.streams.state.internals.WrappedStateStore}, which it
 * extends (through {@link DeferredStore}) so that Streams sees through it
 * to the store beneath. That matters: Streams decides from the layers beneath the root whether a store is timestamped,
 * and so whether restoring from the changelog must put each record's timestamp back in front of its value. (Without
 * it, windows restored after a crash were read as garbage.) In a context that is not internal (a unit test's mock),
 * writes go straight through.
 */
public final class DeferredKeyValueStore<K, V> extends DeferredStore<KeyValueStore<K, V>, K, V>
    implements KeyValueStore<K, V> {

  private final Map<K, Pending<V>> pending = new ConcurrentHashMap<>();

  /**
   * The values of the keys written at the last commits, as objects, up to {@link #keep} keys (the most recently
   * written or read), or none. For stores whose values cost much to decode again: a migration's impact is about
   * 100 KB of JSON, and the stun processor reads it back to revise it soon after it was written. Only commits add to
   * it, so that a read on another thread can never put back a value a commit has just replaced.
   */
  private final Map<K, V> committed;
  private final int keep;

  public DeferredKeyValueStore(KeyValueStore<K, V> inner) {
    this(inner, 0);
  }

  /** Keeps the values of the last {@code keep} keys written as objects after their commit, too. */
  public DeferredKeyValueStore(KeyValueStore<K, V> inner, int keep) {
    this(inner, keep, null);
  }

  /**
   * Keeps the values of the last {@code keep} keys written as objects after their commit, and is flushed in
   * {@code order} (null: alone).
   */
  public DeferredKeyValueStore(KeyValueStore<K, V> inner, int keep, FlushOrder order) {
    super(inner, order);
    this.keep = keep;
    this.committed = keep == 0 ? null : Collections.synchronizedMap(
        new LinkedHashMap<K, V>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > DeferredKeyValueStore.this.keep;
          }
        });
  }

  @Override
  public void put(K key, V value) {
    Pending<V> p = pendingOf(value);
    if (p == null) {
      wrapped().put(key, value);
    } else {
      pending.put(key, p);
    }
  }

  @Override
  public V putIfAbsent(K key, V value) {
    V old = get(key);
    if (old == null) {
      put(key, value);
    }
    return old;
  }

  @Override
  public void putAll(List<KeyValue<K, V>> entries) {
    entries.forEach(kv -> put(kv.key, kv.value));
  }

  @Override
  public V delete(K key) {
    V old = get(key);
    put(key, null);
    return old;
  }

  @Override
  public V get(K key) {
    Pending<V> p = pending.get(key);
    if (p != null) {
      return p.value();
    }
    V kept = committed == null ? null : committed.get(key);
    return kept != null ? kept : wrapped().get(key);
  }

  @Override
  public KeyValueIterator<K, V> range(K from, K to) {
    return wrapped().range(from, to);
  }

  @Override
  public KeyValueIterator<K, V> reverseRange(K from, K to) {
    return wrapped().reverseRange(from, to);
  }

  @Override
  public KeyValueIterator<K, V> all() {
    return wrapped().all();
  }

  @Override
  public KeyValueIterator<K, V> reverseAll() {
    return wrapped().reverseAll();
  }

  @Override
  public <S extends Serializer<P>, P> KeyValueIterator<K, V> prefixScan(
      P prefix, S prefixKeySerializer) {
    return wrapped().prefixScan(prefix, prefixKeySerializer);
  }

  @Override
  public long approximateNumEntries() {
    return wrapped().approximateNumEntries();
  }

  @Override
  boolean hasPending() {
    return !pending.isEmpty();
  }

  @Override
  void writePending(Consumer<ProcessorRecordContext> enter) {
    for (Map.Entry<K, Pending<V>> e : pending.entrySet()) {
      Pending<V> p = e.getValue();
      enter.accept(p.context());
      if (p.value() == null) {
        wrapped().delete(e.getKey());
      } else {
        wrapped().put(e.getKey(), p.value());
      }
      if (committed != null) {
        if (p.value() == null) {
          committed.remove(e.getKey());
        } else {
          committed.put(e.getKey(), p.value());
        }
      }
      pending.remove(e.getKey(), p); // last: a concurrent read finds the value pending, kept or beneath
    }
  }

  @Override
  void dropPending() {
    pending.clear();
    if (committed != null) {
      committed.clear(); // the store beneath may be restored or handed to a standby before the next write
    }
  }

}
