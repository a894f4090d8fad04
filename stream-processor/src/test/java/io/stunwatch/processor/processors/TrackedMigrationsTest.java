package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.domain.Tracked;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TrackedMigrationsTest {

  private KeyValueStore<String, Tracked.Migration> store;
  private final List<String> rewatched = new ArrayList<>();
  private TrackedMigrations tracked;

  @BeforeEach
  @SuppressWarnings("deprecation") // MockProcessorContext's store context is the one init() takes
  void open() {
    MockProcessorContext<Void, Void> context = new MockProcessorContext<>();
    store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("tracked"), Serdes.String(),
        JsonSerde.of(Tracked.Migration.class)).withLoggingDisabled().build();
    store.init(context.getStateStoreContext(), store);
    tracked = new TrackedMigrations(store);
  }

  private static Tracked.Migration migration(String id, String vm, boolean provisional, boolean alertPending) {
    return new Tracked.Migration(id, vm, true, 10_000, provisional, alertPending, 0);
  }

  @Test
  void whatIsTrackedIsStoredAndRemovedWithWhatItWaitedFor() {
    Tracked.Migration a = migration("vc/1", "vm-a", false, true);
    tracked.put(a);
    tracked.watch(a, new TrackedMigrations.Awaited(2_000, Long.MAX_VALUE, Long.MIN_VALUE));
    assertThat(store.get("vc/1")).isEqualTo(a);
    assertThat(tracked.watching("vm-a")).containsOnlyKeys("vc/1");
    assertThat(tracked.watching("vm-b")).isNull();
    assertThat(tracked.expectedKinds("vc/1", () -> ReadingKinds.GPU)).isEqualTo(ReadingKinds.GPU);
    assertThat(tracked.expectedKinds("vc/1", () -> ReadingKinds.ALL)).as("read once").isEqualTo(ReadingKinds.GPU);

    tracked.remove("vc/1");
    assertThat(store.get("vc/1")).isNull();
    assertThat(tracked.contains("vc/1")).isFalse();
    assertThat(tracked.watching("vm-a")).isNull();
    assertThat(tracked.expectedKinds("vc/1", () -> ReadingKinds.ALL)).as("forgotten").isEqualTo(ReadingKinds.ALL);
  }

  @Test
  void aProvisionalImpactIsRebuiltUntilItsFirstDeadlineWhichTheDueLookWaitsFor() {
    Tracked.Migration p = migration("vc/2", "vm-a", true, false);
    tracked.put(p);
    tracked.nextDue(Long.MAX_VALUE);
    tracked.watch(p, new TrackedMigrations.Awaited(Long.MAX_VALUE, 3_000, 7_000));
    assertThat(tracked.provisionalUntil("vc/2")).isEqualTo(7_000);
    assertThat(tracked.nextDue()).isEqualTo(7_000);
    tracked.watch(p, new TrackedMigrations.Awaited(Long.MAX_VALUE, 4_000, 9_000));
    assertThat(tracked.provisionalUntil("vc/2")).as("a later watch does not move it").isEqualTo(7_000);
    assertThat(tracked.watching("vm-a").get("vc/2").rangePassedAt()).isEqualTo(4_000);
    tracked.rangeChanged("vc/2");
    assertThat(tracked.provisionalUntil("vc/2")).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void afterAResetTheCopyIsRebuiltFromTheStoreAndWhatWaitsForSamplesIsWatchedAgain() {
    tracked.put(migration("vc/1", "vm-a", false, false));
    tracked.put(migration("vc/2", "vm-a", true, false));
    tracked.put(migration("vc/3", "vm-b", false, true));
    store.put("vc/4", migration("vc/4", "vm-c", false, false)); // written by an earlier run, restored
    tracked.reset();
    for (Tracked.Migration t : tracked.waiting()) {
      rewatched.add(t.migrationId());
      tracked.watch(t, new TrackedMigrations.Awaited(1_000, Long.MAX_VALUE, t.provisional() ? 5_000 : Long.MIN_VALUE));
    }

    assertThat(tracked.all()).extracting(Tracked.Migration::migrationId)
        .containsExactlyInAnyOrder("vc/1", "vc/2", "vc/3", "vc/4");
    assertThat(rewatched).containsExactlyInAnyOrder("vc/2", "vc/3");
    assertThat(tracked.watching("vm-a")).containsOnlyKeys("vc/2");
    assertThat(tracked.watching("vm-b")).containsOnlyKeys("vc/3");
    assertThat(tracked.provisionalUntil("vc/2")).isEqualTo(5_000);
    assertThat(tracked.nextDue()).isEqualTo(Long.MIN_VALUE);
  }
}
