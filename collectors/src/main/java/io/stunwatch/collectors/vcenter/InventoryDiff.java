package io.stunwatch.collectors.vcenter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * One kind of inventory (VMs or hosts) as last published, and what a new read changes: the entries that are new or
 * differ in more than the time they were read, and the keys that are gone (published as tombstones). A read's
 * changes count as published only once {@link #commit} says their transaction committed: a read whose transaction
 * failed ({@link #rollback}) is compared again with what was published, so that a host removed from vCenter just as
 * the collector lost its session (the removal itself can make a read fail) is still published as gone. Not
 * thread-safe: the collector's loop owns it.
 *
 * @param <V> the entry
 */
final class InventoryDiff<V> {

  /**
   * One change to publish.
   *
   * @param key   the entry's Kafka key
   * @param value the new entry, or null when it is gone
   */
  record Change<V>(String key, V value) {
  }

  /** What the committed transactions published. */
  private final Map<String, V> published = new HashMap<>();
  /** The newest read, while its changes are not committed; null when there is none. */
  private Map<String, V> read;
  private final Function<V, String> key;
  private final BiPredicate<V, V> same;

  /**
   * @param key  the entry's Kafka key
   * @param same whether the entry read before and the one read now differ only in their read time
   */
  InventoryDiff(Function<V, String> key, BiPredicate<V, V> same) {
    this.key = key;
    this.same = same;
  }

  /**
   * Takes a whole new read; returns what changed since what was published, in the read's order, then the keys gone.
   * They count as published at the next {@link #commit}.
   */
  List<Change<V>> next(List<V> entries) {
    Map<String, V> seen = new HashMap<>();
    List<Change<V>> out = new ArrayList<>();
    for (V v : entries) {
      String k = key.apply(v);
      seen.put(k, v);
      V before = published.get(k);
      if (before == null || !same.test(before, v)) {
        out.add(new Change<>(k, v));
      }
    }
    for (String gone : published.keySet()) {
      if (!seen.containsKey(gone)) {
        out.add(new Change<>(gone, null));
      }
    }
    read = seen;
    return out;
  }

  /** The transaction that carried the newest read's changes committed: they are published. */
  void commit() {
    if (read != null) {
      published.clear();
      published.putAll(read);
      read = null;
    }
  }

  /**
   * The newest read's changes may not have been published (their transaction failed or its outcome is unknown): the
   * next read is compared with what surely was. One published twice is harmless; one never published is lost.
   */
  void rollback() {
    read = null;
  }

  private Map<String, V> current() {
    return read != null ? read : published;
  }

  /** The entry under {@code key} in the newest read, or null. */
  V get(String key) {
    return current().get(key);
  }

  /** The entries of the newest read. */
  java.util.Collection<V> values() {
    return current().values();
  }

  /** Whether the newest read had {@code key}. */
  boolean contains(String key) {
    return current().containsKey(key);
  }

  /** Forgets everything, for another vCenter instance: the next read publishes every entry. */
  void clear() {
    published.clear();
    read = null;
  }
}
