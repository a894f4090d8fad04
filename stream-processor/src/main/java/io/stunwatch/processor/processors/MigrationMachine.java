package io.stunwatch.processor.processors;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.ImpactBuilder;
import io.stunwatch.processor.domain.MigrationAssembler;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.MigrationOwner;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The migrations' state machine, which {@link MigrationProcessor} runs in each task: every transition of a migration
 * (track, decide its alert, settle, close, reopen, revise) is a method here, and the helpers it uses
 * ({@link TrackedMigrations}, {@link MigrationRanges}, {@link ReadingKinds}, {@link MigrationIndex},
 * {@link MigrationAlerting}, {@link HistoryPins}) answer questions and keep their stores, and never call back.
 *
 * <p>What it emits is a function of the input records' contents and event times, not of how they interleave or of
 * the wall clock, so that a live run, a replay at any speed and a catch-up after downtime end with the same values:
 * <ul>
 *   <li>only event time closes migrations ({@link #closeDue});</li>
 *   <li>a migration closed as UNKNOWN is revised by an end that comes later, and its impact rebuilt;</li>
 *   <li>an impact closed before every kind of the VM's samples (GPU, throughput, RDMA) has passed its range is
 *       provisional: it is rebuilt as each further kind passes (and one last time before the history no longer
 *       holds its range), since a kind that has not been seen yet may be one whose partition lags;</li>
 *   <li>the alert is decided on its whole window: if the VM's samples have not reached the migration's start at its
 *       first event, it is decided when they do;</li>
 *   <li>a host log's stun, phases or bandwidth that comes after the impact revises the impact and its alert.</li>
 * </ul>
 * Each revision is emitted under the migration's id; readers keep the newest value of each key.
 */
final class MigrationMachine {

  private final ProcessorConfig config;
  private final Clock clock;
  private final MigrationRanges ranges;
  private final ProcessorContext<String, Object> context;
  private final KeyValueStore<String, EventSet> events;
  private final KeyValueStore<String, Migration> migrations;
  private final KeyValueStore<String, Tracked.Recent> recent;
  private final KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private final KeyValueStore<String, MigrationImpact> impacts;
  private final KeyValueStore<String, Tracked.Stuns> stuns;
  private final MigrationAlerting alerting;
  private final SampleHistory samples;
  private final MigrationIndex index;
  private final HistoryRetention retention;
  private final TrackedMigrations tracked;
  private final HistoryPins pins;
  /** The machine of a task, built at the processor's (re)initialization, after its stores were restored. */
  MigrationMachine(ProcessorConfig config, Clock clock, ProcessorContext<String, Object> context) {
    this.config = config;
    this.clock = clock;
    this.ranges = new MigrationRanges(config);
    this.context = context;
    this.events = context.getStateStore(StoreNames.MIGRATION_EVENTS);
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.samples = new SampleHistory(context);
    this.recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.impacts = context.getStateStore(StoreNames.IMPACTS);
    this.stuns = context.getStateStore(StoreNames.VM_STUNS);
    this.tracked = new TrackedMigrations(context.getStateStore(StoreNames.TRACKED));
    this.pins = new HistoryPins(context);
    this.index = new MigrationIndex(context);
    index.fillOrderIndex(context.taskId().toString());
    this.alerting = new MigrationAlerting(config, new LiveCommits(clock), context, samples);
    this.retention = new HistoryRetention(context, config.historyRetention());
    for (Tracked.Migration t : tracked.waiting()) {
      Migration m = migrations.get(t.migrationId());
      if (m != null && m.startTime() != null) {
        tracked.watch(t, ranges.awaited(t, m));
      }
    }
  }

  /**
   * The look at stream time {@code streamTime}: closes what is due, lets go of history no migration needs, and
   * forgets what is older than {@code process.history-retention}.
   */
  void look(long streamTime) {
    closeDue(streamTime, 0);
    pins.expire(streamTime, tracked::contains);
    retention.tick(streamTime, id -> {
      if (tracked.contains(id)) {
        tracked.remove(id);
      }
    });
  }

  /**
   * A vCenter event. Everything that can refuse it (its migration's id, the event set, the assembled migration) is
   * worked out before any store is written: a refused event becomes a dead letter and changes nothing.
   */
  void event(String vmKey, VcenterEvent e, long timestamp) {
    String id;
    EventSet before;
    EventSet after;
    Migration m;
    Migration stored;
    try {
      id = Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey());
      before = events.get(id);
      after = (before == null ? new EventSet(List.of()) : before).with(e);
      if (after == before) {
        return; // a duplicate: the migration cannot change
      }
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(e.vmKey());
      m = MigrationAssembler.assemble(after.events(), vm == null ? null : vm.value());
      if (m.startTime() == null) {
        throw new IllegalArgumentException("the migration's events give it no start time");
      }
      stored = migrations.get(id);
      if (stored != null && stored.state() == MigrationState.UNKNOWN && !m.state().isFinal()) {
        // Still no end: it stays closed at its timeout, showing what the new event told.
        m = MigrationRanges.unknown(m, m.startTime().plus(config.migrationTimeout()));
      }
    } catch (RuntimeException ex) {
      DeadLetter d = DeadLetter.of(Topics.VCENTER_EVENTS.name(), -1, -1, e.createdTime(), null,
          Topics.VCENTER_EVENTS.encodeValue(e), DeadLetter.Stage.PROCESSING, ex.toString(), "stream-processor",
          clock.instant());
      context.forward(new Record<>(Topics.VCENTER_EVENTS.name(), d, timestamp));
      return;
    }
    events.put(id, after);
    MigrationImpact settled = null;
    if (!m.equals(stored)) {
      migrations.put(id, m);
      context.forward(new Record<>(id, m, timestamp));
      Tracked.Migration t = tracked.get(id);
      // A migration still waiting to settle has no impact yet (it gets one as it settles), and a new one none at
      // all: only a settled migration's impact, a whole timeline, is worth reading back.
      MigrationImpact closed = stored == null || t != null && !t.provisional() ? null : impacts.get(id);
      if (closed == null || rebuilds(closed, m, vmKey)) {
        // New, still waiting, or settled with another end (an UNKNOWN that ended after all, a late final event):
        // its impact is built again, from the history, at its new due time, as if the events had come in time.
        track(id, vmKey, m, t);
        settled = closed;
      } else {
        // The same range: the impact keeps its figures and shows the migration as it is now.
        settled = ImpactBuilder.withMigration(closed, m, stuns.get(vmKey));
        impacts.put(id, settled);
        context.forward(new Record<>(id, settled, timestamp));
      }
    }
    if (before == null) {
      context.forward(new Record<>(id, new MigrationOwner(vmKey, m.startTime().toEpochMilli()), timestamp));
      Tracked.Recent r = recent.get(vmKey);
      recent.put(vmKey, (r == null ? new Tracked.Recent(null) : r).with(id));
      if (ReadingKinds.windowKnown(samples, vmKey, m.startTime(), config.alertWindow())) {
        alerting.raiseIfUnderLoad(vmKey, m, timestamp);
      } else {
        alertPending(id, m, true); // its samples are behind its events: decided when they come
      }
    }
    alerting.resolveIfEnded(m, timestamp);
    if (stored == null || !m.equals(stored)) {
      index.refresh(vmKey, m, settled);
    } else {
      index.refresh(vmKey, id); // unchanged: what the stores hold may be a revised migration
    }
    // In a replay or a catch-up, the task's samples run ahead of events that take the repartition hop: stream
    // time may already be past this migration's due time, and the next look only comes when stream time moves on.
    // Close what is due now rather than wait for a record that may never come.
    long streamTime = context.currentStreamTimeMs();
    Tracked.Migration t = tracked.get(id);
    if (t != null && !t.provisional() && t.dueAtMillis() <= streamTime) {
      closeDue(streamTime, 0);
    }
  }

  /**
   * A reading of the VM, already in its history: the VM's own time moves on, a settled migration whose pinned range
   * it falls in is reopened, and what waited for this kind of reading is decided.
   */
  void reading(String vmKey, int kind, long timestamp) {
    if (kind == ReadingKinds.GPU) {
      tracked.gpuReading(vmKey, timestamp);
    }
    if (!pins.isEmpty()) {
      reopen(vmKey, timestamp);
    }
    Map<String, TrackedMigrations.Awaited> ids = tracked.watching(vmKey);
    if (ids != null) {
      samplesArrived(vmKey, ids, timestamp, kind);
    }
  }

  /**
   * What the VM's hosts logged of its migrations, kept for impacts to come. An impact already settled without it
   * is revised: in a catch-up an observation (one repartition hop behind) can arrive after the VM's samples have run
   * past the settle window, and the impact, its alert and the model must end with the log's figures all the same.
   */
  void hostLog(String vmKey, UnaryOperator<Tracked.Stuns> add, long timestamp) {
    Tracked.Stuns old = stuns.get(vmKey);
    Tracked.Stuns was = old == null ? new Tracked.Stuns(null) : old;
    Tracked.Stuns now = add.apply(was);
    if (now.equals(was)) {
      return; // read before: nothing to revise
    }
    stuns.put(vmKey, now);
    Tracked.Recent ids = recent.get(vmKey);
    for (String id : ids == null ? List.<String>of() : ids.migrationIds()) {
      // The migration as stored is the impact's (a revision of one revises the other), and far smaller to read:
      // most observations belong to no settled migration, so the impact is read only for one they change.
      Migration m = migrations.get(id);
      if (m != null && m.startTime() != null) {
        revise(vmKey, m, now, timestamp);
      }
    }
  }

  /** Revises the settled impact of {@code m}, and its alert, with what the hosts' logs now say. */
  private void revise(String vmKey, Migration m, Tracked.Stuns logs, long timestamp) {
    StunTime stun = ImpactBuilder.stun(m, List.of(), logs.stuns());
    MigrationImpact.VmotionDetail vmotion = ImpactBuilder.vmotion(m, logs);
    boolean fromLog = stun.source() == StunTime.Source.VMWARE_LOG;
    if (!fromLog && vmotion.equals(ImpactBuilder.vmotion(m, null))) {
      return; // nothing from the logs for this migration
    }
    MigrationImpact i = impacts.get(m.id());
    if (i == null || (!fromLog || stun.equals(i.stun())) && vmotion.equals(i.vmotion())) {
      return; // not settled yet (its impact will read the logs when it is), or nothing new
    }
    MigrationImpact revised = (fromLog ? ImpactBuilder.withStun(i, stun) : i).withVmotion(vmotion);
    impacts.put(m.id(), revised);
    context.forward(new Record<>(m.id(), revised, timestamp));
    if (fromLog && !stun.equals(i.stun())) {
      alerting.restun(m.id(), stun, revised.throughputDipPct(), timestamp);
    }
    index.refresh(vmKey, m, revised);
  }

  /**
   * Whether a settled migration's impact must be built again for {@code m} rather than only show it: its range or
   * result changed, and the VM's per-second history still holds the range.
   */
  private boolean rebuilds(MigrationImpact closed, Migration m, String vmKey) {
    Migration was = closed.migration();
    boolean moved = was.state() != m.state() || !Objects.equals(was.endTime(), m.endTime())
        || !Objects.equals(was.startTime(), m.startTime());
    long streamTime = context.currentStreamTimeMs();
    return moved && (ranges.historyHolds(tracked.vmNewest(vmKey), streamTime, ranges.start(m))
        || pins.of(vmKey).stream().anyMatch(r -> r.id().equals(m.id())));
  }

  /**
   * A reading in the pinned range of a migration that has settled came after its impact was built (a VM read by two
   * hosts, the recording of the one it left read last): the migration is tracked again, provisionally, and its
   * impact built again as the readings pass its range, and a last time when the VM's own time is past it.
   */
  private void reopen(String vmKey, long timestamp) {
    for (HistoryPins.Range r : pins.of(vmKey)) {
      if (!r.holds(timestamp) || tracked.contains(r.id())) {
        continue;
      }
      Migration m = migrations.get(r.id());
      if (m == null || m.startTime() == null || impacts.get(r.id()) == null) {
        continue;
      }
      Tracked.Migration t = new Tracked.Migration(r.id(), vmKey, m.state().isFinal(), ranges.due(m), true,
          !alerting.raised(r.id()), 0);
      tracked.put(t);
      tracked.watch(t, ranges.awaited(t, m));
      tracked.nextDue(Long.MIN_VALUE);
    }
  }

  /**
   * Tracks a migration until it settles: an open one is due at its timeout, an ended one when its settle window is
   * over. What was pending of its alert stays pending. Its range is pinned in the VM's history ({@link HistoryPins})
   * until stream time is {@link SampleHistory#VM_SKEW} past its end.
   */
  private void track(String id, String vmKey, Migration m, Tracked.Migration previous) {
    long due = ranges.due(m);
    Tracked.Migration t = new Tracked.Migration(id, vmKey, m.state().isFinal(), due, false,
        previous != null && previous.alertPending(), 0);
    tracked.put(t);
    pins.pin(vmKey, new HistoryPins.Range(id, ranges.start(m).toEpochMilli(), ranges.end(m).toEpochMilli()));
    tracked.dueAt(due);
    tracked.rangeChanged(id); // its range may have changed with its end
    tracked.unwatch(vmKey, id);
    if (t.alertPending()) {
      tracked.watch(t, ranges.awaited(t, m));
    }
  }

  /** Marks whether the alert of a tracked migration waits for its window's samples. */
  private void alertPending(String id, Migration m, boolean pending) {
    Tracked.Migration t = tracked.get(id);
    if (t == null || t.alertPending() == pending) {
      return;
    }
    Tracked.Migration next = t.withAlertPending(pending);
    tracked.put(next);
    tracked.unwatch(t.vmKey(), id);
    if (next.alertPending() || next.provisional()) {
      tracked.watch(next, ranges.awaited(next, m));
    }
  }

  /**
   * A sample of a VM that migrations wait on: decides an alert whose window it completes, and rebuilds a provisional
   * impact when it is the first of its kind past the impact's range (its kind's samples of the range are then all in
   * the history: each kind arrives in order).
   */
  private void samplesArrived(String vmKey, Map<String, TrackedMigrations.Awaited> ids, long timestamp, int kind) {
    for (String id : List.copyOf(ids.keySet())) {
      TrackedMigrations.Awaited at = ids.get(id);
      if (at == null || timestamp < at.first()) {
        continue;
      }
      Tracked.Migration t = tracked.get(id);
      Migration m = migrations.get(id);
      if (t == null || m == null) {
        tracked.unwatch(vmKey, id);
        continue;
      }
      if (timestamp >= at.alertWindowAt() && t.alertPending()
          && ReadingKinds.windowKnown(samples, vmKey, m.startTime(), config.alertWindow())) {
        decideAlert(t, m, timestamp);
        t = tracked.get(id);
        if (t == null) {
          continue;
        }
      }
      if (t.provisional() && timestamp >= at.rangePassedAt() && (t.kindsPassed() & kind) == 0) {
        settle(t, m, t.kindsPassed() | kind);
      }
    }
  }

  /** Decides a pending alert on its whole window, resolving it at once if the migration has already settled. */
  private void decideAlert(Tracked.Migration t, Migration m, long timestamp) {
    alertPending(t.migrationId(), m, false);
    alerting.raiseIfUnderLoad(t.vmKey(), m, timestamp);
    MigrationImpact impact = t.provisional() ? impacts.get(t.migrationId()) : null;
    if (impact != null) {
      alerting.resolve(m, impact, t.dueAtMillis());
      index.refresh(t.vmKey(), m, impact);
    } else {
      alerting.resolveIfEnded(m, timestamp);
      index.refresh(t.vmKey(), t.migrationId());
    }
  }

  /**
   * Emits the impact of every migration due by {@code time} whose VM's samples have caught up with it (or that is
   * {@link MigrationRanges#CLOSE_FALLBACK_MILLIS} past due, provisionally), closing timed-out ones as UNKNOWN first;
   * rebuilds a provisional impact one last time before the history no longer holds its range. {@code idle}: the ms of
   * wall time since the task's last input, by which every VM's own time is taken to have moved on, as the task's has.
   */
  void closeDue(long time, long idle) {
    for (Tracked.Migration t : tracked.dueBy(time, idle)) {
      Migration m = migrations.get(t.migrationId());
      if (m == null || m.startTime() == null) {
        tracked.remove(t.migrationId());
        continue;
      }
      if (t.provisional()) {
        settle(t, m, ReadingKinds.ALL); // the last rebuild: the history is about to lose its range
        continue;
      }
      Instant from = ranges.end(m).plusSeconds(1);
      Instant to = from.plusMillis(MigrationRanges.CLOSE_FALLBACK_MILLIS);
      int passed = ReadingKinds.of(samples.range(t.vmKey(), from, to));
      boolean caughtUp = tracked.caughtUp(t.migrationId(), passed,
          () -> ReadingKinds.of(samples.range(t.vmKey(), ranges.start(m), ranges.end(m))));
      if (!caughtUp && t.dueAtMillis() + MigrationRanges.CLOSE_FALLBACK_MILLIS > time) {
        tracked.nextDue(Long.MIN_VALUE); // still due: look again at the next second of stream time
        continue; // the VM's samples of the impact's range may still be on their way
      }
      settle(t, m, passed);
    }
  }

  /**
   * Builds the impact of a due migration and emits what changed: the migration closed as UNKNOWN if it never ended,
   * its impact, its alert resolved with the impact's figures. Closed at its due time, not at the look's: the outputs
   * must not depend on when the look ran (after a restart it runs at other times). {@code passed}: the kinds of the
   * VM's samples that have passed the range; with all of them the impact is final, otherwise it is provisional.
   */
  private void settle(Tracked.Migration t, Migration m, int passed) {
    boolean complete = passed == ReadingKinds.ALL;
    long at = t.dueAtMillis();
    // The migration as it is now, not as it was tracked: an end that came after the impact was first closed revises
    // the migration even where the history could no longer rebuild the impact, and must never be closed again.
    if (!m.state().isFinal() && m.state() != MigrationState.UNKNOWN) {
      m = MigrationRanges.unknown(m, Instant.ofEpochMilli(at));
      migrations.put(m.id(), m);
      context.forward(new Record<>(m.id(), m, at));
    }
    if (t.alertPending()
        && (complete || ReadingKinds.windowKnown(samples, t.vmKey(), m.startTime(), config.alertWindow()))) {
      alertPending(t.migrationId(), m, false);
      alerting.raiseIfUnderLoad(t.vmKey(), m, at);
    }
    MigrationImpact stored = impacts.get(m.id());
    VmSamples history = samples.range(t.vmKey(), ranges.start(m), ranges.end(m));
    MigrationImpact impact = ImpactBuilder.build(m, history, stuns.get(t.vmKey()),
        config.beforeWindow(), config.settleWindow(), Instant.ofEpochMilli(at));
    if (!impact.equals(stored)) {
      impacts.put(m.id(), impact);
      context.forward(new Record<>(m.id(), impact, at));
    }
    alerting.resolve(m, impact, at);
    index.refresh(t.vmKey(), m, impact);
    if (complete) {
      tracked.remove(t.migrationId());
    } else {
      Tracked.Migration p = tracked.get(t.migrationId()).asProvisional(passed);
      tracked.put(p);
      tracked.unwatch(p.vmKey(), p.migrationId());
      tracked.watch(p, ranges.awaited(p, m));
    }
  }
}