package io.stunwatch.collectors.vcenter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * One kind of inventory (VMs or hosts) as last read, and what a new read changes: the entries that are new or differ
 * in more than the time they were read, and the keys that are gone (published as tombstones). Not thread-safe: the
 * collector's loop owns it.
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

  private final Map<String, V> last = new HashMap<>();
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

  /** Takes a whole new read; returns what changed since the last, in the read's order, then the keys gone. */
  List<Change<V>> next(List<V> read) {
    Map<String, V> seen = new HashMap<>();
    List<Change<V>> out = new ArrayList<>();
    for (V v : read) {
      String k = key.apply(v);
      seen.put(k, v);
      V before = last.get(k);
      if (before == null || !same.test(before, v)) {
        out.add(new Change<>(k, v));
      }
    }
    for (String gone : last.keySet()) {
      if (!seen.containsKey(gone)) {
        out.add(new Change<>(gone, null));
      }
    }
    last.clear();
    last.putAll(seen);
    return out;
  }

  /** The entry last read under {@code key}, or null. */
  V get(String key) {
    return last.get(key);
  }

  /** The entries of the last read. */
  java.util.Collection<V> values() {
    return last.values();
  }

  /** Whether the last read had {@code key}. */
  boolean contains(String key) {
    return last.containsKey(key);
  }

  /** Forgets everything: the next read publishes every entry. */
  void clear() {
    last.clear();
  }
}
