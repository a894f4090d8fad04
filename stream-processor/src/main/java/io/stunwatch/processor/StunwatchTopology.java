package io.stunwatch.processor;

import io.stunwatch.model.GpuSample;
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
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The whole Stunwatch topology, built in one place. Every topic comes from the model's catalog; the state stores are
 * named in {@link StoreNames}.
 *
 * <pre>
 * gpu-samples ─ decode ─┬─ vm-samples (per-second load history, by VM id)
 *                       └─ dead-letters
 * vcenter-events ─ decode ─ key by VM id (global vm-inventory) ─ repartition "events-by-vm"
 *                 ─ assemble migrations (migration-events, migrations) ─ alert (alerts, reads vm-samples)
 *                 ─ migrations, migration-alerts, dead-letters
 * </pre>
 *
 * Everything is partitioned by VM id (the SMBIOS UUID), so a VM's samples and its migrations meet in one task.
 */
public final class StunwatchTopology {

  private StunwatchTopology() {
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
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.STUN_MODEL),
        Serdes.String(), JsonSerde.of(StunModelEntry.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VM_SAMPLES),
        Serdes.String(), JsonSerde.of(VmSamples.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.MIGRATION_EVENTS),
        Serdes.String(), JsonSerde.of(EventSet.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.MIGRATIONS),
        Serdes.String(), JsonSerde.of(Migration.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.ALERTS),
        Serdes.String(), JsonSerde.of(MigrationAlert.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.IMPACTS),
        Serdes.String(), JsonSerde.of(MigrationImpact.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.TRACKED),
        Serdes.String(), JsonSerde.of(Tracked.Migration.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VM_STUNS),
        Serdes.String(), JsonSerde.of(Tracked.Stuns.class)));
    b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.RDMA_LAST),
        Serdes.String(), JsonSerde.of(RdmaRates.Last.class)));

    KStream<String, GpuSample> gpu = decoded(b, Topics.GPU_SAMPLES, clock);
    Duration retention = config.sampleRetention();
    gpu.process(() -> new UpdateStore<GpuSample, VmSamples>(StoreNames.VM_SAMPLES,
        (old, s) -> (old == null ? new VmSamples(null) : old).with(s, retention)), Named.as("vm-load"),
        StoreNames.VM_SAMPLES);
    decoded(b, Topics.RDMA_SAMPLES, clock)
        .process(() -> new RdmaProcessor(config), Named.as("vm-rdma"), StoreNames.RDMA_LAST, StoreNames.VM_SAMPLES);
    decoded(b, Topics.THROUGHPUT_SAMPLES, clock)
        .process(() -> new UpdateStore<ThroughputSample, VmSamples>(StoreNames.VM_SAMPLES,
            (old, t) -> (old == null ? new VmSamples(null) : old).withThroughput(t.timestamp(), t.value(), retention)),
            Named.as("vm-throughput"), StoreNames.VM_SAMPLES);
    decoded(b, Topics.STUN_OBSERVATIONS, clock)
        .process(() -> new VmKeyProcessor<StunObservation>(StunObservation::key), Named.as("stun-key-by-vm"))
        .repartition(Repartitioned.<String, StunObservation>as("stuns-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.STUN_OBSERVATIONS.valueSerde()))
        .process(() -> new UpdateStore<StunObservation, Tracked.Stuns>(StoreNames.VM_STUNS,
            (old, o) -> (old == null ? new Tracked.Stuns(null) : old).with(o)), Named.as("vm-stuns"),
            StoreNames.VM_STUNS);

    decoded(b, Topics.VCENTER_EVENTS, clock)
        .process(() -> new VmKeyProcessor<VcenterEvent>(VcenterEvent::vmKey), Named.as("key-by-vm"))
        .repartition(Repartitioned.<String, VcenterEvent>as("events-by-vm")
            .withKeySerde(Serdes.String()).withValueSerde(Topics.VCENTER_EVENTS.valueSerde()))
        .process(() -> new MigrationProcessor(config, clock), Named.as("migrations"),
            StoreNames.MIGRATION_EVENTS, StoreNames.MIGRATIONS, StoreNames.ALERTS, StoreNames.VM_SAMPLES,
            StoreNames.IMPACTS, StoreNames.TRACKED, StoreNames.VM_STUNS)
        .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("outputs"));

    // The stun-time model: every impact with a known stun and framebuffer feeds its groups, each group in one task.
    decoded(b, Topics.MIGRATION_IMPACTS, clock)
        .flatMap((k, impact) -> StunModel.inputs(impact).stream()
            .map(in -> org.apache.kafka.streams.KeyValue.pair(in.key(), in)).toList(), Named.as("model-inputs"))
        .repartition(Repartitioned.<String, StunModel.Input>as("impacts-by-model-group")
            .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(StunModel.Input.class)))
        .process(ModelProcessor::new, Named.as("stun-model"), StoreNames.STUN_MODEL)
        .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName("model-out"));
    return b.build();
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
        context.forward(record.withValue(next));
      }
    }
  }

  /** A catalog topic read as bytes and decoded; what does not decode goes to the dead letters, keyed by topic. */
  private static <V> KStream<String, V> decoded(StreamsBuilder b, Topic<String, V> topic, Clock clock) {
    String name = topic.name().substring(Topics.PREFIX.length());
    KStream<String, Decoded<V>> d = b.stream(topic.name(),
            Consumed.with(Serdes.String(), Serdes.ByteArray()).withName(name + "-source"))
        .processValues(() -> new Decoded.Decoder<>(topic, clock), Named.as(name + "-decode"));
    d.filter((k, v) -> !v.ok(), Named.as(name + "-undecodable"))
        .map((k, v) -> org.apache.kafka.streams.KeyValue.pair(topic.name(), (Object) v.deadLetter()),
            Named.as(name + "-dead-letter"))
        .to(CatalogRouting.TOPIC, Produced.with(Serdes.String(), CatalogRouting.VALUE).withName(name + "-dlq"));
    return d.filter((k, v) -> v.ok(), Named.as(name + "-decoded")).mapValues(Decoded::value, Named.as(name + "-value"));
  }

  /**
   * Folds each record into the store value of its key: {@code update} gets the current value (null at first) and
   * returns the new one.
   */
  static final class UpdateStore<V, S> implements Processor<String, V, Void, Void> {
    private final String store;
    private final java.util.function.BiFunction<S, V, S> update;
    private KeyValueStore<String, S> values;

    UpdateStore(String store, java.util.function.BiFunction<S, V, S> update) {
      this.store = store;
      this.update = update;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      values = context.getStateStore(store);
    }

    @Override
    public void process(Record<String, V> record) {
      values.put(record.key(), update.apply(values.get(record.key()), record.value()));
    }
  }

  /** Turns each VM's raw RDMA counters into rates in its per-second history. */
  static final class RdmaProcessor implements Processor<String, RdmaCounterSample, Void, Void> {
    private final ProcessorConfig config;
    private KeyValueStore<String, RdmaRates.Last> last;
    private KeyValueStore<String, VmSamples> samples;

    RdmaProcessor(ProcessorConfig config) {
      this.config = config;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
      last = context.getStateStore(StoreNames.RDMA_LAST);
      samples = context.getStateStore(StoreNames.VM_SAMPLES);
    }

    @Override
    public void process(Record<String, RdmaCounterSample> record) {
      RdmaCounterSample s = record.value();
      RdmaRates.Last before = last.get(record.key());
      RdmaCounterSample prev = before == null ? null : before.ports().get(RdmaRates.portKey(s));
      if (prev != null && !s.timestamp().isAfter(prev.timestamp())) {
        return; // late or repeated: the newer reading stays the reference
      }
      Double rate = RdmaRates.bytesPerSecond(prev, s);
      last.put(record.key(), (before == null ? new RdmaRates.Last(null) : before).with(s));
      if (rate != null) {
        VmSamples old = samples.get(record.key());
        samples.put(record.key(), (old == null ? new VmSamples(null) : old).withRdma(s.timestamp(), rate,
            config.sampleRetention()));
      }
    }
  }

  /**
   * Re-keys a vCenter-side record from {@code <vcenter>/<moref>} to the VM id through the global inventory; a VM
   * the inventory does not know yet keeps a {@code vc:} key, so its migrations are still assembled.
   */
  static final class VmKeyProcessor<V> implements Processor<String, V, String, V> {
    private final java.util.function.Function<V, String> vmKeyOf;
    private ProcessorContext<String, V> context;
    private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;

    VmKeyProcessor(java.util.function.Function<V, String> vmKeyOf) {
      this.vmKeyOf = vmKeyOf;
    }

    @Override
    public void init(ProcessorContext<String, V> context) {
      this.context = context;
      this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    }

    @Override
    public void process(Record<String, V> record) {
      String vmKey = vmKeyOf.apply(record.value());
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(vmKey);
      String key = vm != null && vm.value() != null && vm.value().biosUuid() != null ? vm.value().biosUuid()
          : "vc:" + vmKey;
      context.forward(record.withKey(key));
    }
  }
}
