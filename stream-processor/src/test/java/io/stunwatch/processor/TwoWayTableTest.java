package io.stunwatch.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TwoWayTableTest {

  record Entry(int key, String value) {
  }

  /** 8 slots are 4 sets: hashes 0, 4 and 8 share set 0; hash 1 is set 1. */
  private final TwoWayTable<Entry> table = new TwoWayTable<>(8);

  private Entry find(int key) {
    return table.find(key, e -> e.key() == key);
  }

  @Test
  void twoEntriesOfOneSetAreBothKeptWhereADirectMappedSlotKeptOne() {
    Entry a = new Entry(0, "a");
    Entry b = new Entry(4, "b");
    table.put(0, a);
    table.put(4, b);
    for (int i = 0; i < 3; i++) {
      assertThat(find(0)).isSameAs(a);
      assertThat(find(4)).isSameAs(b);
    }
  }

  @Test
  void aFullSetEvictsItsLeastRecentlyUsedEntryOnly() {
    Entry a = new Entry(0, "a");
    Entry b = new Entry(4, "b");
    Entry other = new Entry(1, "other set");
    table.put(0, a);
    table.put(4, b);
    table.put(1, other);
    assertThat(find(0)).isSameAs(a); // a is now the more recent of set 0
    Entry c = new Entry(8, "c");
    table.put(8, c);
    assertThat(find(4)).isNull();
    assertThat(find(0)).isSameAs(a);
    assertThat(find(8)).isSameAs(c);
    assertThat(find(1)).isSameAs(other);
  }

  @Test
  void aLookupMatchesOnTheKeyNotTheHash() {
    table.put(0, new Entry(0, "a"));
    assertThat(table.find(0, e -> e.key() == 4)).isNull();
  }

  @Test
  void aSizeThatIsNoPowerOfTwoOrBelowTwoIsRefused() {
    for (int bad : new int[] {0, 1, 3, 6, -8}) {
      assertThatThrownBy(() -> new TwoWayTable<Entry>(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(bad));
    }
  }
}
