package io.stunwatch.processor;

import io.stunwatch.model.GuardAction;
import io.stunwatch.model.HostGpuReading;
import io.stunwatch.model.Keys;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.domain.StunModel;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.support.CatalogSink;
import io.stunwatch.processor.support.DecodeMemo;
import io.stunwatch.processor.support.DeadLetterDeserializationExceptionHandler;
import io.stunwatch.processor.support.DeadLetterProcessingExceptionHandler;
import io.stunwatch.processor.processors.GuardProcessor;
import io.stunwatch.processor.processors.GuardTrailProcessor;
import io.stunwatch.processor.processors.IdentityResolver;
import io.stunwatch.processor.support.InputSerdes;
import io.stunwatch.processor.processors.InventoryIndex;
import io.stunwatch.processor.processors.LiveCommits;
import io.stunwatch.processor.processors.MigrationOwnersProcessor;
import io.stunwatch.processor.processors.MigrationProcessor;
import io.stunwatch.processor.processors.ModelInputProcessor;
import io.stunwatch.processor.processors.ModelProcessor;
import io.stunwatch.processor.support.StoreRegistry;
import io.stunwatch.processor.processors.VmKeyProcessor;
import io.stunwatch.processor.processors.VmReadingsProcessor;
import io.stunwatch.processor.processors.VmotionIdProcessor;
import io.stunwatch.processor.readmodel.MigrationOwner;
import io.stunwatch.processor.readmodel.StoreNames;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The whole Stunwatch topology, built in one place. Every topic comes from the model's catalog. Each processor
 * declares the stores it writes, which no other processor writes, and those it reads ({@link StoreRegistry}); the
 * topology adds none itself.
 *
 * <pre>
 * host-vgpu-samples, exporter-gpu-samples ─ resolve to VM id (global vm-inventory by name; host-gpus)
 *                 ─ repartition "resolved-gpu-by-vm" ─┐
 * gpu-samples, rdma-samples, throughput-samples ──────┴─ vm-readings (per-second history, load windows, utilization
 *                 days, RDMA counters) ─┬─ drs-guard ─ guard decisions
 *                                       └──────────────────────────────┐
 * vcenter-events ─ (keyed by vCenter and moref: key by VM id, repartition "events-by-vm") ┤
 * stun-observations, vmotion-observations ─ key by VM id ─ repartition ───────────────────┤
 * vmotion-bandwidth ─ join the VM's claim on the vMotion id ─ repartition ────────────────┴─ migrations
 *                 ─ migrations, migration-alerts, migration-impacts, dead-letters
 * new migrations' VMs ─ repartition "migration-owners-by-id" ─ migration-owners
 * impacts ─ model inputs ─ repartition "impacts-by-model-group" ─ stun-model ─ stun-model
 * guard-actions ─ guard-trail
 * </pre>
 *
 * Everything is partitioned by VM id (the SMBIOS UUID), so a VM's readings, events and host logs meet in one task.
 * A value that does not decode never enters it: it is a dead letter of the deserialization exception handler
 * ({@link DeadLetterDeserializationExceptionHandler}), which {@link #errorHandling} configures.
 */
public final class StunwatchTopology {

  private StunwatchTopology() {
  }

  /** The exception handlers the topology relies on, for the Streams configuration {@code p}. */
  public static void errorHandling(Map<Object, Object> p, Clock clock) {
    p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG,
        DeadLetterDeserializationExceptionHandler.class);
    p.put(DeadLetterDeserializationExceptionHandler.CLOCK_CONFIG, clock);
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingExceptionHandler.class);
  }

  public static Topology build(ProcessorConfig config, Clock clock) {
    return build(config, clock, new StoreRegistry());
  }

  /** The topology, with every store declared in {@code stores}. */
  static Topology build(ProcessorConfig config, Clock clock, StoreRegistry stores) {
    StreamsBuilder b = new StreamsBuilder();
    globalTable(b, Topics.VM_INVENTORY, StoreNames.VM_INVENTORY);
    globalTable(b, Topics.HOST_INVENTORY, StoreNames.HOST_INVENTORY);
    globalTable(b, Topics.STUN_MODEL, StoreNames.STUN_MODEL_GLOBAL);
    stores.own(VmReadingsProcessor.NAME, VmReadingsProcessor.stores(config));
    stores.own(MigrationProcessor.NAME, MigrationProcessor.stores());
    stores.own(IdentityResolver.NAME, IdentityResolver.stores());
    stores.own(STUN_KEYS, VmKeyProcessor.stores(StoreNames.STUNS_HELD, false));
    stores.own(VMOTION_KEYS, VmKeyProcessor.stores(StoreNames.VMOTIONS_HELD, false));
    stores.own(EVENT_KEYS, VmKeyProcessor.stores(StoreNames.EVENTS_HELD, true));
    stores.own(VmotionIdProcessor.NAME, VmotionIdProcessor.stores());
    stores.own(ModelProcessor.NAME, ModelProcessor.stores());
    InventoryIndex index = new InventoryIndex(clock, config.inventoryRefresh());

    // Readings that name no VM id (the ESXi host's, an exporter's) are resolved to their VM through the inventory
    // and go to the VM's partition, where they join the guest's own samples.
    KStream<String, VmInput> resolved = stream(b, Topics.HOST_VGPU_SAMPLES, HostGpuReading.class)
        .merge(stream(b, Topics.EXPORTER_GPU_SAMPLES, HostGpuReading.class), Named.as("host-and-exporter-gpu"))
        .process(stores.supplier(IdentityResolver.NAME, () -> new IdentityResolver(index, clock)),
            Named.as(IdentityResolver.NAME))
        .repartition(Repartitioned.<String, VmInput>as("resolved-gpu-by-vm")
            .withKeySerde(InputSerdes.KEYS).withValueSerde(InputSerdes.of(Topics.GPU_SAMPLES)));
    // The most frequent kind joins last, so that it crosses one merge node.
    KStream<String, VmInput> readings = stream(b, Topics.THROUGHPUT_SAMPLES, VmInput.class)
        .merge(stream(b, Topics.RDMA_SAMPLES, VmInput.class), Named.as("throughput-and-rdma"))
        .merge(resolved, Named.as("and-resolved-gpu"))
        .merge(stream(b, Topics.GPU_SAMPLES, VmInput.class), Named.as("and-guest-gpu"))
        .process(stores.supplier(VmReadingsProcessor.NAME, () -> new VmReadingsProcessor(config, index, clock),
            StoreNames.HISTORY_PINS), Named.as(VmReadingsProcessor.NAME));
    if (config.guard().enabled()) {
      stores.own(GuardProcessor.NAME, GuardProcessor.stores());
      readings.process(stores.supplier(GuardProcessor.NAME, () -> new GuardProcessor(config, index),
              StoreNames.VM_SAMPLES, StoreNames.VM_LIVE), Named.as(GuardProcessor.NAME))
          .to(CatalogSink.TOPIC_OF, Produced.with(Serdes.String(), CatalogSink.VALUE_SERDE).withName("guard-out"));
      // what the vCenter collectors did with the decisions, for GET /api/guard
      stores.own(GuardTrailProcessor.NAME, GuardTrailProcessor.stores());
      b.stream(Topics.GUARD_ACTIONS.name(), Consumed.with(Serdes.String(), InputSerdes.<GuardAction, GuardAction>of(
              Topics.GUARD_ACTIONS)).withName("guard-actions-source"))
          .process(stores.supplier(GuardTrailProcessor.NAME, GuardTrailProcessor::new),
              Named.as(GuardTrailProcessor.NAME));
    }

    KStream<String, VmInput> stuns = keyedByVm(stream(b, Topics.STUN_OBSERVATIONS, StunObservation.class),
        Topics.STUN_OBSERVATIONS, STUN_KEYS, "stuns-by-vm", StunObservation::key, null, StoreNames.STUNS_HELD,
        config, stores, null);
    KStream<String, VmInput> vmotions = keyedByVm(stream(b, Topics.VMOTION_OBSERVATIONS, VmotionObservation.class),
        Topics.VMOTION_OBSERVATIONS, VMOTION_KEYS, "vmotions-by-vm", VmotionObservation::key, null,
        StoreNames.VMOTIONS_HELD, config, stores, null);
    // vmkernel.log's bandwidth names a vMotion id and no VM: it meets the VM's claim on the id in the id's task, and
    // goes on to the VM's.
    KStream<String, Tracked.ById> claims = vmotions
        .flatMap((vm, v) -> v instanceof VmotionObservation o && o.vmotionId() != null
            ? List.of(KeyValue.<String, Tracked.ById>pair(o.vmotionId(), new Tracked.Claim(vm))) : List.of(),
            Named.as("claim-vmotion-id"))
        .repartition(Repartitioned.<String, Tracked.ById>as("vmotion-claims-by-id")
            .withKeySerde(InputSerdes.KEYS).withValueSerde(InputSerdes.widened(JsonSerde.of(Tracked.Claim.class))));
    KStream<String, VmInput> bandwidth = b.stream(Topics.VMOTION_BANDWIDTH.name(),
            Consumed.with(InputSerdes.KEYS, InputSerdes.<VmotionBandwidth, VmotionBandwidth>of(
                Topics.VMOTION_BANDWIDTH)).withName("vmotion-bandwidth-source"))
        .<Tracked.ById>mapValues(Tracked.Bandwidth::new, Named.as("bandwidth-by-id"))
        .merge(claims, Named.as("bandwidth-and-claims"))
        .process(stores.supplier(VmotionIdProcessor.NAME, () -> new VmotionIdProcessor(config.historyRetention())),
            Named.as(VmotionIdProcessor.NAME))
        .repartition(Repartitioned.<String, VmInput>as("bandwidth-by-vm")
            .withKeySerde(InputSerdes.KEYS).withValueSerde(InputSerdes.of(Topics.VMOTION_BANDWIDTH)));

    // An event the collector keyed by VM id is read where the VM's samples are, in their task: in a catch-up or a
    // replay Kafka Streams then takes both in timestamp order. Through a repartition hop the events would become
    // visible a commit later, after the task had run its samples ahead of them, by as much as a whole recording:
    // its migrations closed as UNKNOWN before their end was read, and the history of their range gone before it
    // could be rebuilt. Only events keyed by vCenter and moref take the hop, to be keyed by VM id.
    KStream<String, VcenterEvent> vcenterEvents = stream(b, Topics.VCENTER_EVENTS, VcenterEvent.class);
    KStream<String, VmInput> events = keyedByVm(
            vcenterEvents.filterNot((k, e) -> Keys.isVmId(k), Named.as("events-to-key")), Topics.VCENTER_EVENTS,
            EVENT_KEYS, "events-by-vm", VcenterEvent::vmKey,
            e -> Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey()),
            StoreNames.EVENTS_HELD, config, stores, new LiveCommits(clock))
        .merge(vcenterEvents.filter((k, e) -> Keys.isVmId(k), Named.as("events-by-vm-id"))
            .<VmInput>mapValues(e -> e, Named.as("events-in-place")), Named.as("events-keyed-and-direct"));

    KStream<String, Object> outputs = events
        .merge(stuns, Named.as("events-and-stuns"))
        .merge(vmotions, Named.as("and-vmotions"))
        .merge(bandwidth, Named.as("and-bandwidth"))
        .merge(readings, Named.as("and-readings"))
        .process(stores.supplier(MigrationProcessor.NAME, () -> new MigrationProcessor(config, clock),
            StoreNames.VM_SAMPLES, StoreNames.VM_LIVE), Named.as(MigrationProcessor.NAME));
    outputs.filterNot((id, v) -> v instanceof MigrationOwner, Named.as("catalog-values"))
        .to(CatalogSink.TOPIC_OF, Produced.with(Serdes.String(), CatalogSink.VALUE_SERDE).withName("outputs"));
    // Each new migration's VM, by the migration's id: how the API finds the instance that holds a migration.
    stores.own(MigrationOwnersProcessor.NAME, MigrationOwnersProcessor.stores());
    outputs.flatMapValues(v -> v instanceof MigrationOwner o ? List.of(o) : List.<MigrationOwner>of(),
            Named.as("owners"))
        .repartition(Repartitioned.<String, MigrationOwner>as("migration-owners-by-id")
            .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(MigrationOwner.class)))
        .process(stores.supplier(MigrationOwnersProcessor.NAME,
            () -> new MigrationOwnersProcessor(config.historyRetention())), Named.as(MigrationOwnersProcessor.NAME));

    // The stun-time model: every impact and impact revision with a known stun and framebuffer feeds its groups, each
    // group in one task. It takes them as they are emitted, in the transaction that writes them to the impacts
    // topic, rather than reading that topic back: an impact carries a timeline of up to one point a second, and
    // decoding each one again would cost the stream thread as much as encoding it did.
    outputs.process(ModelInputProcessor::new, Named.as("model-inputs"))
        .repartition(Repartitioned.<String, StunModel.Input>as("impacts-by-model-group")
            .withKeySerde(Serdes.String()).withValueSerde(JsonSerde.of(StunModel.Input.class)))
        .process(stores.supplier(ModelProcessor.NAME, ModelProcessor::new), Named.as(ModelProcessor.NAME))
        .to(CatalogSink.TOPIC_OF, Produced.with(Serdes.String(), CatalogSink.VALUE_SERDE).withName("model-out"));
    return b.build();
  }

  private static final String STUN_KEYS = "stun-key-by-vm";
  private static final String VMOTION_KEYS = "vmotion-key-by-vm";
  private static final String EVENT_KEYS = "key-by-vm";

  /** A catalog topic read as the type {@code S} its values share with others they merge with. */
  private static <S, V extends S> KStream<String, S> stream(StreamsBuilder b, Topic<String, V> topic,
      Class<S> as) {
    String name = topic.name().substring(Topics.PREFIX.length());
    return b.stream(topic.name(), Consumed.with(InputSerdes.KEYS, InputSerdes.<S, V>of(topic))
        .withName(name + "-source"));
  }

  /**
   * A vCenter-side topic's records keyed by VM id through {@link VmKeyProcessor} (named {@code name}) and a
   * repartition hop (named {@code repartition}).
   */
  private static <V extends VmInput> KStream<String, VmInput> keyedByVm(KStream<String, V> source,
      Topic<String, V> topic, String name, String repartition, Function<V, String> vmKey, Function<V, String> chain,
      String heldStore, ProcessorConfig config, StoreRegistry stores, LiveCommits live) {
    return source.process(stores.supplier(name, () -> new VmKeyProcessor<>(topic, vmKey, chain, heldStore,
            config.inventoryHold(), live)), Named.as(name))
        .repartition(Repartitioned.<String, VmInput>as(repartition)
            .withKeySerde(InputSerdes.KEYS).withValueSerde(InputSerdes.of(topic)));
  }

  /** How many values of each global store are kept decoded ({@link DecodeMemo}): a site's hosts and model groups. */
  static final int GLOBAL_VALUES_KEPT = 10_000;

  private static <V> void globalTable(StreamsBuilder b, Topic<String, V> topic, String store) {
    String name = topic.name().substring(Topics.PREFIX.length());
    b.globalTable(topic.name(), Consumed.with(Serdes.String(), topic.valueSerde()).withName(name + "-source"),
        Materialized.<String, V, KeyValueStore<Bytes, byte[]>>as(store)
            .withKeySerde(Serdes.String()).withValueSerde(new DecodeMemo<>(topic.valueSerde(), GLOBAL_VALUES_KEPT)));
  }
}
