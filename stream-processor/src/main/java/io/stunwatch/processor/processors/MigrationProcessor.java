package io.stunwatch.processor.processors;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.state.FlushOrder;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.support.CatalogSink;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Runs the migrations' state machine ({@link MigrationMachine}) in each task of the VMs' partitions. It takes every
 * {@link VmInput} of its task:
 * <ul>
 *   <li>a {@link VcenterEvent} moves its migration on (a power event or another kept one is no migration);</li>
 *   <li>a reading ({@link GpuSample}, {@link RdmaCounterSample}, {@link ThroughputSample}), already in the VM's
 *       history ({@link VmReadingsProcessor} sends it on after recording it), decides what waited for it;</li>
 *   <li>what the VM's hosts logged ({@link StunObservation}, {@link VmotionObservation}, {@link VmotionBandwidth}) is
 *       kept for impacts to come, and revises one already settled.</li>
 * </ul>
 * Events and readings also move the look at due migrations on, once per second of stream time ({@link #tick}).
 * Outputs are catalog values ({@link Migration}, {@link MigrationImpact}, {@link MigrationAlert}, {@link DeadLetter})
 * routed by {@link CatalogSink}. It is the only writer of the migrations', impacts', alerts' and list stores.
 *
 * <p>Only event time closes migrations; the wall clock does so only after the task has had no event or reading for
 * {@code process.idle-close}, and then as if event time had moved on by the time idle ({@link #idleLook}).
 *
 * <p>Why the look is not a stream-time punctuation: Kafka Streams halves the records a stream thread processes
 * between two looks at its tasks after every loop in which a punctuator ran, and in a catch-up a task's stream time
 * passes a second every couple of dozen records, so its loops would shrink to a few records each.
 */
public final class MigrationProcessor implements Processor<String, VmInput, String, Object> {

  /** How often, in stream time, the due migrations are looked at. */
  static final long LOOK_EVERY_MILLIS = 1000;
  /** The name it has in the topology, and writes its stores under. */
  public static final String NAME = "migrations";
  /** Migrations kept as objects after their commit, per task: a few KB each. */
  static final int KEPT_MIGRATIONS = 1024;
  /** Impacts kept as objects after their commit, per task: up to a few hundred KB each. */
  static final int KEPT_IMPACTS = 32;

  /**
   * The stores it writes. A migration's own state is deferred (written once per key and commit), for the JSON: an
   * impact carries a timeline of up to a point a second, an event set and a model group a list, and a record cache
   * would encode each on every write and decode it on every read. A host log reads every recent migration of its VM
   * and revises a settled impact: the last ones written are kept as objects after their commit, rather than decoded
   * again. The tracked migrations and the history pins stay cached stores, as they are iterated, and an iterator over
   * a deferred store sees the last commit.
   *
   * <p>The alerts and the list indexes are listed by the API by iterating them: all five are flushed together at each
   * commit, the alerts first ({@link #listed}), so that a migration listed as under load is in the alerts list too,
   * and a list reads RocksDB's iterator alone, with no pending writes to merge.
   */
  public static List<StoreBuilder<?>> stores() {
    FlushOrder listed = listed();
    return List.of(
        deferred(StoreNames.MIGRATION_EVENTS, JsonSerde.of(EventSet.class)),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.MIGRATIONS), Serdes.String(), JsonSerde.of(Migration.class)), KEPT_MIGRATIONS),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.ALERTS), Serdes.String(), JsonSerde.of(MigrationAlert.class)), listed),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.IMPACTS), Serdes.String(), JsonSerde.of(MigrationImpact.class)), KEPT_IMPACTS),
        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.TRACKED),
            Serdes.String(), JsonSerde.of(Tracked.Migration.class)).withCachingEnabled(),
        deferred(StoreNames.VM_STUNS, JsonSerde.of(Tracked.Stuns.class)),
        deferred(StoreNames.VM_MIGRATIONS, JsonSerde.of(Tracked.Recent.class)),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.MIGRATIONS_BY_VM), Serdes.String(), MigrationRow.SERDE), listed),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.MIGRATIONS_BY_VM_ORDER), Serdes.String(), Serdes.String()), listed),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.MIGRATIONS_BY_START), Serdes.String(), MigrationRow.SERDE), listed),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
            StoreNames.ANNOTATIONS_BY_HOUR), Serdes.String(), AnnotationBlock.SERDE), listed),
        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HISTORY_PINS),
            Serdes.String(), Serdes.String()).withCachingEnabled());
  }

  /**
   * The order in which the stores the API lists by iterating reach RocksDB at each commit: the alerts before the
   * rows that say a migration is under load. One instance per built topology.
   */
  public static FlushOrder listed() {
    return new FlushOrder(StoreNames.ALERTS, StoreNames.MIGRATIONS_BY_VM, StoreNames.MIGRATIONS_BY_VM_ORDER,
        StoreNames.MIGRATIONS_BY_START, StoreNames.ANNOTATIONS_BY_HOUR);
  }

  private static <V> StoreBuilder<?> deferred(String name, Serde<V> serde) {
    return DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name),
        Serdes.String(), serde));
  }

  private final ProcessorConfig config;
  private final Clock clock;
  private ProcessorContext<String, Object> context;
  private MigrationMachine machine;
  /** The stream time from which the next record looks at the due migrations ({@link #tick}). */
  private long nextLook = Long.MIN_VALUE;
  /** The wall time of the task's last event or reading, or of its initialization: see {@link #idleLook}. */
  private long lastInputWall;

  public MigrationProcessor(ProcessorConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.machine = new MigrationMachine(config, clock, context);
    nextLook = Long.MIN_VALUE;
    lastInputWall = context.currentSystemTimeMs();
    context.schedule(Duration.ofSeconds(5), PunctuationType.WALL_CLOCK_TIME, this::idleLook);
  }

  @Override
  public void process(Record<String, VmInput> record) {
    String vmKey = record.key();
    long timestamp = record.timestamp();
    VmInput v = record.value();
    if (v instanceof GpuSample) {
      reading(vmKey, ReadingKinds.GPU, timestamp);
    } else if (v instanceof VcenterEvent e) {
      if (e.category() != VcenterEventCategory.POWER && e.category() != VcenterEventCategory.OTHER) {
        machine.event(vmKey, e, timestamp);
      }
      input();
    } else if (v instanceof RdmaCounterSample) {
      reading(vmKey, ReadingKinds.RDMA, timestamp);
    } else if (v instanceof ThroughputSample) {
      reading(vmKey, ReadingKinds.THROUGHPUT, timestamp);
    } else if (v instanceof StunObservation s) {
      machine.hostLog(vmKey, was -> was.with(s), timestamp);
    } else if (v instanceof VmotionObservation o) {
      machine.hostLog(vmKey, was -> was.with(o), timestamp);
    } else if (v instanceof VmotionBandwidth b) {
      machine.hostLog(vmKey, was -> was.with(b), timestamp);
    }
  }

  private void reading(String vmKey, int kind, long timestamp) {
    machine.reading(vmKey, kind, timestamp);
    input();
  }

  private void input() {
    lastInputWall = context.currentSystemTimeMs();
    tick();
  }

  /**
   * The wall clock's look, every few seconds. It looks at stream time as it stands: a migration found due but its
   * VM's samples still behind waits for them, and when they arrive behind stream time (the last records of a replay
   * or a catch-up) no record may come to move stream time on. After {@code process.idle-close} without input it
   * closes what later event time would have, as if event time had moved on by the time idle: the end of a live
   * site's data (a vCenter and its VMs gone quiet), never a replay's or a catch-up's, where records keep coming.
   */
  private void idleLook(long now) {
    long streamTime = context.currentStreamTimeMs();
    if (streamTime < 0) {
      return; // no record yet: nothing to close
    }
    long idle = now - lastInputWall;
    if (idle >= config.idleClose().toMillis()) {
      machine.closeDue(streamTime + idle, idle);
    } else {
      machine.closeDue(streamTime, 0);
    }
  }

  /**
   * Looks at the due migrations once per second of stream time, at the first record of each second, as a one-second
   * stream-time punctuation would.
   */
  private void tick() {
    long streamTime = context.currentStreamTimeMs();
    if (streamTime >= nextLook) {
      nextLook = streamTime - Math.floorMod(streamTime, LOOK_EVERY_MILLIS) + LOOK_EVERY_MILLIS;
      machine.look(streamTime);
    }
  }
}
