package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.state.StoreCodec;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeySerde;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.UtilizationDay;
import io.stunwatch.processor.readmodel.ValueCodecs;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link GpuLoadRecorder} keeps what it last wrote for each VM instead of reading it back: these tests check that a
 * new instance on the same stores (a task that moved or restarted) goes on from the stores, and that the windows it
 * holds are never mistaken for another window or another VM's.
 */
class GpuLoadRecorderTest {

  static final Instant DAY = Instant.parse("2026-11-21T00:00:00Z");
  static final String VM = "00000000-0000-0000-0000-000000000001";
  static final String OTHER = "00000000-0000-0000-0000-000000000002";

  private MockProcessorContext<Void, Void> context;
  private KeyValueStore<String, CurrentLoad> formerCurrent;
  private KeyValueStore<String, VmLive> live;
  private TimestampedWindowStore<String, LoadAggregate> tenSeconds;
  private TimestampedWindowStore<String, LoadAggregate> minute;
  private TimestampedWindowStore<String, LoadAggregate> hour;
  private TimestampedWindowStore<String, UtilizationDay> days;
  private WindowStore<String, VmSamples.Block> blocks;

  @BeforeEach
  void setUp() {
    context = new MockProcessorContext<>();
    live = add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.VM_LIVE),
        LoadKeySerde.INSTANCE, ValueCodecs.VM_LIVE).withLoggingDisabled().build());
    formerCurrent = add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.VM_LOAD_CURRENT),
        Serdes.String(), ValueCodecs.CURRENT_LOAD).withLoggingDisabled().build());
    add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.RDMA_LAST), Serdes.String(),
        RdmaRecorder.RDMA_LAST).withLoggingDisabled().build());
    tenSeconds = add(window(StoreNames.VM_LOAD_10S, Duration.ofSeconds(10), ValueCodecs.LOAD_WINDOW));
    minute = add(window(StoreNames.VM_LOAD_1M, Duration.ofMinutes(1), ValueCodecs.LOAD_WINDOW));
    hour = add(window(StoreNames.VM_LOAD_1H, Duration.ofHours(1), ValueCodecs.LOAD_WINDOW));
    days = add(window(StoreNames.UTILIZATION_DAILY, Duration.ofDays(1), ValueCodecs.UTILIZATION_DAY));
    blocks = add(blockWindow());
    add(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(StoreNames.HISTORY_PINS), Serdes.String(),
        Serdes.String()).withLoggingDisabled().build());
    TimestampedKeyValueStore<String, VmInventoryEntry> inventory = add(Stores.timestampedKeyValueStoreBuilder(
        Stores.inMemoryKeyValueStore(StoreNames.VM_INVENTORY), Serdes.String(), Topics.VM_INVENTORY.valueSerde())
        .withLoggingDisabled().build());
    VmInventoryEntry e = new VmInventoryEntry("vc-1", "vm-1", "train-1", VM, null,
        new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, null, List.of(), null, DAY);
    inventory.put(e.key(), ValueAndTimestamp.make(e, DAY.toEpochMilli()));
  }

  /** A load window store over a map (see {@link MapWindowStores}), each value a round trip through the store's codec. */
  @SuppressWarnings("unchecked")
  private static <V> TimestampedWindowStore<String, V> window(String name, Duration size, StoreCodec<V> codec) {
    return MapWindowStores.of(TimestampedWindowStore.class, name, value -> {
      // A round trip through the codec, as a real store's bytes would make it.
      ValueAndTimestamp<V> v = (ValueAndTimestamp<V>) value;
      return ValueAndTimestamp.make(codec.decode(codec.encode(v.value())), v.timestamp());
    });
  }

  /** The per-second history over a map (see {@link MapWindowStores}). */
  @SuppressWarnings("unchecked")
  private static WindowStore<String, VmSamples.Block> blockWindow() {
    return MapWindowStores.of(WindowStore.class, StoreNames.VM_SAMPLES, value -> value);
  }

  @SuppressWarnings("deprecation") // MockProcessorContext's store context is the one init() takes
  private <S extends StateStore> S add(S store) {
    store.init(context.getStateStoreContext(), store);
    context.addStateStore(store);
    return store;
  }

  private GpuLoadRecorder started() {
    Clock clock = Clock.fixed(DAY, ZoneOffset.UTC);
    GpuLoadRecorder p = new GpuLoadRecorder(ProcessorConfig.defaults(), new InventoryIndex(clock, Duration.ZERO),
        clock);
    LiveStates lives = new LiveStates();
    lives.init(context);
    p.init(context, new SampleHistory(context, ProcessorConfig.defaults(), lives), lives);
    return p;
  }

  /**
   * The VM's window of {@code store} that starts at {@code start}, as a reader finds it: the open one in the VM's
   * live state, a closed one in the store.
   */
  private <A> A window(TimestampedWindowStore<String, A> store, Function<VmLive, VmLive.Open<A>> open, String vm,
      Instant start) {
    VmLive state = live.get(vm);
    VmLive.Open<A> o = state == null ? null : open.apply(state);
    if (o != null && o.start() == start.toEpochMilli()) {
      return o.value();
    }
    ValueAndTimestamp<A> v = store.fetch(vm, start.toEpochMilli());
    return v == null ? null : v.value();
  }

  private LoadAggregate tenSeconds(String vm, Instant start) {
    return window(tenSeconds, VmLive::tenSeconds, vm, start);
  }

  private VmSamples.Block block(String vm, Instant start) {
    VmLive state = live.get(vm);
    if (state != null && state.block() != null && state.block().startSecond() == start.getEpochSecond()) {
      return state.block();
    }
    return blocks.fetch(vm, start.toEpochMilli());
  }

  private static void sample(GpuLoadRecorder p, String vm, int second, double util, long fbUsed) {
    Instant t = DAY.plusSeconds(second);
    p.record(vm, new GpuSample(vm, "guest", t, 0, "GPU-a", "GRID T4-16C", null, util, util / 2,
        fbUsed, 16_384L, null, null, null, null, VgpuProfile.parse("GRID T4-16C").orElseThrow()), t.toEpochMilli());
  }

  @Test
  void aNewInstanceOnTheSameStoresGoesOnFromWhatTheyHoldNotFromNothing() {
    GpuLoadRecorder before = started();
    for (int s = 0; s < 5; s++) {
      sample(before, VM, s, 80, 1024);
    }
    before.close();
    GpuLoadRecorder after = started(); // the task moved back, or restarted after its stores were restored
    for (int s = 5; s < 10; s++) {
      sample(after, VM, s, 2, 2048);
    }
    LoadAggregate w = tenSeconds(VM, DAY);
    assertThat(w.samples()).as("five samples before and five after, in one window").isEqualTo(10);
    assertThat(w.gpuUtilAvgPct()).isEqualTo(41.0);
    assertThat(w.fbUsedMaxMiB()).isEqualTo(2048L);
    assertThat(window(minute, VmLive::minute, VM, DAY).samples()).isEqualTo(10);
    UtilizationDay d = window(days, VmLive::day, VM, DAY);
    assertThat(d.total().busy()).as("the intervals closed at 80% before the restart").isEqualTo(4.0);
    assertThat(d.total().idle()).as("those closed at 2% after it, the one across the restart too").isEqualTo(5.0);
    assertThat(d.byHost()).containsOnlyKeys("esx01");
    assertThat(live.get(VM).current().latest()).isEqualTo(DAY.plusSeconds(9));
    assertThat(live.get(VM).current().fbUsedMiB()).isEqualTo(2048L);
  }

  @Test
  void eachVmAndEachWindowKeepsItsOwnAggregateAndALateSampleFindsItsOlderWindow() {
    GpuLoadRecorder p = started();
    for (int s = 0; s < 25; s++) {
      sample(p, VM, s, 60, 1024);
      sample(p, OTHER, s, 10, 512);
    }
    sample(p, VM, 3, 100, 1024); // late, within the grace: its window is not the one held
    LoadAggregate first = tenSeconds(VM, DAY);
    assertThat(first.samples()).isEqualTo(11);
    assertThat(first.gpuUtilMax()).isEqualTo(100.0);
    assertThat(tenSeconds(VM, DAY.plusSeconds(20)).samples()).isEqualTo(5);
    assertThat(tenSeconds(OTHER, DAY).gpuUtilAvgPct()).isEqualTo(10.0);
    assertThat(window(minute, VmLive::minute, VM, DAY).samples()).isEqualTo(26);
    assertThat(window(minute, VmLive::minute, OTHER, DAY).samples()).isEqualTo(25);
    assertThat(window(hour, VmLive::hour, VM, DAY).samples()).as("the hour, for the hour-of-day profile")
        .isEqualTo(26);
    assertThat(window(days, VmLive::day, OTHER, DAY).byHost())
        .as("the inventory does not know the other VM").containsOnlyKeys(UtilizationDay.UNRESOLVED_HOST);
  }

  @Test
  void everySampleLateOrNotReachesItsVmsSecondInThePerSecondHistory() {
    GpuLoadRecorder p = started();
    sample(p, VM, 0, 60, 1024);
    sample(p, VM, 1, 80, 2048);
    sample(p, OTHER, 1, 10, 512);
    sample(p, VM, 1, 40, 1024); // a second sample in the same second: averaged, framebuffer the max
    sample(p, VM, 1800, 50, 1024); // moves the VM's time half an hour on
    sample(p, VM, 2, 30, 1024); // far too late for any window, but within the VM's history, which takes it

    VmSamples.Block first = block(VM, DAY);
    assertThat(first.points()).extracting(VmSamples.Point::epochSecond)
        .containsExactly(DAY.getEpochSecond(), DAY.getEpochSecond() + 1, DAY.getEpochSecond() + 2);
    VmSamples.Point second1 = first.point(DAY.getEpochSecond() + 1);
    assertThat(second1.samples()).isEqualTo(2);
    assertThat(second1.gpuUtilizationPct()).isEqualTo(60.0);
    assertThat(second1.fbUsedMiB()).isEqualTo(2048L);
    assertThat(first.point(DAY.getEpochSecond() + 2).gpuUtilizationPct()).isEqualTo(30.0);
    assertThat(block(OTHER, DAY).points()).singleElement()
        .satisfies(point -> assertThat(point.gpuUtilizationPct()).isEqualTo(10.0));
    assertThat(block(VM, DAY.plusSeconds(1800)).points()).hasSize(1);
    assertThat(tenSeconds(VM, DAY).samples())
        .as("the window had closed to the late sample").isEqualTo(3);
  }

  @Test
  void theRecordingOfTheHostAVmLeftReplayedAfterTheOthersIsNotLateForItsWindows() {
    GpuLoadRecorder p = started();
    String hostView = LoadKeys.of(VM, LoadSource.HOST);
    for (int s = 600; s < 1200; s += 5) {
      hostSample(p, "esx02", s); // the host it moved to, whose recording was replayed first
    }
    for (int s = 0; s < 600; s += 5) {
      hostSample(p, "esx01", s); // then the host it left: late for esx02's readings, in order for its own
    }
    for (int w = 0; w < 1200; w += 10) {
      assertThat(tenSeconds(hostView, DAY.plusSeconds(w))).as("window at " + w + " s")
          .isNotNull();
    }
    hostSample(p, "esx01", 100); // but late for its own host's readings: dropped
    assertThat(tenSeconds(hostView, DAY.plusSeconds(100)).samples()).isEqualTo(2);
    assertThat(window(days, VmLive::day, hostView, DAY).total().busy())
        .as("each host's readings account for their own intervals").isEqualTo(595.0 + 595.0);
  }

  @Test
  void aSiteUpgradedInPlaceGoesOnFromWhatTheFormerStoresHeldAndEmptiesThemOnce() {
    // As the format before VmLive left a VM: its current load in its own store, its open windows and history block
    // in theirs.
    Instant t = DAY.plusSeconds(4);
    GpuSample before = new GpuSample(VM, "guest", t, 0, "GPU-a", "GRID T4-16C", null, 80.0, 40.0, 1024L, 16_384L,
        null, null, null, null, VgpuProfile.parse("GRID T4-16C").orElseThrow());
    formerCurrent.put(VM, new CurrentLoad(VM, Map.of("GPU-a", before), "esx01", "train-1", true));
    LoadAggregate five = LoadAggregate.empty();
    for (int s = 0; s < 5; s++) {
      five = five.with(before);
    }
    tenSeconds.put(VM, ValueAndTimestamp.make(five, t.toEpochMilli()), DAY.toEpochMilli());
    VmSamples.Block held = VmSamples.Block.empty(DAY.getEpochSecond())
        .with(VmSamples.withGpu(VmSamples.empty(DAY.getEpochSecond()), before));
    blocks.put(VM, held, DAY.toEpochMilli());

    GpuLoadRecorder p = started();
    sample(p, VM, 5, 20, 2048);
    assertThat(formerCurrent.get(VM)).as("converted once, then gone from the former store").isNull();
    assertThat(tenSeconds(VM, DAY).samples()).as("five samples before the upgrade and one after").isEqualTo(6);
    assertThat(tenSeconds(VM, DAY).gpuUtilMax()).isEqualTo(80.0);
    assertThat(block(VM, DAY).points()).extracting(VmSamples.Point::epochSecond)
        .containsExactly(DAY.getEpochSecond(), DAY.getEpochSecond() + 5);
    assertThat(live.get(VM).current().vmName()).isEqualTo("train-1");
    sample(p, VM, 12, 20, 2048);
    assertThat(tenSeconds.fetch(VM, DAY.toEpochMilli()).value().samples())
        .as("the window closed into its store once a newer one opened").isEqualTo(6);
    assertThat(blocks.fetch(VM, DAY.toEpochMilli()).points()).hasSize(2);
  }

  private static void hostSample(GpuLoadRecorder p, String esx, int second) {
    Instant t = DAY.plusSeconds(second);
    p.record(VM, new GpuSample(VM, esx, t, 0, null, "GRID T4-16C", "00000000:3B:00.0", 90.0, null,
        8192L, 16_384L, null, null, null, null, VgpuProfile.parse("GRID T4-16C").orElseThrow(), LoadSource.HOST,
        null), t.toEpochMilli());
  }
}
