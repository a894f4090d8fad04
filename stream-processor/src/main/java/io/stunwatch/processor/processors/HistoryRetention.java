package io.stunwatch.processor.processors;

import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.StunwatchTopology;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.StartKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.support.CatalogSink;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Forgets every migration that started more than {@code process.history-retention} before the task's stream time:
 * its events, the migration, its impact and alert, its rows in the list indexes and annotation blocks, its place in
 * its VM's recent migrations, and the VM's stun observations of that age. The migration, impact and alert leave
 * their compacted output topics too, as tombstones, so that neither a restore nor a reader of those topics brings
 * them back.
 *
 * <p>Driven by stream time, once per hour of it, not by the wall clock: a replay of last month, a catch-up after
 * downtime and a live run forget the same migrations. A migration still waiting is forgotten too: the retention
 * (at least a day) is longer than any migration waits (its timeout, then the per-second history's retention).
 *
 * <p>It finds what to forget through {@link StoreNames#MIGRATIONS_BY_START}, whose oldest keys are the migrations to
 * forget, so a prune costs what it removes, not the history it keeps. The stun observations, kept per VM, are
 * scanned whole: one entry per VM that reported a stun.
 */
public final class HistoryRetention {

  /** How often, in stream time, the history is pruned; the cutoff moves by whole periods. */
  static final Duration EVERY = Duration.ofHours(1);

  private final ProcessorContext<String, Object> context;
  private final Duration retention;
  private final KeyValueStore<String, EventSet> events;
  private final KeyValueStore<String, Migration> migrations;
  private final KeyValueStore<String, MigrationAlert> alerts;
  private final KeyValueStore<String, MigrationImpact> impacts;
  private final KeyValueStore<String, Tracked.Recent> recent;
  private final KeyValueStore<String, Tracked.Stuns> stuns;
  private final KeyValueStore<String, MigrationRow> byVm;
  private final KeyValueStore<String, String> byVmOrder;
  private final KeyValueStore<String, MigrationRow> byStart;
  private final KeyValueStore<String, AnnotationBlock> byHour;
  /** The stream time from which the next record prunes. */
  private long next = Long.MIN_VALUE;

  public HistoryRetention(ProcessorContext<String, Object> context, Duration retention) {
    this.context = context;
    this.retention = retention;
    this.events = context.getStateStore(StoreNames.MIGRATION_EVENTS);
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.alerts = context.getStateStore(StoreNames.ALERTS);
    this.impacts = context.getStateStore(StoreNames.IMPACTS);
    this.recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
    this.stuns = context.getStateStore(StoreNames.VM_STUNS);
    this.byVm = context.getStateStore(StoreNames.MIGRATIONS_BY_VM);
    this.byVmOrder = context.getStateStore(StoreNames.MIGRATIONS_BY_VM_ORDER);
    this.byStart = context.getStateStore(StoreNames.MIGRATIONS_BY_START);
    this.byHour = context.getStateStore(StoreNames.ANNOTATIONS_BY_HOUR);
  }

  /**
   * Prunes if stream time has entered a new period since the last prune (the first call after a (re)initialization
   * always does), with the cutoff at the start of the period less the retention; returns how many migrations it
   * forgot. {@code untrack} is told each one forgotten, so that it stops waiting for it.
   */
  int tick(long streamTime, Consumer<String> untrack) {
    if (streamTime < next) {
      return 0;
    }
    long period = EVERY.toMillis();
    long start = streamTime - Math.floorMod(streamTime, period);
    next = start + period;
    return prune(Instant.ofEpochMilli(start).minus(retention), untrack, streamTime);
  }

  /**
   * Forgets the migrations that started before {@code cutoff} (telling {@code untrack}), the annotation blocks of
   * the hours that ended by then, and stun observations older than it; returns how many migrations. Tombstones carry
   * {@code timestamp}.
   */
  int prune(Instant cutoff, Consumer<String> untrack, long timestamp) {
    // A range over a deferred store shows its last commit: a key deleted since may be listed again, and is skipped.
    List<KeyValue<String, MigrationRow>> old = new ArrayList<>();
    try (KeyValueIterator<String, MigrationRow> it = byStart.range(StartKeys.from(Instant.EPOCH),
        StartKeys.from(cutoff))) {
      it.forEachRemaining(old::add);
    }
    int forgotten = 0;
    for (KeyValue<String, MigrationRow> kv : old) {
      String id = kv.value.id();
      if (byStart.get(kv.key) == null) {
        continue;
      }
      untrack.accept(id);
      forget(id, kv.value, timestamp);
      byStart.delete(kv.key);
      forgotten++;
    }
    pruneHours(cutoff);
    pruneStuns(cutoff);
    return forgotten;
  }

  private void forget(String id, MigrationRow row, long timestamp) {
    Migration m = migrations.get(id);
    if (m != null) {
      // The VM's key is its id once the inventory knew it, else its vCenter key (StunwatchTopology.VmKeyProcessor).
      for (String vmKey : vmKeys(m)) {
        MigrationRow listed = byVm.get(MigrationIndex.vmKey(vmKey, id));
        if (listed != null) {
          byVm.delete(MigrationIndex.vmKey(vmKey, id));
          MigrationIndex.reorder(byVmOrder, vmKey, listed, null);
        }
        Tracked.Recent r = recent.get(vmKey);
        if (r != null && r.migrationIds().contains(id)) {
          Tracked.Recent rest = r.without(id);
          if (rest.migrationIds().isEmpty()) {
            recent.delete(vmKey);
          } else {
            recent.put(vmKey, rest);
          }
        }
      }
      migrations.delete(id);
      context.forward(new Record<>(id, CatalogSink.tombstone(Topics.MIGRATIONS), timestamp));
    }
    events.delete(id);
    // Not read first: an impact's stored form is its whole timeline. A tombstone for a key the topic never had is
    // dropped by compaction like any other.
    impacts.delete(id);
    context.forward(new Record<>(id, CatalogSink.tombstone(Topics.MIGRATION_IMPACTS), timestamp));
    if (row.underLoad() || alerts.get(id) != null) {
      alerts.delete(id);
      context.forward(new Record<>(id, CatalogSink.tombstone(Topics.MIGRATION_ALERTS), timestamp));
    }
  }

  private static List<String> vmKeys(Migration m) {
    String byVcenter = "vc:" + Keys.vm(m.vcenterUuid(), m.vmMoref());
    return m.vmId() == null ? List.of(byVcenter) : List.of(m.vmId(), byVcenter);
  }

  private void pruneHours(Instant cutoff) {
    List<String> hours = new ArrayList<>();
    String cutoffHour = StartKeys.hour(cutoff);
    try (KeyValueIterator<String, AnnotationBlock> it = byHour.range(StartKeys.hour(Instant.EPOCH), cutoffHour)) {
      it.forEachRemaining(kv -> {
        if (!kv.key.equals(cutoffHour)) {
          hours.add(kv.key);
        }
      });
    }
    hours.forEach(byHour::delete);
  }

  private void pruneStuns(Instant cutoff) {
    List<KeyValue<String, Tracked.Stuns>> all = new ArrayList<>();
    try (KeyValueIterator<String, Tracked.Stuns> it = stuns.all()) {
      it.forEachRemaining(all::add);
    }
    for (KeyValue<String, Tracked.Stuns> kv : all) {
      Tracked.Stuns now = stuns.get(kv.key);
      if (now == null) {
        continue;
      }
      Tracked.Stuns kept = now.since(cutoff);
      if (kept.isEmpty()) {
        stuns.delete(kv.key);
      } else if (!kept.equals(now)) {
        stuns.put(kv.key, kept);
      }
    }
  }
}
