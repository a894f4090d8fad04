package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.LoadKeySerde;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.ValueCodecs;
import io.stunwatch.processor.readmodel.VmSamples;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The migrations' state machine, one input at a time: a {@link MigrationProcessor} on a
 * {@link MockProcessorContext}, over in-memory stores of the names and formats it writes, with readings put in the
 * VM's history as {@link VmReadingsProcessor} would before sending them on.
 */
class MigrationProcessorTest {

  private static final String VC = "vc-1";
  private static final String VM = "00000000-0000-0000-0000-000000000001";
  private static final Instant T0 = Instant.parse("2026-11-21T12:00:00Z");
  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-21T13:00:00Z"), ZoneOffset.UTC);
  private static final ProcessorConfig CONFIG = ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO);

  private MockProcessorContext<String, Object> context;
  private MigrationProcessor processor;
  private SampleHistory history;
  private KeyValueStore<String, EventSet> events;
  private KeyValueStore<String, Migration> migrations;
  private KeyValueStore<String, MigrationImpact> impacts;
  private KeyValueStore<String, Tracked.Stuns> stuns;

  @BeforeEach
  void setUp() {
    open(Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.VM_INVENTORY),
        Serdes.String(), Topics.VM_INVENTORY.valueSerde()).withLoggingDisabled().build());
  }

  /** The processor over fresh stores, with {@code inventory} as the global VM inventory. */
  private void open(TimestampedKeyValueStore<String, VmInventoryEntry> vms) {
    context = new MockProcessorContext<>();
    context.setCurrentSystemTimeMs(CLOCK.millis());
    context.setCurrentStreamTimeMs(-1); // no record yet
    events = add(kv(StoreNames.MIGRATION_EVENTS, JsonSerde.of(EventSet.class)));
    migrations = add(kv(StoreNames.MIGRATIONS, JsonSerde.of(Migration.class)));
    add(kv(StoreNames.ALERTS, JsonSerde.of(MigrationAlert.class)));
    impacts = add(kv(StoreNames.IMPACTS, JsonSerde.of(MigrationImpact.class)));
    add(kv(StoreNames.TRACKED, JsonSerde.of(Tracked.Migration.class)));
    stuns = add(kv(StoreNames.VM_STUNS, JsonSerde.of(Tracked.Stuns.class)));
    add(kv(StoreNames.VM_MIGRATIONS, JsonSerde.of(Tracked.Recent.class)));
    add(kv(StoreNames.MIGRATIONS_BY_VM, MigrationRow.SERDE));
    add(kv(StoreNames.MIGRATIONS_BY_VM_ORDER, Serdes.String()));
    add(kv(StoreNames.MIGRATIONS_BY_START, MigrationRow.SERDE));
    add(kv(StoreNames.ANNOTATIONS_BY_HOUR, AnnotationBlock.SERDE));
    add(kv(StoreNames.HISTORY_PINS, Serdes.String()));
    TimestampedKeyValueStore<String, VmInventoryEntry> inventory = add(vms);
    add(Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.HOST_INVENTORY),
        Serdes.String(), Topics.HOST_INVENTORY.valueSerde()).withLoggingDisabled().build());
    add(Stores.timestampedKeyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.STUN_MODEL_GLOBAL),
        Serdes.String(), Topics.STUN_MODEL.valueSerde()).withLoggingDisabled().build());
    add(blocks());
    add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.VM_LIVE), LoadKeySerde.INSTANCE,
        ValueCodecs.VM_LIVE).withLoggingDisabled().build());
    add(kv(StoreNames.VM_LOAD_CURRENT, ValueCodecs.CURRENT_LOAD));
    add(kv(StoreNames.RDMA_LAST, RdmaRecorder.RDMA_LAST));
    if (!Proxy.isProxyClass(vms.getClass())) {
      VmInventoryEntry e = new VmInventoryEntry(VC, "vm-1", "train-1", VM, null,
          new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, null, List.of(), null, T0);
      inventory.put(e.key(), ValueAndTimestamp.make(e, T0.toEpochMilli()));
    }
    LiveStates lives = new LiveStates();
    lives.init(context);
    history = new SampleHistory(context, CONFIG, lives);
    processor = new MigrationProcessor(CONFIG, CLOCK);
    processor.init(context);
  }

  /** A VM inventory whose every read fails, as a corrupt entry's would. */
  @SuppressWarnings("unchecked")
  private static TimestampedKeyValueStore<String, VmInventoryEntry> failingInventory() {
    return (TimestampedKeyValueStore<String, VmInventoryEntry>) Proxy.newProxyInstance(
        MigrationProcessorTest.class.getClassLoader(), new Class<?>[] {TimestampedKeyValueStore.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "name" -> StoreNames.VM_INVENTORY;
          case "init", "flush", "close" -> null;
          case "persistent" -> false;
          case "isOpen" -> true;
          case "get" -> throw new IllegalStateException("a corrupt inventory entry");
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  @SuppressWarnings("unchecked")
  private static WindowStore<String, VmSamples.Block> blocks() {
    return MapWindowStores.of(WindowStore.class, StoreNames.VM_SAMPLES, v -> v);
  }

  private static <V> KeyValueStore<String, V> kv(String name, Serde<V> serde) {
    return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), serde)
        .withLoggingDisabled().build();
  }

  @SuppressWarnings("deprecation") // MockProcessorContext's store context is the one init() takes
  private <S extends StateStore> S add(S store) {
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return store;
  }

  private void process(VmInput value, Instant at) {
    long t = at.toEpochMilli();
    if (t > context.currentStreamTimeMs()) {
      context.setCurrentStreamTimeMs(t);
    }
    processor.process(new Record<>(VM, value, t));
  }

  /** A GPU reading, in the VM's history first, as the readings' processor leaves it. */
  private void gpu(Instant at, double util) {
    GpuSample s = new GpuSample(VM, "guest-1", at, 0, "GPU-1", "GRID T4-16C", null, util, 20.0, 8000L, 16384L,
        null, null, 1590L, "P0", VgpuProfile.parse("GRID T4-16C").orElseThrow());
    history.update(VM, at, p -> VmSamples.withGpu(p, s));
    process(s, at);
  }

  private void gpu(Instant from, int seconds, double util) {
    for (int i = 0; i < seconds; i++) {
      gpu(from.plusSeconds(i), util);
    }
  }

  private static VcenterEvent event(long key, Instant at, String type, VcenterEventCategory c, TaskSnapshot task) {
    return new VcenterEvent(VC, key, 100L, at, type, null, c, "VSPHERE.LOCAL\\admin",
        new EntityRef("VirtualMachine", "vm-1", "train-1"), new EntityRef("HostSystem", "host-2", "esx02"),
        new EntityRef("HostSystem", "host-1", "esx01"), new EntityRef("HostSystem", "host-2", "esx02"),
        new EntityRef("ClusterComputeResource", "domain-c7", "gpu"), null, null, null, null, null, null, task);
  }

  /** A user's relocate of the VM from T0 for {@code seconds}: started, then completed. */
  private void migrate(int seconds) {
    process(event(101, T0.plusMillis(200), "VmBeingHotMigratedEvent", VcenterEventCategory.MIGRATION_STARTED, null),
        T0.plusMillis(200));
    process(event(102, T0.plusSeconds(seconds), "VmMigratedEvent", VcenterEventCategory.MIGRATION_COMPLETED, null),
        T0.plusSeconds(seconds));
  }

  private <V> List<V> forwarded(Class<V> type) {
    return context.forwarded().stream().map(f -> f.record().value()).filter(type::isInstance).map(type::cast)
        .toList();
  }

  @Test
  void aMigrationUnderLoadIsAlertedTrackedAndSettledIntoItsImpactOnceTheVmsReadingsHavePassedIt() {
    gpu(T0.minusSeconds(60), 60, 95.0);
    migrate(20);

    assertThat(forwarded(Migration.class)).last().satisfies(m -> assertThat(m.state())
        .isEqualTo(MigrationState.SUCCEEDED));
    assertThat(forwarded(MigrationAlert.class)).as("raised at the start, resolved at the end")
        .extracting(MigrationAlert::state).containsExactly(MigrationAlert.AlertState.FIRING,
            MigrationAlert.AlertState.RESOLVED);
    assertThat(forwarded(MigrationImpact.class)).as("not before its readings pass its settle window").isEmpty();

    gpu(T0.plusSeconds(20), 150, 90.0);

    assertThat(forwarded(MigrationImpact.class)).hasSize(1).first().satisfies(i -> {
      assertThat(i.migration().id()).isEqualTo(VC + "/100");
      assertThat(i.stun().source()).isNotEqualTo(StunTime.Source.VMWARE_LOG);
    });
    assertThat(impacts.get(VC + "/100")).isNotNull();
  }

  @Test
  void anEventThatBecomesADeadLetterHasChangedNoState() {
    // The inventory entry the migration is assembled with cannot be read: the event is refused as it is worked out.
    open(failingInventory());
    process(event(101, T0, "VmBeingHotMigratedEvent", VcenterEventCategory.MIGRATION_STARTED, null), T0);

    assertThat(forwarded(DeadLetter.class)).hasSize(1).first().satisfies(d -> {
      assertThat(d.stage()).isEqualTo(DeadLetter.Stage.PROCESSING);
      assertThat(d.sourceTopic()).isEqualTo(Topics.VCENTER_EVENTS.name());
    });
    assertThat(forwarded(Migration.class)).isEmpty();
    assertThat(events.all()).as("no event kept").isExhausted();
    assertThat(migrations.all()).as("no migration kept").isExhausted();
  }

  @Test
  void aStunLoggedAfterTheImpactSettledRevisesTheImpactAndItsAlert() {
    gpu(T0.minusSeconds(60), 60, 95.0);
    migrate(20);
    gpu(T0.plusSeconds(20), 150, 90.0);
    MigrationImpact settled = impacts.get(VC + "/100");
    assertThat(settled).isNotNull();
    context.resetForwards();

    process(new StunObservation(VC, "vm-1", "train-1", null, T0.plusSeconds(19), 2_500_000L,
        StunObservation.StunSource.CHECKPOINT_UNSTUN, "[ds1] train-1/vmware.log", 42), T0.plusSeconds(19));

    assertThat(stuns.get(VM)).as("kept for impacts to come").isNotNull();
    assertThat(forwarded(MigrationImpact.class)).hasSize(1).first().satisfies(i -> {
      assertThat(i.stun().source()).isEqualTo(StunTime.Source.VMWARE_LOG);
      assertThat(i.stun().seconds()).isEqualTo(2.5);
    });
    assertThat(forwarded(MigrationAlert.class)).hasSize(1).first()
        .satisfies(a -> assertThat(a.measured().stun().seconds()).isEqualTo(2.5));

    context.resetForwards();
    process(new StunObservation(VC, "vm-1", "train-1", null, T0.plusSeconds(19), 2_500_000L,
        StunObservation.StunSource.CHECKPOINT_UNSTUN, "[ds1] train-1/vmware.log", 42), T0.plusSeconds(19));
    assertThat(context.forwarded()).as("read before: nothing to revise").isEmpty();
  }

  @Test
  void aStunLoggedBeforeTheMigrationSettledIsInItsImpact() {
    gpu(T0.minusSeconds(60), 60, 10.0);
    migrate(20);
    process(new StunObservation(VC, "vm-1", "train-1", null, T0.plusSeconds(19), 1_000_000L,
        StunObservation.StunSource.CHECKPOINT_UNSTUN, "[ds1] train-1/vmware.log", 42), T0.plusSeconds(19));
    assertThat(forwarded(MigrationImpact.class)).as("nothing settled to revise").isEmpty();
    assertThat(forwarded(MigrationAlert.class)).as("not under load").isEmpty();

    gpu(T0.plusSeconds(20), 150, 10.0);

    assertThat(forwarded(MigrationImpact.class)).hasSize(1).first()
        .satisfies(i -> assertThat(i.stun().seconds()).isEqualTo(1.0));
  }
}
