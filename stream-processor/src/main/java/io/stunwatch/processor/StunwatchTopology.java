package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * The whole Stunwatch topology, built in one place. Every topic comes from the model's catalog; the state stores are
 * named in {@link StoreNames}.
 *
 * <pre>
 * gpu-samples ─ decode ─┬─ place on host (inventory by VM id) ─ vm-samples (per-second load history, by VM id),
 *                       │    vm-load-current, vm-load-10s, vm-load-1m (windowed load, grace process.late-grace),
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

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StunwatchTopology.class);

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
    return new FlushOrder(StoreNames.ALERTS, StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_START,
        StoreNames.ANNOTATIONS_BY_HOUR);
  }

  public static Topology build(ProcessorConfig config, Clock clock) {
    StreamsBuilder b = new StreamsBuilder();
    b.globalTable(Topics.VM_INVENTORY.name(),
        Consumed.with(Serdes.String(), Topics.VM_INVENTORY.valueSerde()).withName("vm-inventory-source"),
        Materialized.<String, VmInventoryEntry, KeyValueStore<Bytes, byte[]>>as(StoreNames.VM_INVENTORY)
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VM_INVENTORY.valueSerde()));
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
        StoreCodec.BLOCK)));
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
        StoreNames.MIGRATIONS_BY_START), Serdes.String(), MigrationRow.SERDE), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.ANNOTATIONS_BY_HOUR), Serdes.String(), AnnotationBlock.SERDE), listed));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.RDMA_LAST), Serdes.String(), StoreCodec.RDMA_LAST)));
    // Written once per vCenter event at most, and iterated at start-up and pruning: plain stores.
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.EVENTS_HELD),
        Serdes.String(), JsonSerde.of(Tracked.Held.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.STUNS_HELD),
        Serdes.String(), JsonSerde.of(Tracked.Held.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.CHAIN_ROUTES),
        Serdes.String(), JsonSerde.of(Tracked.Route.class)));

    KStream<String, GpuSample> gpu = decoded(b, Topics.GPU_SAMPLES, clock);
    loadAndUtilization(b, gpu, config, clock);
    KStream<String, RdmaCounterSample> rdma = decoded(b, Topics.RDMA_SAMPLES, clock);
    rdma.process(RdmaProcessor::new, Named.as("vm-rdma"), StoreNames.RDMA_LAST, StoreNames.VM_SAMPLES);
    KStream<String, ThroughputSample> throughput = decoded(b, Topics.THROUGHPUT_SAMPLES, clock);
    throughput.process(() -> new HistoryUpdate<ThroughputSample>(ThroughputSample::timestamp,
        (p, t) -> VmSamples.withThroughput(p, t.scope(), t.value())), Named.as("vm-throughput"), StoreNames.VM_SAMPLES);
    KStream<String, Object> revisions = decoded(b, Topics.STUN_OBSERVATIONS, clock)
        .process(() -> new VmKeyProcessor<>(Topics.STUN_OBSERVATIONS, StunObservation::key, null,
            StoreNames.STUNS_HELD, config.inventoryHold(), null), Named.as("stun-key-by-vm"),
            StoreNames.STUNS_HELD)
        .repartition(Repartitioned.<String, StunObservation>as("stuns-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.STUN_OBSERVATIONS.valueSerde()))
        .process(() -> new StunProcessor(config), Named.as("vm-stuns"), StoreNames.VM_STUNS,
            StoreNames.VM_MIGRATIONS, StoreNames.IMPACTS, StoreNames.ALERTS, StoreNames.MIGRATIONS,
            StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_START,
            StoreNames.ANNOTATIONS_BY_HOUR);
    revisions.to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("revisions-out"));

    KStream<String, VcenterEvent> events = decoded(b, Topics.VCENTER_EVENTS, clock)
        .process(() -> new VmKeyProcessor<>(Topics.VCENTER_EVENTS, VcenterEvent::vmKey,
            e -> Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey()),
            StoreNames.EVENTS_HELD, config.inventoryHold(), new LiveCommits(clock)), Named.as("key-by-vm"),
            StoreNames.EVENTS_HELD, StoreNames.CHAIN_ROUTES)
        .repartition(Repartitioned.<String, VcenterEvent>as("events-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VCENTER_EVENTS.valueSerde()));
    // The samples pass by the migration processor too, after the processors that record them, and move its look at
    // due migrations on (see MigrationProcessor: a stream-time punctuation made the stream threads' loops tiny). The
    // most frequent kind joins last, so that it crosses one merge node.
    KStream<String, Object> outputs = objects(events)
        .merge(objects(throughput), Named.as("migrations-and-throughput"))
        .merge(objects(rdma), Named.as("migrations-and-rdma"))
        .merge(objects(gpu), Named.as("migrations-and-gpu"))
        .process(() -> new MigrationProcessor(config, clock), Named.as("migrations"),
            StoreNames.MIGRATION_EVENTS, StoreNames.MIGRATIONS, StoreNames.ALERTS, StoreNames.VM_SAMPLES,
            StoreNames.IMPACTS, StoreNames.TRACKED, StoreNames.VM_STUNS, StoreNames.VM_MIGRATIONS,
            StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_START,
            StoreNames.ANNOTATIONS_BY_HOUR);
    outputs.to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("outputs"));

    // The stun-time model: every impact and impact revision with a known stun and framebuffer feeds its groups, each
    // group in one task. It takes them as they are emitted, in the transaction that writes them to the impacts
    // topic, rather than reading that topic back: an impact carries a timeline of up to one point a second, and
    // decoding each one again took 7 % of the stream thread in a catch-up.
    outputs.merge(revisions, Named.as("impacts-and-revisions"))
        .flatMap((k, v) -> v instanceof MigrationImpact impact ? StunModel.inputs(impact).stream()
            .map(in -> org.apache.kafka.streams.KeyValue.pair(in.key(), in)).toList()
            : List.<org.apache.kafka.streams.KeyValue<String, StunModel.Input>>of(), Named.as("model-inputs"))
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
      Clock clock) {
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.VM_LOAD_CURRENT), Serdes.String(), StoreCodec.CURRENT_LOAD)));
    windowStore(b, StoreNames.VM_LOAD_10S, Duration.ofSeconds(10), config.windowRetention(), StoreCodec.LOAD_WINDOW);
    windowStore(b, StoreNames.VM_LOAD_1M, Duration.ofMinutes(1), config.windowRetention(), StoreCodec.LOAD_WINDOW);
    windowStore(b, StoreNames.UTILIZATION_DAILY, Duration.ofDays(1), config.utilizationRetention(),
        StoreCodec.UTILIZATION_DAY);
    InventoryIndex index = new InventoryIndex(clock, config.inventoryRefresh());
    gpu.process(() -> new VmLoadProcessor(config, index, clock), Named.as("vm-load-windows"),
        VmLoadProcessor.stores());
  }

  /**
   * The per-second history's store, as {@code process.sample-store} says. On the heap by default: it is the store
   * written most, its blocks expire within the hour, and in RocksDB each block cost a write into fresh memtable memory
   * and every half retention a new segment (a RocksDB instance opened, with its files synced), in every task.
   */
  static WindowBytesStoreSupplier sampleStore(ProcessorConfig config) {
    Duration retention = config.sampleRetention().plus(config.lateGrace()).plusSeconds(VmSamples.Block.SECONDS);
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

  /** Updates one group of the stun-time model per input. */
  static final class ModelProcessor implements Processor<String, StunModel.Input, String, Object> {
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, StunModelEntry> model;

    @Override
    public void init(ProcessorContext<String, Object> context) {
      this.context = context;
      this.model = context.getStateStore(StoreNames.STUN_MODEL);
    }

    @Override
    public void process(Record<String, StunModel.Input> record) {
      StunModelEntry old = model.get(record.key());
      StunModelEntry next = StunModel.update(old, record.value());
      if (next != old) {
        model.put(record.key(), next);
        // Timestamped with the entry's own time, which never goes back for a key: the global table warns of (and
        // a versioned store would refuse) an update older than the one it holds.
        context.forward(record.withValue(next).withTimestamp(next.updatedAt().toEpochMilli()));
      }
    }
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

  /**
   * Keeps each VM's recent vmware.log stun observations for impacts to come, and revises an impact already closed
   * without one: in a catch-up the observation (one repartition hop behind) can arrive after the VM's samples have
   * run past the settle window, and the impact, its alert and the model must end with the log's figure all the same.
   */
  static final class StunProcessor implements Processor<String, StunObservation, String, Object> {
    private final ProcessorConfig config;
    private ProcessorContext<String, Object> context;
    private KeyValueStore<String, Tracked.Stuns> stuns;
    private KeyValueStore<String, Tracked.Recent> recent;
    private KeyValueStore<String, MigrationImpact> impacts;
    private KeyValueStore<String, MigrationAlert> alerts;
    private KeyValueStore<String, Migration> migrations;
    private MigrationIndex index;

    StunProcessor(ProcessorConfig config) {
      this.config = config;
    }

    @Override
    public void init(ProcessorContext<String, Object> context) {
      this.context = context;
      stuns = context.getStateStore(StoreNames.VM_STUNS);
      recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
      impacts = context.getStateStore(StoreNames.IMPACTS);
      alerts = context.getStateStore(StoreNames.ALERTS);
      migrations = context.getStateStore(StoreNames.MIGRATIONS);
      index = new MigrationIndex(context);
    }

    @Override
    public void process(Record<String, StunObservation> record) {
      Tracked.Stuns old = stuns.get(record.key());
      Tracked.Stuns now = (old == null ? new Tracked.Stuns(null) : old).with(record.value());
      stuns.put(record.key(), now);
      Tracked.Recent ids = recent.get(record.key());
      for (String id : ids == null ? List.<String>of() : ids.migrationIds()) {
        // The migration as stored is the impact's (a revision of one revises the other), and far smaller to read:
        // most observations belong to no settled migration, so the impact is read only for one they change.
        Migration m = migrations.get(id);
        if (m == null || m.startTime() == null) {
          continue;
        }
        io.stunwatch.model.StunTime stun = ImpactBuilder.stun(m, List.of(), now.stuns());
        if (stun.source() != io.stunwatch.model.StunTime.Source.VMWARE_LOG) {
          continue; // nothing from the log for this migration
        }
        MigrationImpact i = impacts.get(id);
        if (i == null || stun.equals(i.stun())) {
          continue; // not settled yet (its impact will read the log when it is), or nothing new
        }
        MigrationImpact revised = ImpactBuilder.withStun(i, stun);
        impacts.put(id, revised);
        context.forward(new Record<>(id, revised, record.timestamp()));
        MigrationAlert a = alerts.get(id);
        if (a != null && a.measured() != null) {
          MigrationAlert.Measured was = a.measured();
          MigrationAlert updated = new MigrationAlert(a.migrationId(), a.state(), a.vmMoref(), a.vmName(), a.vmId(),
              a.sourceHost(), a.destHost(), a.initiator(), a.vgpuProfile(), a.load(), a.reasons(), a.forecast(),
              a.raisedAt(), a.updatedAt(), new MigrationAlert.Measured(was.result(), was.durationSeconds(), stun,
                  revised.throughputDipPct())); // the dip counts the stunned seconds: it follows the stun
          alerts.put(id, updated);
          context.forward(new Record<>(id, updated, record.timestamp()));
        }
        index.refresh(record.key(), m, revised);
      }
    }
  }

  /** Merges each record into its VM's point of the second it was taken in. */
  static final class HistoryUpdate<V> implements Processor<String, V, Void, Void> {
    private final java.util.function.Function<V, java.time.Instant> timeOf;
    private final java.util.function.BiFunction<VmSamples.Point, V, VmSamples.Point> merge;
    private SampleHistory history;

    HistoryUpdate(java.util.function.Function<V, java.time.Instant> timeOf,
        java.util.function.BiFunction<VmSamples.Point, V, VmSamples.Point> merge) {
      this.timeOf = timeOf;
      this.merge = merge;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      history = new SampleHistory(context);
    }

    @Override
    public void process(Record<String, V> record) {
      history.update(record.key(), timeOf.apply(record.value()), p -> merge.apply(p, record.value()));
    }
  }

  /** Turns each VM's raw RDMA counters into rates in its per-second history. */
  static final class RdmaProcessor implements Processor<String, RdmaCounterSample, Void, Void> {
    private KeyValueStore<String, RdmaRates.Last> last;
    /** What this processor, the store's only writer, last wrote per VM: no read and decoding per sample. */
    private final Map<String, RdmaRates.Last> held = new java.util.HashMap<>();
    private SampleHistory samples;

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      last = context.getStateStore(StoreNames.RDMA_LAST);
      held.clear(); // (re)initialized after the task's stores were restored
      samples = new SampleHistory(context);
    }

    @Override
    public void process(Record<String, RdmaCounterSample> record) {
      RdmaCounterSample s = record.value();
      RdmaRates.Last before = held.get(record.key());
      if (before == null) {
        before = last.get(record.key());
      }
      RdmaCounterSample prev = before == null ? null : before.ports().get(RdmaRates.portKey(s));
      if (prev != null && !s.timestamp().isAfter(prev.timestamp())) {
        return; // late or repeated: the newer reading stays the reference
      }
      Double rate = RdmaRates.bytesPerSecond(prev, s);
      RdmaRates.Last next = (before == null ? new RdmaRates.Last(null) : before).with(s);
      last.put(record.key(), next);
      held.put(record.key(), next);
      if (rate != null) {
        samples.update(record.key(), s.timestamp(), p -> VmSamples.withRdma(p, rate));
      }
    }
  }

  /**
   * Re-keys a vCenter-side record to its VM id, so that it meets the VM's samples: the record's own key when the
   * collector already keyed it by VM id, else the VM id the global inventory gives its {@code <vcenter>/<moref>}.
   *
   * <p>A record of a VM the inventory does not know yet is held, in a store (a restart keeps it), until the VM's entry
   * arrives, for at most {@code process.inventory-hold} of wall time; then it goes on under {@code vc:<vcenter>/<moref>}
   * and is counted ({@code inventory-hold-expired}). Later records of a held VM wait behind it, in order. Each
   * migration's events go under the key its first event went under ({@link StoreNames#CHAIN_ROUTES}): one chain is
   * never two records, whatever the inventory learns or forgets in between.
   */
  static final class VmKeyProcessor<V> implements Processor<String, V, String, V> {
    /** How long a chain's route is kept past its first event, in event time. */
    static final Duration ROUTE_RETENTION = Duration.ofDays(2);
    private final Topic<String, V> topic;
    private final java.util.function.Function<V, String> vmKeyOf;
    /** The migration id of a record, or null for records of no chain. */
    private final java.util.function.Function<V, String> chainOf;
    private final String heldStore;
    private final Duration hold;
    /** Commits a live record's hop at once (vCenter events, which alerts wait on), or null. */
    private final LiveCommits live;
    private ProcessorContext<String, V> context;
    private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
    private KeyValueStore<String, Tracked.Held> held;
    private KeyValueStore<String, Tracked.Route> routes;
    /** The keys {@link #held} holds, with their first record's wall time: the store's only writer keeps it. */
    private final Map<String, Long> holding = new java.util.TreeMap<>();
    private Sensor heldSensor;
    private Sensor expiredSensor;

    VmKeyProcessor(Topic<String, V> topic, java.util.function.Function<V, String> vmKeyOf,
        java.util.function.Function<V, String> chainOf, String heldStore, Duration hold, LiveCommits live) {
      this.topic = topic;
      this.vmKeyOf = vmKeyOf;
      this.chainOf = chainOf;
      this.heldStore = heldStore;
      this.hold = hold;
      this.live = live;
    }

    @Override
    public void init(ProcessorContext<String, V> context) {
      this.context = context;
      this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
      this.held = context.getStateStore(heldStore);
      this.routes = chainOf == null ? null : context.getStateStore(StoreNames.CHAIN_ROUTES);
      holding.clear(); // (re)initialized after the task's stores were restored
      try (KeyValueIterator<String, Tracked.Held> it = held.all()) {
        it.forEachRemaining(kv -> holding.put(kv.key, kv.value.sinceWall()));
      }
      String name = topic.name().substring(Topics.PREFIX.length());
      heldSensor = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
          "inventory-held-" + name, Sensor.RecordingLevel.INFO);
      expiredSensor = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
          "inventory-hold-expired-" + name, Sensor.RecordingLevel.INFO);
      context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, this::releaseDue);
      if (routes != null) {
        context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME, now -> pruneRoutes());
      }
    }

    @Override
    public void process(Record<String, V> record) {
      String vmKey = vmKeyOf.apply(record.value());
      String key = Keys.isVmId(record.key()) ? record.key() : vmId(vmKey);
      if (holding.containsKey(vmKey)) {
        if (key == null) {
          hold(vmKey, record); // behind the VM's records held before it
          return;
        }
        release(vmKey, key);
      } else if (key == null) {
        if (!hold.isZero()) {
          hold(vmKey, record);
          return;
        }
        expiredSensor.record();
        key = "vc:" + vmKey;
      }
      forward(record, key);
    }

    @Override
    public void close() {
      // The task may come back to this instance after a rebalance and register its sensors again.
      context.metrics().removeSensor(heldSensor);
      context.metrics().removeSensor(expiredSensor);
    }

    private String vmId(String vmKey) {
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(vmKey);
      return vm != null && vm.value() != null && vm.value().biosUuid() != null ? vm.value().biosUuid() : null;
    }

    private void hold(String vmKey, Record<String, V> record) {
      Tracked.Held h = held.get(vmKey);
      if (h == null) {
        h = new Tracked.Held(null, null, context.currentSystemTimeMs());
        holding.put(vmKey, h.sinceWall());
      }
      held.put(vmKey, h.with(new String(topic.encodeValue(record.value()), java.nio.charset.StandardCharsets.UTF_8),
          record.timestamp()));
      heldSensor.record();
    }

    /** Sends on what is held for the VM {@code vmKey}, in order, under {@code key}. */
    private void release(String vmKey, String key) {
      Tracked.Held h = held.get(vmKey);
      held.delete(vmKey);
      holding.remove(vmKey);
      if (h == null) {
        return;
      }
      for (int i = 0; i < h.values().size(); i++) {
        V value = topic.valueSerde().deserializer().deserialize(topic.name(),
            h.values().get(i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        forward(new Record<>(vmKey, value, h.timestamps().get(i)), key);
      }
    }

    /** Releases held records whose VM the inventory now knows, and those held for longer than the hold. */
    private void releaseDue(long now) {
      for (Map.Entry<String, Long> e : List.copyOf(holding.entrySet())) {
        String id = vmId(e.getKey());
        if (id != null) {
          release(e.getKey(), id);
        } else if (now - e.getValue() >= hold.toMillis()) {
          Tracked.Held h = held.get(e.getKey());
          for (int i = 0; h != null && i < h.values().size(); i++) {
            expiredSensor.record();
          }
          LOG.warn("{}: {} record(s) of {} held {} s for its inventory entry, which has not come; sent on under its "
              + "vCenter key, where they do not meet the VM's samples", topic.name(),
              h == null ? 0 : h.values().size(), e.getKey(), (now - e.getValue()) / 1000);
          release(e.getKey(), "vc:" + e.getKey());
        }
      }
    }

    private void forward(Record<String, V> record, String key) {
      String chain = chainOf == null ? null : chainOf.apply(record.value());
      if (chain != null) {
        Tracked.Route route = routes.get(chain);
        if (route == null) {
          routes.put(chain, new Tracked.Route(key, record.timestamp()));
        } else {
          key = route.key();
        }
      }
      context.forward(record.withKey(key));
      if (live != null) {
        live.requestIfLive(context, record.timestamp());
      }
    }

    private void pruneRoutes() {
      long before = context.currentStreamTimeMs() - ROUTE_RETENTION.toMillis();
      List<String> old = new ArrayList<>();
      try (KeyValueIterator<String, Tracked.Route> it = routes.all()) {
        it.forEachRemaining(kv -> {
          if (kv.value.millis() < before) {
            old.add(kv.key);
          }
        });
      }
      old.forEach(routes::delete);
    }
  }
}
