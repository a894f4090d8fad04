package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Groups vCenter events (keyed by VM id) into migrations, and raises "migration under load" at a migration's first
 * event when the VM was busy just before it; resolves the alert when the migration ends. Output records are
 * catalog values ({@link Migration}, {@link MigrationAlert}, {@link DeadLetter}) routed by {@link CatalogRouting}.
 *
 * <p>It also takes every sample of its task, after the processors that record it: a value that is not a
 * {@link VcenterEvent} only moves the look at due migrations on, once per second of stream time ({@link #tick}).
 * Why not a stream-time punctuation: Kafka Streams halves the records a stream thread processes between two looks at
 * its tasks after every loop in which a punctuator ran, and in a catch-up a task's stream time passes a second every
 * couple of dozen records, so its loops shrank to a few records each and the per-loop work (the state updater's
 * checks, the punctuation and commit scans over every task) took about a tenth of the stream threads.
 */
final class MigrationProcessor implements Processor<String, Object, String, Object> {

  /** VMware's published vGPU stun figure on vSphere 7: about 2 s per GiB of framebuffer used. */
  static final double REFERENCE_SECONDS_PER_GIB = 2.0;

  private final ProcessorConfig config;
  private final Clock clock;
  private final LiveCommits live;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, EventSet> events;
  private KeyValueStore<String, Migration> migrations;
  private KeyValueStore<String, MigrationAlert> alerts;
  private SampleHistory samples;
  private KeyValueStore<String, Tracked.Recent> recent;
  private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private KeyValueStore<String, MigrationImpact> impacts;
  private MigrationIndex index;
  private KeyValueStore<String, Tracked.Migration> tracked;
  private KeyValueStore<String, Tracked.Stuns> stuns;
  private KeyValueStore<String, ValueAndTimestamp<StunModelEntry>> model;

  MigrationProcessor(ProcessorConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.live = new LiveCommits(clock);
  }

  /**
   * How far stream time must pass a migration's due time before it is closed although the VM's own samples have not
   * caught up with it (see {@link #caughtUp}): samples of a kind that stopped (the VM powered off, its collector
   * died, training ended) must not hold the impact forever. Stream time is the newest record of any of the task's
   * partitions; the VM's samples may be a fetch behind it, which a replay or a catch-up multiplies.
   */
  static final long CLOSE_FALLBACK_MILLIS = 60_000;

  private static final int GPU = 1;
  private static final int THROUGHPUT = 2;
  private static final int RDMA = 4;
  private static final int ALL_KINDS = GPU | THROUGHPUT | RDMA;
  /** The kinds each waiting migration's range holds, by migration id: see {@link #caughtUp}. */
  private final java.util.Map<String, Integer> expectedKinds = new java.util.HashMap<>();
  /**
   * What {@link StoreNames#TRACKED} holds, by migration id, or null until read after (re)initialization. This
   * processor is the store's only writer, and the store stays the truth a restore rebuilds: the copy only spares
   * {@link #closeDue}, which runs every second of stream time, a scan and decoding of the whole store.
   */
  private java.util.Map<String, Tracked.Migration> waiting;
  /** No tracked migration is due before this (a lower bound: removals do not raise it). */
  private long nextDue = Long.MIN_VALUE;
  /** How often, in stream time, the due migrations are looked at. */
  static final long LOOK_EVERY_MILLIS = 1000;
  /** The stream time from which the next record looks at the due migrations ({@link #tick}). */
  private long nextLook = Long.MIN_VALUE;

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.events = context.getStateStore(StoreNames.MIGRATION_EVENTS);
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.alerts = context.getStateStore(StoreNames.ALERTS);
    this.samples = new SampleHistory(context);
    this.recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.impacts = context.getStateStore(StoreNames.IMPACTS);
    this.tracked = context.getStateStore(StoreNames.TRACKED);
    this.stuns = context.getStateStore(StoreNames.VM_STUNS);
    this.model = context.getStateStore(StoreNames.STUN_MODEL_GLOBAL);
    this.index = new MigrationIndex(context);
    expectedKinds.clear(); // (re)initialized after the task's stores were restored
    waiting = null;
    nextLook = Long.MIN_VALUE;
    // Event time closes impacts and times migrations out; the wall clock does it too (one window later) when no
    // records arrive to move event time on. It also looks again at stream time as it stands: a migration found due
    // but its VM's samples still behind waits for them, and when they arrive behind stream time (the last records
    // of a replay or a catch-up) no record may come to move stream time on and bring the next look.
    context.schedule(Duration.ofSeconds(5), PunctuationType.WALL_CLOCK_TIME,
        now -> closeDue(Math.max(context.currentStreamTimeMs(), clock.millis() - config.settleWindow().toMillis())));
    // The start-time index is kept for process.history-retention; the rest of a migration's state is compacted.
    context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME,
        now -> index.prune(clock.instant().minus(config.historyRetention())));
  }

  @Override
  public void process(Record<String, Object> record) {
    if (record.value() instanceof VcenterEvent e) {
      event(record, e);
    }
    tick();
  }

  /**
   * Looks at the due migrations once per second of stream time, at the first record of each second, as a one-second
   * stream-time punctuation would.
   */
  private void tick() {
    long streamTime = context.currentStreamTimeMs();
    if (streamTime >= nextLook) {
      nextLook = streamTime - Math.floorMod(streamTime, LOOK_EVERY_MILLIS) + LOOK_EVERY_MILLIS;
      closeDue(streamTime);
    }
  }

  private void event(Record<String, Object> record, VcenterEvent e) {
    try {
      String id = Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey());
      EventSet before = events.get(id);
      EventSet after = (before == null ? new EventSet(List.of()) : before).with(e);
      if (after == before) {
        return; // a duplicate: the migration cannot change
      }
      events.put(id, after);
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(e.vmKey());
      Migration m = MigrationAssembler.assemble(after.events(), vm == null ? null : vm.value());
      Migration stored = migrations.get(id);
      MigrationImpact closed = null;
      if (stored != null && stored.state() == MigrationState.UNKNOWN) {
        return; // closed as UNKNOWN after the timeout: events arriving later do not reopen it
      }
      if (!m.equals(stored)) {
        migrations.put(id, m);
        context.forward(new Record<>(id, m, record.timestamp()));
        // A migration still tracked has no impact yet (it gets one as it stops being tracked), and a new one none
        // at all: only a settled migration's impact, a whole timeline, is worth reading back.
        closed = stored == null || waiting().containsKey(id) ? null : impacts.get(id);
        track(id, record.key(), m, closed);
        if (closed != null && !closed.migration().equals(m)) {
          // An event of the chain came after the impact was closed (a catch-up closes at once): the impact keeps
          // its figures and shows the migration as it is now.
          MigrationImpact revised = ImpactBuilder.withMigration(closed, m);
          impacts.put(id, revised);
          context.forward(new Record<>(id, revised, record.timestamp()));
          closed = revised;
        }
      }
      if (before == null) {
        Tracked.Recent r = recent.get(record.key());
        recent.put(record.key(), (r == null ? new Tracked.Recent(null) : r).with(id));
        raiseIfUnderLoad(record.key(), m, record.timestamp());
      }
      resolveIfEnded(m, record.timestamp());
      if (stored == null || !m.equals(stored)) {
        index.refresh(record.key(), m, closed);
      } else {
        index.refresh(record.key(), id); // unchanged: what the stores hold may be a revised migration
      }
      // In a replay or a catch-up, the task's samples run ahead of events that take the repartition hop: stream
      // time may already be past this migration's due time, and the next look only comes when stream time moves on.
      // Close what is due now rather than wait for a record that may never come.
      long streamTime = context.currentStreamTimeMs();
      Tracked.Migration t = waiting().get(id);
      if (t != null && t.dueAtMillis() <= streamTime) {
        closeDue(streamTime);
      }
    } catch (RuntimeException ex) {
      // A bug or an impossible input must not stop the application: the record goes to the dead letters.
      DeadLetter d = DeadLetter.of(Topics.VCENTER_EVENTS.name(), -1, -1, e.createdTime(), null,
          Topics.VCENTER_EVENTS.encodeValue(e), DeadLetter.Stage.PROCESSING, ex.toString(), "stream-processor",
          clock.instant());
      context.forward(new Record<>(Topics.VCENTER_EVENTS.name(), d, record.timestamp()));
    }
  }

  private java.util.Map<String, Tracked.Migration> waiting() {
    if (waiting == null) {
      waiting = new java.util.HashMap<>();
      try (KeyValueIterator<String, Tracked.Migration> it = tracked.all()) {
        it.forEachRemaining(kv -> waiting.put(kv.key, kv.value));
      }
      nextDue = Long.MIN_VALUE;
    }
    return waiting;
  }

  private void untrack(String id) {
    tracked.delete(id);
    waiting().remove(id);
    expectedKinds.remove(id);
  }

  /**
   * An open migration is due at its timeout; an ended one when its settle window is over; one with an
   * {@code impact} (as stored, or null) is settled and not tracked again.
   */
  private void track(String id, String vmKey, Migration m, MigrationImpact impact) {
    if (impact != null) {
      return; // already settled
    }
    long due = m.state().isFinal() && m.endTime() != null
        ? m.endTime().plus(config.settleWindow()).toEpochMilli()
        : m.startTime().plus(config.migrationTimeout()).toEpochMilli();
    Tracked.Migration t = new Tracked.Migration(id, vmKey, m.state().isFinal(), due);
    tracked.put(id, t);
    waiting().put(id, t);
    nextDue = Math.min(nextDue, due);
    expectedKinds.remove(id); // its range may have changed with its end
  }

  /**
   * Emits the impact of every migration due by {@code time} whose VM's samples have caught up with it (or that is
   * {@link #CLOSE_FALLBACK_MILLIS} past due), closing timed-out ones as UNKNOWN first.
   */
  void closeDue(long time) {
    java.util.Map<String, Tracked.Migration> all = waiting();
    if (nextDue > time) {
      return;
    }
    List<Tracked.Migration> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (Tracked.Migration t : all.values()) {
      if (t.dueAtMillis() <= time) {
        due.add(t);
      } else {
        next = Math.min(next, t.dueAtMillis());
      }
    }
    nextDue = next;
    // In the store's key order, as a scan of it gave them: the order of the outputs must not depend on a hash map.
    due.sort(java.util.Comparator.comparing(Tracked.Migration::migrationId));
    for (Tracked.Migration t : due) {
      Migration m = migrations.get(t.migrationId());
      if (m == null) {
        untrack(t.migrationId());
        continue;
      }
      Instant end = m.endTime() != null ? m.endTime() : m.startTime();
      Instant rangeEnd = end.plus(config.settleWindow()).plusSeconds(1);
      Instant rangeStart = m.startTime().minus(config.beforeWindow());
      if (t.dueAtMillis() + CLOSE_FALLBACK_MILLIS > time && !caughtUp(t, rangeStart, rangeEnd)) {
        nextDue = Long.MIN_VALUE; // still due: look again at the next second of stream time
        continue; // the VM's samples of the impact's range may still be on their way
      }
      untrack(t.migrationId());
      VmSamples history = samples.range(t.vmKey(), rangeStart, rangeEnd);
      // Closed at its due time, not at the look's: the outputs must not depend on when the look ran
      // (after a restart it runs at other times), so a replay or a crash-recovered run gives the same records.
      long at = t.dueAtMillis();
      if (!t.ended()) {
        m = unknown(m, Instant.ofEpochMilli(at));
        migrations.put(m.id(), m);
        context.forward(new Record<>(m.id(), m, at));
      }
      Tracked.Stuns s = stuns.get(t.vmKey());
      MigrationImpact impact = ImpactBuilder.build(m, history, s == null ? List.of() : s.stuns(),
          config.beforeWindow(), config.settleWindow(), Instant.ofEpochMilli(at));
      impacts.put(m.id(), impact);
      context.forward(new Record<>(m.id(), impact, at));
      MigrationAlert a = alerts.get(m.id());
      if (a != null) {
        MigrationAlert updated = new MigrationAlert(a.migrationId(), MigrationAlert.AlertState.RESOLVED, a.vmMoref(),
            a.vmName(), a.vmId(), a.sourceHost(), m.destHost(), a.initiator(), a.vgpuProfile(), a.load(),
            a.reasons(), a.forecast(), a.raisedAt(), Instant.ofEpochMilli(at), new MigrationAlert.Measured(
                m.state(), impact.durationSeconds(), impact.stun(), impact.throughputDipPct()));
        alerts.put(m.id(), updated);
        context.forward(new Record<>(m.id(), updated, at));
      }
      index.refresh(t.vmKey(), m, impact);
    }
  }

  /**
   * Whether every kind of sample the VM sent within the impact's range (GPU, training throughput, RDMA) has a second
   * after {@code rangeEnd}: each kind arrives in order on its own partition, so the range then holds all of that
   * kind it ever will, and the impact does not depend on how far the VM's partitions lagged the task's stream time.
   * Asked every second of stream time while a migration waits, so the cheap answers come first: nothing after the
   * range yet (the usual wait), or every kind after it.
   */
  private boolean caughtUp(Tracked.Migration t, Instant rangeStart, Instant rangeEnd) {
    Instant from = rangeEnd.plusSeconds(1);
    int after = kinds(samples.range(t.vmKey(), from, from.plusMillis(CLOSE_FALLBACK_MILLIS)));
    if (after == 0 || after == ALL_KINDS) {
      return after == ALL_KINDS;
    }
    // Some kinds have moved on: the rest are owed only if the VM sent them within the range. Read once per migration
    // (again after a restart): a kind whose every sample of the range is still behind would be lagging by minutes.
    int expected = expectedKinds.computeIfAbsent(t.migrationId(),
        id -> kinds(samples.range(t.vmKey(), rangeStart, rangeEnd)));
    return (after & expected) == expected;
  }

  private static int kinds(VmSamples samples) {
    int kinds = 0;
    for (VmSamples.Point p : samples.points()) {
      kinds |= (p.samples() > 0 ? GPU : 0) | (p.throughputCount() != null && p.throughputCount() > 0 ? THROUGHPUT : 0)
          | (p.rdmaBytesPerSec() != null ? RDMA : 0);
    }
    return kinds;
  }

  private static Migration unknown(Migration m, Instant at) {
    return new Migration(m.id(), m.vcenterUuid(), m.vmMoref(), m.vmName(), m.vmId(), m.vgpuProfile(),
        MigrationState.UNKNOWN, m.initiator(), m.initiatorName(), m.encrypted(), m.sourceHost(), m.destHost(),
        m.sourceCluster(), m.destCluster(), m.sourceDatastore(), m.destDatastore(), m.startTime(), null,
        "no end seen within the migration timeout", at);
  }

  private void raiseIfUnderLoad(String vmKey, Migration m, long timestamp) {
    Instant start = m.startTime();
    if (start == null) {
      return;
    }
    // The seconds before the start, not the start's own: a sample and an event of the same second arrive in either
    // order, and the alert must not depend on which came first.
    Instant from = start.minus(config.alertWindow());
    Instant to = start.minusSeconds(1);
    VmSamples.Load load = samples.range(vmKey, from, to).load(from, to);
    if (load.seconds() == 0 && load.fbUsedMiB() == null && load.rdmaBitsPerSec() == null) {
      return; // no samples of this VM: its load is unknown, not low
    }
    List<MigrationAlert.Reason> reasons = new ArrayList<>();
    if (load.gpuUtilizationAvgPct() != null && load.gpuUtilizationAvgPct() >= config.alertGpuPct()) {
      reasons.add(MigrationAlert.Reason.GPU_UTILIZATION);
    }
    if (load.fbUsedPct() != null && load.fbUsedPct() >= config.alertFbUsedPct()) {
      reasons.add(MigrationAlert.Reason.FB_USED);
    }
    if (load.rdmaBitsPerSec() != null && load.rdmaBitsPerSec() >= config.alertRdmaGbps() * 1e9) {
      reasons.add(MigrationAlert.Reason.RDMA_RATE);
    }
    if (reasons.isEmpty()) {
      return;
    }
    MigrationAlert a = new MigrationAlert(m.id(), MigrationAlert.AlertState.FIRING, m.vmMoref(), m.vmName(),
        m.vmId(), m.sourceHost(), m.destHost(), m.initiator(), m.vgpuProfile(),
        new MigrationAlert.Load(load.gpuUtilizationAvgPct(), config.alertWindow().toSeconds(), load.fbUsedMiB(),
            load.fbUsedPct(), load.rdmaBitsPerSec()),
        reasons, forecast(load, m), start, m.updatedAt(), null);
    alerts.put(m.id(), a);
    context.forward(new Record<>(m.id(), a, timestamp));
    live.requestIfLive(context, start.toEpochMilli());
  }

  private void resolveIfEnded(Migration m, long timestamp) {
    MigrationAlert a = alerts.get(m.id());
    if (a == null || !m.state().isFinal() || a.state() == MigrationAlert.AlertState.RESOLVED) {
      return;
    }
    MigrationAlert resolved = new MigrationAlert(a.migrationId(), MigrationAlert.AlertState.RESOLVED, a.vmMoref(),
        a.vmName(), a.vmId(), a.sourceHost(), m.destHost(), a.initiator(), a.vgpuProfile(), a.load(), a.reasons(),
        a.forecast(), a.raisedAt(), m.updatedAt(), new MigrationAlert.Measured(m.state(), m.durationSeconds(),
            new StunTime(null, StunTime.Source.UNKNOWN), null));
    alerts.put(m.id(), resolved);
    context.forward(new Record<>(m.id(), resolved, timestamp));
  }

  /** From the fleet's own model for this profile and framebuffer (then profile), else VMware's figure. */
  private StunForecast forecast(VmSamples.Load load, Migration m) {
    if (load.fbUsedMiB() == null) {
      return null;
    }
    return Forecasts.forecast(m.vgpuProfile(), load.fbUsedMiB(), k -> {
      ValueAndTimestamp<StunModelEntry> v = model.get(k);
      return v == null ? null : v.value();
    });
  }
}
