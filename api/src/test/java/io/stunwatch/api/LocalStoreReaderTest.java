package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.Initiator;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

/**
 * The local reads over stores that keep the processor's deferred-store contract: a point read sees the writes of the
 * commit in progress, an iterator the last commit.
 */
class LocalStoreReaderTest {

  private static final String VM = "4210000-vm";
  private static final StorePartition AT = new StorePartition(0, false);

  private final CommitStore<MigrationRow> rows = new CommitStore<>();
  private final CommitStore<String> index = new CommitStore<>();
  private final LocalStoreReader reader = new LocalStoreReader(new StoreSource() {
    @Override
    public <T> T store(String name, QueryableStoreType<T> type) {
      return store(name, type, AT);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T store(String name, QueryableStoreType<T> type, StorePartition at) {
      return (T) switch (name) {
        case StoreNames.MIGRATIONS_BY_VM -> rows;
        case StoreNames.MIGRATIONS_BY_VM_ORDER -> index;
        default -> throw new IllegalArgumentException(name);
      };
    }
  });

  private static MigrationRow row(int i, double stun) {
    return MigrationRow.of(new MigrationSummary(ApiServerTest.migration(i, "T4-16C", Initiator.DRS,
        MigrationState.SUCCEEDED), false, new StunTime(stun, StunTime.Source.VMWARE_LOG), 1024.0, null));
  }

  /** Writes {@code now} (replacing {@code was}, or null) to the rows and the index, pending until {@link #commit}. */
  private void write(MigrationRow was, MigrationRow now) {
    rows.pending.put(VmOrderKeys.rowKey(VM, now.id()), now);
    for (VmOrderKeys.Order order : VmOrderKeys.Order.values()) {
      if (was != null) {
        index.pending.put(VmOrderKeys.of(VM, order, was), null);
      }
      index.pending.put(VmOrderKeys.of(VM, order, now), now.id());
    }
  }

  private List<String> walk(VmOrderKeys.Order order, boolean desc, int limit) {
    List<String> ids = new ArrayList<>();
    String after = null;
    while (true) {
      List<MigrationRow> page = reader.migrationsOfVm(VM, AT, order, desc, after, limit);
      page.forEach(r -> ids.add(r.id()));
      if (page.size() < limit) {
        return ids;
      }
      after = VmOrderKeys.position(order, page.get(page.size() - 1));
    }
  }

  @Test
  void aRowChangedSinceTheLastCommitIsListedAtItsCommittedPlaceNotDropped() {
    MigrationRow a = row(1, 1.5);
    MigrationRow b = row(2, 3.0);
    MigrationRow c = row(3, 4.5);
    write(null, a);
    write(null, b);
    write(null, c);
    rows.commit();
    index.commit();
    write(b, row(2, 6.0)); // b's stun revised; the commit that writes it has not come

    for (int limit : new int[] {1, 2, 10}) {
      assertThat(walk(VmOrderKeys.Order.STUN, false, limit)).as("limit %d", limit)
          .containsExactly(a.id(), b.id(), c.id());
      assertThat(walk(VmOrderKeys.Order.STUN, true, limit)).as("limit %d, descending", limit)
          .containsExactly(c.id(), b.id(), a.id());
      assertThat(walk(VmOrderKeys.Order.START, false, limit)).containsExactly(a.id(), b.id(), c.id());
    }
    assertThat(reader.migrationsOfVm(VM, AT, VmOrderKeys.Order.STUN, false, null, 10))
        .extracting(MigrationRow::stunSeconds).containsExactly(1.5, 3.0, 4.5);
    // the whole list reads the same commit
    assertThat(reader.migrationsOfVm(VM, AT)).extracting(MigrationRow::stunSeconds)
        .containsExactlyInAnyOrder(1.5, 3.0, 4.5);

    rows.commit();
    index.commit();
    assertThat(walk(VmOrderKeys.Order.STUN, false, 1)).containsExactly(a.id(), c.id(), b.id());
  }

  @Test
  void aRowThatMovedInACommitTheIndexHasNotReachedIsListedOnceAtItsNewPlace() {
    MigrationRow a = row(1, 1.5);
    MigrationRow b = row(2, 3.0);
    MigrationRow c = row(3, 4.5);
    MigrationRow d = row(4, 9.0);
    for (MigrationRow r : List.of(a, b, c, d)) {
      write(null, r);
    }
    rows.commit();
    index.commit();
    // the rows reach their store first at a commit: b has moved past c, and the index still has it at 3.0
    write(b, row(2, 6.0));
    rows.commit();

    assertThat(reader.migrationsOfVm(VM, AT, VmOrderKeys.Order.STUN, false, null, 10))
        .extracting(MigrationRow::id).containsExactly(a.id(), c.id(), b.id(), d.id());
    assertThat(reader.migrationsOfVm(VM, AT, VmOrderKeys.Order.STUN, true, null, 10))
        .extracting(MigrationRow::id).containsExactly(d.id(), b.id(), c.id(), a.id());
    // a read that stops before b's new place leaves it to the read that covers it
    List<MigrationRow> first = reader.migrationsOfVm(VM, AT, VmOrderKeys.Order.STUN, false, null, 2);
    assertThat(first).extracting(MigrationRow::id).containsExactly(a.id(), c.id());

    index.commit();
    assertThat(walk(VmOrderKeys.Order.STUN, false, 1)).containsExactly(a.id(), c.id(), b.id(), d.id());
  }

  @Test
  void aRowRemovedByALaterCommitIsNotListed() {
    MigrationRow a = row(1, 1.5);
    MigrationRow b = row(2, 3.0);
    write(null, a);
    write(null, b);
    rows.commit();
    index.commit();
    rows.pending.put(VmOrderKeys.rowKey(VM, b.id()), null);
    rows.commit();

    assertThat(walk(VmOrderKeys.Order.START, true, 1)).containsExactly(a.id());
  }

  /**
   * A store with the processor's deferred-store contract: {@link #get} sees pending writes, iterators the last
   * {@link #commit}. A pending null is a delete.
   */
  static final class CommitStore<V> implements ReadOnlyKeyValueStore<String, V> {
    final NavigableMap<String, V> committed = new TreeMap<>();
    final Map<String, V> pending = new HashMap<>();

    void commit() {
      pending.forEach((k, v) -> {
        if (v == null) {
          committed.remove(k);
        } else {
          committed.put(k, v);
        }
      });
      pending.clear();
    }

    @Override
    public V get(String key) {
      return pending.containsKey(key) ? pending.get(key) : committed.get(key);
    }

    @Override
    public KeyValueIterator<String, V> range(String from, String to) {
      return iterator(committed.subMap(from, true, to, true));
    }

    @Override
    public KeyValueIterator<String, V> reverseRange(String from, String to) {
      return iterator(committed.subMap(from, true, to, true).descendingMap());
    }

    @Override
    public KeyValueIterator<String, V> all() {
      return iterator(committed);
    }

    @Override
    public <PS extends Serializer<P>, P> KeyValueIterator<String, V> prefixScan(P prefix, PS serializer) {
      String p = (String) prefix;
      return iterator(committed.subMap(p, true, p + '\uffff', false));
    }

    @Override
    public long approximateNumEntries() {
      return committed.size();
    }

    private KeyValueIterator<String, V> iterator(Map<String, V> view) {
      Iterator<Map.Entry<String, V>> it = new ArrayList<>(view.entrySet()).iterator();
      return new KeyValueIterator<>() {
        @Override
        public void close() {
        }

        @Override
        public String peekNextKey() {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<String, V> next() {
          Map.Entry<String, V> e = it.next();
          return KeyValue.pair(e.getKey(), e.getValue());
        }
      };
    }
  }
}
