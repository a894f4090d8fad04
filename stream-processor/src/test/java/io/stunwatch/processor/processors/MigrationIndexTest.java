package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The VM order index ({@link StoreNames#MIGRATIONS_BY_VM_ORDER}): kept in step with the rows, and filled once. */
class MigrationIndexTest {

  static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");
  static final String VM = "4210abcd-0000-4000-8000-000000000000";

  MockProcessorContext<Void, Void> context;
  KeyValueStore<String, MigrationRow> byVm;
  KeyValueStore<String, String> order;

  @BeforeEach
  void stores() {
    context = new MockProcessorContext<>();
    byVm = add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.MIGRATIONS_BY_VM),
        Serdes.String(), MigrationRow.SERDE).withLoggingDisabled());
    order = add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.MIGRATIONS_BY_VM_ORDER),
        Serdes.String(), Serdes.String()).withLoggingDisabled());
  }

  @Test
  void aRowThatMovesInAnOrderLeavesItsOldPlaceAndOneThatLeavesLeavesEvery() {
    MigrationRow first = row(1, 12.0, 30);
    MigrationIndex.reorder(order, VM, null, first);
    MigrationRow revised = row(1, 28.5, 30); // a vmware.log figure replaced the gap estimate
    MigrationIndex.reorder(order, VM, first, revised);
    assertThat(keys()).containsExactlyInAnyOrderElementsOf(placesOf(revised));
    MigrationIndex.reorder(order, VM, revised, null);
    assertThat(keys()).isEmpty();
  }

  @Test
  void anIndexThatIsEmptyBesideRowsIsFilledFromThemOnceAndItsOrdersSortAsTheApiSorts() {
    List<MigrationRow> rows = new ArrayList<>();
    for (int i = 1; i <= 40; i++) {
      MigrationRow r = row(i, i % 5 == 0 ? null : (double) (i % 7), i % 9 == 0 ? null : 200 - i);
      rows.add(r);
      byVm.put(VmOrderKeys.rowKey(VM, r.id()), r);
    }
    assertThat(new MigrationIndex(context).fillOrderIndex("0_1")).isEqualTo(40);
    assertThat(new MigrationIndex(context).fillOrderIndex("0_1")).as("once: the index is no longer empty").isZero();
    Set<String> expected = new TreeSet<>();
    rows.forEach(r -> expected.addAll(placesOf(r)));
    assertThat(keys()).isEqualTo(expected);

    // each order's keys, in key order, list the rows as the API's ascending sort does: the value, then the id
    for (VmOrderKeys.Order o : VmOrderKeys.Order.values()) {
      String prefix = VmOrderKeys.prefix(VM, o);
      List<String> indexed = new ArrayList<>();
      try (KeyValueIterator<String, String> it = order.prefixScan(prefix, Serdes.String().serializer())) {
        it.forEachRemaining(kv -> indexed.add(kv.value));
      }
      Comparator<MigrationRow> api = switch (o) {
        case START -> Comparator.comparing(MigrationRow::startTime);
        case STUN -> Comparator.comparingDouble(r -> r.stunSeconds() == null ? -1.0 : r.stunSeconds());
        case DURATION -> Comparator.comparingDouble(r -> r.durationSeconds() == null ? -1.0 : r.durationSeconds());
      };
      assertThat(indexed).as(o.name()).isEqualTo(rows.stream().sorted(api.thenComparing(MigrationRow::id))
          .map(MigrationRow::id).toList());
    }
  }

  private Set<String> placesOf(MigrationRow r) {
    Set<String> out = new TreeSet<>();
    for (VmOrderKeys.Order o : VmOrderKeys.Order.values()) {
      out.add(VmOrderKeys.of(VM, o, r));
    }
    return out;
  }

  private Set<String> keys() {
    Set<String> out = new TreeSet<>();
    try (KeyValueIterator<String, String> it = order.all()) {
      it.forEachRemaining(kv -> out.add(kv.key));
    }
    return out;
  }

  /** Migration {@code i}: starts {@code i / 2} minutes after T0 (pairs share a start), with a stun and a duration. */
  static MigrationRow row(int i, Double stun, Integer durationSeconds) {
    Instant start = T0.plusSeconds(60L * (i / 2));
    Migration m = new Migration("vc/m" + i, "vc", "vm-1", "train-1", VM, "T4-16C", MigrationState.SUCCEEDED,
        Initiator.DRS, "DRS", false, new EntityRef("HostSystem", "host-1", "esx01"),
        new EntityRef("HostSystem", "host-2", "esx02"), null, null, null, null, start,
        durationSeconds == null ? null : start.plusSeconds(durationSeconds), null, start.plusSeconds(30));
    return MigrationRow.of(new MigrationSummary(m, false,
        stun == null ? null : new StunTime(stun, StunTime.Source.VMWARE_LOG), 1024.0, null));
  }

  @SuppressWarnings("deprecation") // MockProcessorContext's store context is the one init() takes
  private <S extends org.apache.kafka.streams.processor.StateStore> S add(StoreBuilder<S> builder) {
    S store = builder.build();
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return store;
  }
}
