package io.stunwatch.processor;

import java.util.function.Predicate;

/**
 * A fixed-size, two-way set-associative table of immutable entries, safe to share between threads without locks:
 * the read-mostly memo behind the summary codec's interning and the API's rendered JSON.
 *
 * <p>Each hash selects a set of two slots. A hit in the second slot moves the entry to the first, and an insert
 * pushes the first entry to the second, so each set keeps its two most recently used entries. A direct-mapped table
 * (one slot per hash) made two hot entries that share a slot evict each other on every use; a day's annotations
 * read about 7 % of their summaries afresh on every request that way, and each replacement was a new young object
 * the garbage collector then copied.
 *
 * <p>Races lose entries, never correctness: entries are immutable (their fields final, so a reader sees a whole
 * entry), a lookup matches on the caller's full key, and two threads that update one set at once may leave one
 * entry twice and drop another, which the next miss puts back.
 *
 * @param <E> the entry type, immutable
 */
public final class TwoWayTable<E> {

  private final Object[] slots;
  private final int setMask;

  /** @param slots the number of slots, a power of two of at least 2 (half as many sets) */
  public TwoWayTable(int slots) {
    if (slots < 2 || Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two of at least 2, not " + slots);
    }
    this.slots = new Object[slots];
    this.setMask = slots / 2 - 1;
  }

  /** The entry of the set of {@code hash} that {@code matches}, or null. */
  @SuppressWarnings("unchecked")
  public E find(int hash, Predicate<? super E> matches) {
    int first = (spread(hash) & setMask) << 1;
    E a = (E) slots[first];
    if (a != null && matches.test(a)) {
      return a;
    }
    E b = (E) slots[first + 1];
    if (b != null && matches.test(b)) {
      slots[first] = b;
      slots[first + 1] = a;
      return b;
    }
    return null;
  }

  /** Makes {@code entry} the most recent of the set of {@code hash}, evicting that set's least recent entry. */
  public void put(int hash, E entry) {
    int first = (spread(hash) & setMask) << 1;
    slots[first + 1] = slots[first];
    slots[first] = entry;
  }

  public int slots() {
    return slots.length;
  }

  /** Mixes the high bits in: identity hashes and byte hashes alike then spread over every set. */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }
}
