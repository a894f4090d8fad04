package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.StunModel;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.node.CatalogRouting;
import io.stunwatch.processor.node.Decoder;
import io.stunwatch.processor.node.GuardProcessor;
import io.stunwatch.processor.node.GuardTrailProcessor;
import io.stunwatch.processor.node.HistoryUpdate;
import io.stunwatch.processor.node.IdentityResolver;
import io.stunwatch.processor.node.InventoryIndex;
import io.stunwatch.processor.node.LiveCommits;
import io.stunwatch.processor.node.MigrationProcessor;
import io.stunwatch.processor.node.ModelInputs;
import io.stunwatch.processor.node.ModelProcessor;
import io.stunwatch.processor.node.RdmaProcessor;
import io.stunwatch.processor.node.SampleHistory;
import io.stunwatch.processor.node.StunProcessor;
import io.stunwatch.processor.node.VmKeyProcessor;
import io.stunwatch.processor.node.VmotionIdProcessor;
import io.stunwatch.processor.node.VmLoadProcessor;
import io.stunwatch.processor.state.DeferredKeyValueStore;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.state.DeferredWindowStore;
import io.stunwatch.processor.state.FlushOrder;
import io.stunwatch.processor.state.StoreCodec;
import io.stunwatch.processor.view.AnnotationBlock;
import io.stunwatch.processor.view.HostGpu;
import io.stunwatch.processor.view.MigrationRow;
import io.stunwatch.processor.view.GuardState;
import io.stunwatch.processor.view.GuardTrail;
import io.stunwatch.processor.view.StoreNames;
import io.stunwatch.processor.view.ValueCodecs;
import io.stunwatch.processor.view.VmSamples;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole Stunwatch topology, built in one place. Every topic comes from the model's catalog; the state stores are
 * named in {@link StoreNames}.
 *
 * <pre>
 * host-vgpu-samples, exporter-gpu-samples ─ decode ─ resolve to VM id (global vm-inventory by name; host-gpus)
 *                 ─ repartition "resolved-gpu-by-vm" ─┐
 * gpu-samples ─ decode ─────────────────────────────────┴┬─ place on host (inventory by VM id) ─ vm-samples (per-second load history, by VM id),
 *                       │    vm-load-current, vm-load-10s, vm-load-1m, vm-load-1h (windowed load, grace process.late-grace),
 *                       │    utilization-daily (busy/idle GPU-seconds per day)
 *                       └─ dead-letters
 * vcenter-events ─ decode ─ key by VM id (global vm-inventory) ─ repartition "events-by-vm"
 *                 ─ (with every sample, which only moves stream time on)
 *                 ─ assemble migrations (migration-events, migrations) ─ alert (alerts, reads vm-samples)
 *                 ─ migrations, migration-alerts, migration-impacts, dead-letters
 * impacts and their revisions ─ model inputs ─ repartition "impacts-by-model-group" ─ stun-model ─ stun-model
 * </pre>
 *
 * Everything is partitioned by VM id (the SMBIOS UUID), so a VM's samples and its migrations meet in one task.
 */
public final class StunwatchTopology {

  private static final Logger LOG = LoggerFactory.getLogger(StunwatchTopology.class);

  /** Migrations kept as objects after their commit, per task: a few KB each. */
  static final int KEPT_MIGRATIONS = 1024;
  /** Impacts kept as objects after their commit, per task: up to a few hundred KB each. */
  static final int KEPT_IMPACTS = 32;

  private StunwatchTopology() {
  }

  /**
   * The order in which the stores the API lists by iterating reach RocksDB at each commit: the alerts before the
   * rows that say a migration is under load. One instance per built topology.
   */
  static FlushOrder listed() {
    return new FlushOrder(StoreNames.ALERTS, StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_VM_ORDER,
        StoreNames.MIGRATIONS_BY_START,
        StoreNames.ANNOTATIONS_BY_HOUR);
  }

  public static Topology build(ProcessorConfig config, Clock clock) {
    StreamsBuilder b = new StreamsBuilder();
    b.globalTable(Topics.VM_INVENTORY.name(),
        Consumed.with(Serdes.String(), Topics.VM_INVENTORY.valueSerde()).withName("vm-inventory-source"),
        Materialized.<String, VmInventoryEntry, KeyValueStore<Bytes, byte[]>>as(StoreNames.VM_INVENTORY)
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VM_INVENTORY.valueSerde()));
    b.globalTable(Topics.HOST_INVENTORY.name(),
        Consumed.with(Serdes.String(), Topics.HOST_INVENTORY.valueSerde()).withName("host-inventory-source"),
        Materialized.<String, HostInventoryEntry, KeyValueStore<Bytes, byte[]>>as(StoreNames.HOST_INVENTORY)
            .withKeySerde(Serdes.String()).withValueSerde(Topics.HOST_INVENTORY.valueSerde()));
    b.globalTable(Topics.STUN_MODEL.name(),
        Consumed.with(Serdes.String(), Topics.STUN_MODEL.valueSerde()).withName("stun-model-source"),
        Materialized.<String, StunModelEntry, KeyValueStore<Bytes, byte[]>>as(StoreNames.STUN_MODEL_GLOBAL)
            .withKeySerde(Serdes.String()).withValueSerde(Topics.STUN_MODEL.valueSerde()));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.STUN_MODEL), Serdes.String(), JsonSerde.of(StunModelEntry.class))));
    // The stores written on every sample are deferred stores (DeferredKeyValueStore, DeferredWindowStore): a write
    // is a hash-map put, and each key's last value is serialized and written once per commit. Streams' record cache
    // serialized every write and filed it in an ordered map of bytes; the per-second history, which has the most
    // keys, was uncached for that reason and cost a RocksDB read and write per sample. A migration's own state (but
    // its alert, below) is deferred too, for the JSON: an impact carries a timeline of up to a point a second, an
    // event set and a model group a list, and the record cache encoded each on every write and decoded it on every
    // read. Only the tracked-migration store stays cached, as the processor iterates it, and an iterator sees the
    // last commit.
    b.addStateStore(DeferredStores.window(Stores.windowStoreBuilder(sampleStore(config), Serdes.String(),
        ValueCodecs.BLOCK)));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.MIGRATION_EVENTS), Serdes.String(), JsonSerde.of(EventSet.class))));
    // A stun observation reads every recent migration of its VM, and revises a settled impact: the last ones written
    // are kept as objects after their commit, rather than decoded again (an impact is about 100 KB of JSON).
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.MIGRATIONS), Serdes.String(), JsonSerde.of(Migration.class)), KEPT_MIGRATIONS));
    // The alerts and the list indexes are listed by iterating their stores, and an iterator over a deferred store
    // sees the last commit: all four are flushed together at each commit, the alerts first (listed()), so that a
    // migration listed as under load is in the alerts list too. Deferred, the hour's annotation block (every
    // migration of the hour in the task) is encoded and written once a commit, not at each of its migrations' events.
    FlushOrder listed = listed();
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.ALERTS), Serdes.String(), JsonSerde.of(MigrationAlert.class)), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.IMPACTS), Serdes.String(), JsonSerde.of(MigrationImpact.class)), KEPT_IMPACTS));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.TRACKED),
        Serdes.String(), JsonSerde.of(Tracked.Migration.class)).withCachingEnabled());
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.VM_STUNS), Serdes.String(), JsonSerde.of(Tracked.Stuns.class))));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.VM_MIGRATIONS), Serdes.String(), JsonSerde.of(Tracked.Recent.class))));
    // A list request reads RocksDB's iterator alone: an iterator over a deferred store does not merge pending
    // writes (through Streams' record cache, each range also looked up every cached key of the store and merged the
    // two iterators, a fifth of a day's annotations request).
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.MIGRATIONS_BY_VM), Serdes.String(), MigrationRow.SERDE), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.MIGRATIONS_BY_VM_ORDER), Serdes.String(), Serdes.String()), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.MIGRATIONS_BY_START), Serdes.String(), MigrationRow.SERDE), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.ANNOTATIONS_BY_HOUR), Serdes.String(), AnnotationBlock.SERDE), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.RDMA_LAST), Serdes.String(), RdmaProcessor.RDMA_LAST)));
    // Written when a migration is tracked or settles; read by each reading of a VM whose migration waits (cached).
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HISTORY_PINS),
        Serdes.String(), Serdes.String()).withCachingEnabled());
    // Written once per vCenter event at most, and iterated at start-up and pruning: plain stores.
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.EVENTS_HELD),
        Serdes.String(), JsonSerde.of(Tracked.Held.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.STUNS_HELD),
        Serdes.String(), JsonSerde.of(Tracked.Held.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VMOTIONS_HELD),
        Serdes.String(), JsonSerde.of(Tracked.Held.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.CHAIN_ROUTES),
        Serdes.String(), JsonSerde.of(Tracked.Route.class)));

    InventoryIndex index = new InventoryIndex(clock, config.inventoryRefresh());
    // Readings that name no VM id (the ESXi host's, an exporter's) are resolved to their VM through the inventory
    // and go to the VM's partition, where they join the guest's own samples.
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HOST_GPUS),
        Serdes.String(), JsonSerde.of(HostGpu.class)).withCachingEnabled());
    KStream<String, GpuSample> resolved = objects(decoded(b, Topics.HOST_VGPU_SAMPLES, clock))
        .merge(objects(decoded(b, Topics.EXPORTER_GPU_SAMPLES, clock)), Named.as("host-and-exporter-gpu"))
        .process(() -> new IdentityResolver(index, clock), Named.as("resolve-gpu-readings"), StoreNames.HOST_GPUS)
        .repartition(Repartitioned.<String, GpuSample>as("resolved-gpu-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.GPU_SAMPLES.valueSerde()));
    KStream<String, GpuSample> gpu = decoded(b, Topics.GPU_SAMPLES, clock)
        .merge(resolved, Named.as("guest-and-resolved-gpu"));
    loadAndUtilization(b, gpu, config, index, clock);
    if (config.guard().enabled()) {
      // After the history has recorded the reading (the processor above is the stream's first child).
      b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
          StoreNames.GUARD_STATE), Serdes.String(), JsonSerde.of(GuardState.class))));
      gpu.process(() -> new GuardProcessor(config, index), Named.as("drs-guard"), GuardProcessor.stores())
          .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("guard-out"));
      // what the vCenter collectors did with the decisions, for GET /api/guard
      b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
          StoreNames.GUARD_TRAIL), Serdes.String(), JsonSerde.of(GuardTrail.class))));
      decoded(b, Topics.GUARD_ACTIONS, clock).process(GuardTrailProcessor::new, Named.as("guard-trail"),
          StoreNames.GUARD_TRAIL);
    }
    KStream<String, RdmaCounterSample> rdma = decoded(b, Topics.RDMA_SAMPLES, clock);
    rdma.process(() -> new RdmaProcessor(config), Named.as("vm-rdma"), StoreNames.RDMA_LAST, StoreNames.VM_SAMPLES,
        StoreNames.HISTORY_PINS);
    KStream<String, ThroughputSample> throughput = decoded(b, Topics.THROUGHPUT_SAMPLES, clock);
    throughput.process(() -> new HistoryUpdate<ThroughputSample>(config, ThroughputSample::timestamp,
        (p, t) -> VmSamples.withThroughput(p, t.scope(), t.value())), Named.as("vm-throughput"),
        StoreNames.VM_SAMPLES, StoreNames.HISTORY_PINS);
    KStream<String, StunObservation> stunsByVm = decoded(b, Topics.STUN_OBSERVATIONS, clock)
        .process(() -> new VmKeyProcessor<>(Topics.STUN_OBSERVATIONS, StunObservation::key, null,
            StoreNames.STUNS_HELD, config.inventoryHold(), null), Named.as("stun-key-by-vm"),
            StoreNames.STUNS_HELD)
        .repartition(Repartitioned.<String, StunObservation>as("stuns-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.STUN_OBSERVATIONS.valueSerde()));
    KStream<String, VmotionObservation> vmotionsByVm = decoded(b, Topics.VMOTION_OBSERVATIONS, clock)
        .process(() -> new VmKeyProcessor<>(Topics.VMOTION_OBSERVATIONS, VmotionObservation::key, null,
            StoreNames.VMOTIONS_HELD, config.inventoryHold(), null), Named.as("vmotion-key-by-vm"),
            StoreNames.VMOTIONS_HELD)
        .repartition(Repartitioned.<String, VmotionObservation>as("vmotions-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VMOTION_OBSERVATIONS.valueSerde()));
    // vmkernel.log's bandwidth names a vMotion id and no VM: it meets the VM's claim on the id in the id's task, and
    // goes on to the VM's.
    KStream<String, Tracked.Claim> claims = vmotionsByVm
        .filter((vm, v) -> v.vmotionId() != null, Named.as("vmotions-with-id"))
        .map((vm, v) -> KeyValue.pair(v.vmotionId(), new Tracked.Claim(vm)), Named.as("claim-vmotion-id"))
        .repartition(Repartitioned.<String, Tracked.Claim>as("vmotion-claims-by-id")
            .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(Tracked.Claim.class)));
    KStream<String, VmotionBandwidth> bandwidthByVm = objects(decoded(b, Topics.VMOTION_BANDWIDTH, clock))
        .merge(objects(claims), Named.as("bandwidth-and-claims"))
        .process(VmotionIdProcessor.supplier(config.historyRetention()), Named.as("vmotion-ids"))
        .repartition(Repartitioned.<String, VmotionBandwidth>as("bandwidth-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VMOTION_BANDWIDTH.valueSerde()));
    KStream<String, Object> revisions = objects(stunsByVm)
        .merge(objects(vmotionsByVm), Named.as("stuns-and-vmotions"))
        .merge(objects(bandwidthByVm), Named.as("host-logs-by-vm"))
        .process(() -> new StunProcessor(config), Named.as("vm-stuns"), StoreNames.VM_STUNS,
            StoreNames.VM_MIGRATIONS, StoreNames.IMPACTS, StoreNames.ALERTS, StoreNames.MIGRATIONS,
            StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_VM_ORDER, StoreNames.MIGRATIONS_BY_START,
            StoreNames.ANNOTATIONS_BY_HOUR);
    revisions.to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("revisions-out"));

    // An event the collector keyed by VM id is read where the VM's samples are, in their task: in a catch-up or a
    // replay Kafka Streams then takes both in timestamp order. Through a repartition hop the events would become
    // visible a commit later, after the task had run its samples ahead of them, by as much as a whole recording:
    // its migrations closed as UNKNOWN before their end was read, and the history of their range gone before it
    // could be rebuilt. Only events keyed by vCenter and moref take the hop, to be keyed by VM id.
    KStream<String, VcenterEvent> vcenterEvents = decoded(b, Topics.VCENTER_EVENTS, clock);
    KStream<String, VcenterEvent> direct = vcenterEvents.filter((k, e) -> Keys.isVmId(k), Named.as("events-by-vm-id"));
    KStream<String, VcenterEvent> events = vcenterEvents.filterNot((k, e) -> Keys.isVmId(k),
            Named.as("events-to-key"))
        .process(() -> new VmKeyProcessor<>(Topics.VCENTER_EVENTS, VcenterEvent::vmKey,
            e -> Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey()),
            StoreNames.EVENTS_HELD, config.inventoryHold(), new LiveCommits(clock)), Named.as("key-by-vm"),
            StoreNames.EVENTS_HELD, StoreNames.CHAIN_ROUTES)
        .repartition(Repartitioned.<String, VcenterEvent>as("events-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VCENTER_EVENTS.valueSerde()))
        .merge(direct, Named.as("events-keyed-and-direct"));
    // The samples pass by the migration processor too, after the processors that record them, and move its look at
    // due migrations on (see MigrationProcessor: a stream-time punctuation made the stream threads' loops tiny). The
    // most frequent kind joins last, so that it crosses one merge node.
    KStream<String, Object> outputs = objects(events)
        .merge(objects(throughput), Named.as("migrations-and-throughput"))
        .merge(objects(rdma), Named.as("migrations-and-rdma"))
        .merge(objects(gpu), Named.as("migrations-and-gpu"))
        .process(() -> new MigrationProcessor(config, clock), Named.as("migrations"),
            StoreNames.MIGRATION_EVENTS, StoreNames.MIGRATIONS, StoreNames.ALERTS, StoreNames.VM_SAMPLES,
            StoreNames.HISTORY_PINS,
            StoreNames.IMPACTS, StoreNames.TRACKED, StoreNames.VM_STUNS, StoreNames.VM_MIGRATIONS,
            StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_VM_ORDER, StoreNames.MIGRATIONS_BY_START,
            StoreNames.ANNOTATIONS_BY_HOUR);
    outputs.to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("outputs"));

    // The stun-time model: every impact and impact revision with a known stun and framebuffer feeds its groups, each
    // group in one task. It takes them as they are emitted, in the transaction that writes them to the impacts
    // topic, rather than reading that topic back: an impact carries a timeline of up to one point a second, and
    // decoding each one again would cost the stream thread as much as encoding it did.
    outputs.merge(revisions, Named.as("impacts-and-revisions"))
        .process(ModelInputs::new, Named.as("model-inputs"))
        .repartition(Repartitioned.<String, StunModel.Input>as("impacts-by-model-group")
            .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(StunModel.Input.class)))
        .process(ModelProcessor::new, Named.as("stun-model"), StoreNames.STUN_MODEL)
        .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("model-out"));
    return b.build();
  }

  /**
   * The current load, the 10 s and 1 min load windows, the daily utilization audit and the GPU figures of the
   * per-second history of each VM, all written by one {@link VmLoadProcessor}. Samples keep their VM-id key, so
   * none of this repartitions; samples of VMs the inventory does not know yet are kept and counted. The windows
   * are timestamped window stores, as Streams' windowed aggregation made them, so state and changelogs of earlier
   * builds stay readable.
   */
  private static void loadAndUtilization(StreamsBuilder b, KStream<String, GpuSample> gpu, ProcessorConfig config,
      InventoryIndex index, Clock clock) {
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.VM_LOAD_CURRENT), Serdes.String(), ValueCodecs.CURRENT_LOAD)));
    // Each VM keeps process.window-retention of these behind its own newest window (VmLoadProcessor); the stores keep
    // a skew more, so that a VM behind another of its task keeps its windows, as the per-second history does.
    Duration loadWindows = config.windowRetention().plus(SampleHistory.VM_SKEW);
    windowStore(b, StoreNames.VM_LOAD_10S, Duration.ofSeconds(10), loadWindows, ValueCodecs.LOAD_WINDOW);
    windowStore(b, StoreNames.VM_LOAD_1M, Duration.ofMinutes(1), loadWindows, ValueCodecs.LOAD_WINDOW);
    windowStore(b, StoreNames.VM_LOAD_1H, Duration.ofHours(1), StoreNames.VM_LOAD_1H_RETENTION,
        ValueCodecs.LOAD_WINDOW);
    windowStore(b, StoreNames.UTILIZATION_DAILY, Duration.ofDays(1), config.utilizationRetention(),
        ValueCodecs.UTILIZATION_DAY);
    gpu.process(() -> new VmLoadProcessor(config, index, clock), Named.as("vm-load-windows"),
        VmLoadProcessor.stores());
  }

  /**
   * The per-second history's store, as {@code process.sample-store} says. On the heap by default: it is the store
   * written most, its blocks expire within the hour, and in RocksDB each block cost a write into fresh memtable memory
   * and every half retention a new segment (a RocksDB instance opened, with its files synced), in every task.
   */
  static WindowBytesStoreSupplier sampleStore(ProcessorConfig config) {
    // Each VM keeps its own last SampleHistory.keep behind its newest block (SampleHistory deletes the rest); the
    // store keeps a skew more, so that a VM behind another of its task (a replay one VM after another, a host's
    // readings a hop behind) keeps its history.
    Duration retention = SampleHistory.keep(config).plus(SampleHistory.VM_SKEW);
    Duration size = Duration.ofSeconds(VmSamples.Block.SECONDS);
    return switch (config.sampleStore()) {
      case MEMORY -> Stores.inMemoryWindowStore(StoreNames.VM_SAMPLES, retention, size, false);
      case ROCKSDB -> Stores.persistentWindowStore(StoreNames.VM_SAMPLES, retention, size, false);
    };
  }

  private static <V> void windowStore(StreamsBuilder b, String name, Duration size, Duration retention,
      StoreCodec<V> codec) {
    b.addStateStore(DeferredStores.timestampedWindow(Stores.timestampedWindowStoreBuilder(
        Stores.persistentTimestampedWindowStore(name, retention, size, false), Serdes.String(), codec)));
  }

  /** The same stream, seen as carrying objects: a processor taking several kinds tells them apart by type. */
  @SuppressWarnings("unchecked")
  private static KStream<String, Object> objects(KStream<String, ?> stream) {
    return (KStream<String, Object>) stream;
  }

  /**
   * A catalog topic read as bytes and decoded ({@link Decoder}); what does not decode goes to the dead letters, keyed
   * by topic.
   */
  @SuppressWarnings("unchecked")
  private static <V> KStream<String, V> decoded(StreamsBuilder b, Topic<String, V> topic, Clock clock) {
    String name = topic.name().substring(Topics.PREFIX.length());
    String deadLetters = name + "-undecodable";
    KStream<String, Object> d = b.stream(topic.name(),
            Consumed.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-source"))
        .process(() -> new Decoder<>(topic, clock, deadLetters), Named.as(name + "-decode"));
    // Every value passes by here too (see Decoder): only dead letters go on.
    d.filter((k, v) -> v instanceof DeadLetter, Named.as(deadLetters))
        .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName(name + "-dlq"));
    return (KStream<String, V>) (KStream<String, ?>) d;
  }

}
