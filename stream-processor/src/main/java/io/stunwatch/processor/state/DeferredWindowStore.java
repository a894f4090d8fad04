package io.stunwatch.processor.state;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
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
public class DeferredWindowStore<K, V> extends DeferredStore<WindowStore<K, V>, K, V>
    implements WindowStore<K, V> {

  /** By key. */
  private final Map<K, Windows<V>> pending = new ConcurrentHashMap<>();

  /**
   * By key, no earlier than the start of its newest window, pending or stored, for the keys this instance has written
   * since it was opened or cleared. A point read of a later window is a miss without a RocksDB read: that is every
   * sample's first read of a new second or a new load window, and RocksDB's miss cost a tenth of the stream thread.
   *
   * <p>Only {@link #put} adds a key, after reading the key's newest stored window once: a task writes only when it
   * runs, after its restoration, so that read sees everything restored. Nothing else adds windows to the store
   * beneath while the instance is open, except a standby's restoration, and Streams clears the cache hooks (so this
   * map) before it hands the store to or from a standby.
   */
  private final Map<K, Long> newestStart = new ConcurrentHashMap<>();

  /**
   * One key's pending windows. Almost every write is to the key's newest window (each sample of a VM lands in the
   * window the one before it did, or in the next), so that window sits in a slot of its own, where a read or a
   * rewrite costs no search; the older ones are in start order in {@link Older}. The slot is replaced whole, so that
   * an interactive query on another thread never sees a start with another window's value.
   *
   * <p>One writer (the task's stream thread) and any number of readers (interactive queries).
   */
  static final class Windows<V> {
    /** The newest pending window; every window in {@link #older} starts before it. */
    volatile Slot<V> newest;
    /** The older pending windows, published whole: a reader sees a start with its value or not at all. */
    private volatile Older<V> older = Older.empty();

    Windows(Slot<V> newest) {
      this.newest = newest;
    }

    Pending<V> get(long start) {
      Slot<V> n = newest;
      if (start >= n.start()) {
        // Nothing pending starts after the newest window: the first read of each new block or load window is a miss
        // without a search of the older ones (in a catch-up, a commit holds hundreds of them per key).
        return start == n.start() ? n.pending() : null;
      }
      return older.get(start);
    }

    void put(long start, Pending<V> p) {
      Slot<V> n = newest;
      if (start == n.start()) {
        newest = new Slot<>(start, p);
      } else if (start > n.start()) {
        // Before the slot moves on: a reader that sees the new slot then finds the old one among the older windows.
        older = older.with(n.start(), n.pending());
        newest = new Slot<>(start, p);
      } else {
        older = older.with(start, p);
      }
    }

    /** The pending windows from {@code from} to {@code to}, inclusive, in order: a copy. */
    NavigableMap<Long, Pending<V>> range(long from, long to) {
      Slot<V> n = newest; // read first: a window moved to older after this read is then found there too
      TreeMap<Long, Pending<V>> out = new TreeMap<>();
      older.copyTo(from, to, out);
      if (n.start() >= from && n.start() <= to) {
        out.put(n.start(), n.pending());
      }
      return out;
    }
  }

  /**
   * Windows in start order, in two arrays of which the first {@code size} entries are this view's. Why not a
   * {@link java.util.concurrent.ConcurrentSkipListMap}: nearly every window comes after the last, and a skip list's
   * put allocates a node, index nodes and a boxed start for what here is an append. An append writes past this view's size, where no reader of it looks, and publishes a new view
   * sharing the arrays; a rewrite of a window swaps one reference, which a reader sees before or after; anything else
   * (a late window between two others, an array full) copies the arrays first.
   */
  private static final class Older<V> {
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final Older<?> EMPTY = new Older(new long[0], new Pending<?>[0], 0);

    final long[] starts;
    final Pending<V>[] values;
    final int size;

    private Older(long[] starts, Pending<V>[] values, int size) {
      this.starts = starts;
      this.values = values;
      this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <V> Older<V> empty() {
      return (Older<V>) EMPTY;
    }

    Pending<V> get(long start) {
      int i = Arrays.binarySearch(starts, 0, size, start);
      return i >= 0 ? values[i] : null;
    }

    /** This view with the window {@code start} set to {@code p}: this instance when it was rewritten in place. */
    @SuppressWarnings("unchecked")
    Older<V> with(long start, Pending<V> p) {
      if (size > 0 && start > starts[size - 1] && size < starts.length) {
        starts[size] = start;
        values[size] = p;
        return new Older<>(starts, values, size + 1);
      }
      int i = Arrays.binarySearch(starts, 0, size, start);
      if (i >= 0) {
        values[i] = p;
        return this;
      }
      int at = -i - 1;
      int capacity = Math.max(8, size < starts.length ? starts.length : starts.length * 2);
      long[] s = new long[capacity];
      Pending<V>[] v = (Pending<V>[]) new Pending<?>[capacity];
      System.arraycopy(starts, 0, s, 0, at);
      System.arraycopy(values, 0, v, 0, at);
      s[at] = start;
      v[at] = p;
      System.arraycopy(starts, at, s, at + 1, size - at);
      System.arraycopy(values, at, v, at + 1, size - at);
      return new Older<>(s, v, size + 1);
    }

    void copyTo(long from, long to, Map<Long, Pending<V>> out) {
      int i = Arrays.binarySearch(starts, 0, size, from);
      for (i = i >= 0 ? i : -i - 1; i < size && starts[i] <= to; i++) {
        out.put(starts[i], values[i]);
      }
    }
  }

  record Slot<V>(long start, Pending<V> pending) {
  }

  public DeferredWindowStore(WindowStore<K, V> inner) {
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
    Long known = newestStart.get(key);
    long newest = known != null ? known : newestStored(key);
    if (known == null || windowStart > newest) {
      // Before the value: a concurrent read that misses the pending value finds the window at or after this bound.
      // Most writes are to the key's newest window, and leave the bound as it is.
      newestStart.put(key, Math.max(newest, windowStart));
    }
    Pending<V> p = pendingOf(value);
    if (p == null) {
      wrapped().put(key, value, windowStart);
    } else {
      Windows<V> windows = pending.get(key);
      if (windows == null) {
        pending.put(key, new Windows<>(new Slot<>(windowStart, p)));
      } else {
        windows.put(windowStart, p);
      }
    }
  }

  @Override
  public V fetch(K key, long windowStart) {
    Windows<V> windows = pending.get(key);
    Pending<V> p = windows == null ? null : windows.get(windowStart);
    if (p != null) {
      return p.value();
    }
    Long newest = newestStart.get(key);
    return newest != null && windowStart > newest ? null : wrapped().fetch(key, windowStart);
  }

  /** The start of the key's newest window in the store beneath, or {@link Long#MIN_VALUE} when it has none. */
  private long newestStored(K key) {
    try (WindowStoreIterator<V> it = wrapped().backwardFetch(key, 0, Long.MAX_VALUE)) {
      return it.hasNext() ? it.peekNextKey() : Long.MIN_VALUE;
    }
  }

  @Override
  public WindowStoreIterator<V> fetch(K key, long timeFrom, long timeTo) {
    Windows<V> windows = pending.get(key);
    WindowStoreIterator<V> stored = wrapped().fetch(key, timeFrom, timeTo);
    if (windows == null || timeFrom > timeTo) {
      return stored;
    }
    // A copy: the iterator must not see the writes of a commit that happens while it is open.
    NavigableMap<Long, Pending<V>> in = windows.range(timeFrom, timeTo);
    return in.isEmpty() ? stored : new Merged<>(stored, in.entrySet().iterator());
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

  /**
   * Writes the pending windows oldest first across keys, each key's in window order, and forgets a key's windows
   * once all of them are written. Why not key after key: a window store beneath measures its retention from the
   * newest window it has been given, and an in-memory one drops, logs and counts as expired a window older than that
   * by more than its retention. A commit in a catch-up spans more stream time than the per-second history's retention
   * (an hour of a fleet's samples in a second or two), and written key after key, one VM's newest windows expired
   * the next VM's oldest (1,560–5,411 warnings a benchmark run). Restoring replays the changelog in this order too.
   */
  @Override
  void writePending(Consumer<ProcessorRecordContext> enter) {
    PriorityQueue<Cursor<K, V>> next = new PriorityQueue<>(Math.max(1, pending.size()));
    for (Map.Entry<K, Windows<V>> byKey : pending.entrySet()) {
      next.add(new Cursor<>(byKey.getKey(), byKey.getValue()));
    }
    for (Cursor<K, V> c = next.poll(); c != null; c = next.poll()) {
      Pending<V> p = c.pending();
      enter.accept(p.context());
      wrapped().put(c.key, p.value(), c.start);
      if (c.advance()) {
        next.add(c);
      } else {
        pending.remove(c.key, c.windows);
      }
    }
  }

  /** One key's pending windows, in window order, as they were when the cursor was made (the writer's view). */
  static final class Cursor<K, V> implements Comparable<Cursor<K, V>> {
    final K key;
    final Windows<V> windows;
    private final Older<V> older;
    private final Slot<V> newest;
    /** The window at hand: an index into {@link #older}, and {@code older.size} for the newest. */
    private int at;
    long start;

    Cursor(K key, Windows<V> windows) {
      this.key = key;
      this.windows = windows;
      this.newest = windows.newest;
      this.older = windows.older;
      this.start = older.size > 0 ? older.starts[0] : newest.start();
    }

    Pending<V> pending() {
      return at < older.size ? older.values[at] : newest.pending();
    }

    /** Moves to the next window; false when there is none. */
    boolean advance() {
      if (at >= older.size) {
        return false;
      }
      at++;
      start = at < older.size ? older.starts[at] : newest.start();
      return true;
    }

    @Override
    public int compareTo(Cursor<K, V> o) {
      return Long.compare(start, o.start);
    }
  }

  @Override
  void dropPending() {
    pending.clear();
    newestStart.clear();
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
