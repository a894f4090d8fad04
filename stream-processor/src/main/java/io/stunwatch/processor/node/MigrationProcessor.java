package io.stunwatch.processor.node;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.EventSet;
import io.stunwatch.processor.domain.ImpactBuilder;
import io.stunwatch.processor.domain.MigrationAssembler;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.view.StoreNames;
import io.stunwatch.processor.view.VmSamples;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
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
 *
 * <p>What it emits is a function of the input records' contents and event times, not of how they interleave or of
 * the wall clock, so that a live run, a replay at any speed and a catch-up after downtime end with the same values:
 * <ul>
 *   <li>only event time closes migrations; the wall clock does so only after the task has had no input for
 *       {@code process.idle-close}, and then as if event time had moved on by the time idle;</li>
 *   <li>a migration closed as UNKNOWN is revised by an end that comes later, and its impact rebuilt;</li>
 *   <li>an impact closed before every kind of the VM's samples (GPU, throughput, RDMA) has passed its range is
 *       provisional: it is rebuilt as each further kind passes (and one last time before the history no longer
 *       holds its range), since a kind that has not been seen yet may be one whose partition lags, not one the VM
 *       does not send;</li>
 *   <li>the alert is decided on its whole window: if the VM's samples have not reached the migration's start at its
 *       first event, it is decided when they do.</li>
 * </ul>
 * Each revision is emitted under the migration's id; readers keep the newest value of each key.
 *
 * <p>Why one class, beyond the parts it uses ({@link TrackedMigrations}, {@link SampleKinds}, {@link MigrationIndex},
 * {@link MigrationAlerting}, {@link HistoryPins}): an event, a sample and the look at due migrations each move the
 * same migration through one state machine (tracked, its alert pending, settled, provisional, reopened), and one
 * record's processing may take it through several of those steps. Split by path, each part would hold the others'
 * transitions.
 */
public final class MigrationProcessor implements Processor<String, Object, String, Object> {

  private final ProcessorConfig config;
  private final Clock clock;
  private final LiveCommits live;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, EventSet> events;
  private KeyValueStore<String, Migration> migrations;
  private MigrationAlerting alerting;
  private SampleHistory samples;
  private KeyValueStore<String, Tracked.Recent> recent;
  private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private KeyValueStore<String, MigrationImpact> impacts;
  private MigrationIndex index;
  private HistoryRetention retention;
  private TrackedMigrations tracked;
  private KeyValueStore<String, Tracked.Stuns> stuns;
  private HistoryPins pins;

  public MigrationProcessor(ProcessorConfig config, Clock clock) {
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

  /**
   * The alert window ends this long before the start: a sample and an event of the start's second arrive in either
   * order, and the alert must not depend on which came first.
   */
  static final Duration ALERT_WINDOW_END = Duration.ofSeconds(1);
  /** How often, in stream time, the due migrations are looked at. */
  static final long LOOK_EVERY_MILLIS = 1000;
  /** The stream time from which the next record looks at the due migrations ({@link #tick}). */
  private long nextLook = Long.MIN_VALUE;
  /** The wall time of the task's last input record, or of its initialization: see {@link #idleLook}. */
  private long lastInputWall;
  /**
   * The newest GPU reading (the guest's or its host's) of each VM of the task since it was (re)initialized: the VM's
   * own time, which decides when a provisional impact is final and whether the history still holds a settled
   * migration's range ({@link SampleHistory} keeps each VM's last {@code process.sample-retention} behind its own
   * newest readings). Never the task's stream time: VMs share partitions, and one VM's recording replayed after
   * another's, or a catch-up, puts them hours apart. Nor the VM's other kinds of readings: each kind has its own
   * partition, and a throughput log may run hours ahead of the GPU readings it goes with.
   */
  private final Map<String, Long> vmNewest = new HashMap<>();

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.events = context.getStateStore(StoreNames.MIGRATION_EVENTS);
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.samples = new SampleHistory(context);
    this.recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.impacts = context.getStateStore(StoreNames.IMPACTS);
    this.tracked = new TrackedMigrations(context.getStateStore(StoreNames.TRACKED), t -> {
      Migration m = migrations.get(t.migrationId());
      if (m != null && m.startTime() != null) {
        watch(t, m);
      }
    });
    this.stuns = context.getStateStore(StoreNames.VM_STUNS);
    this.pins = new HistoryPins(context);
    this.index = new MigrationIndex(context);
    index.fillOrderIndex(context.taskId().toString());
    this.alerting = new MigrationAlerting(config, live, context, samples);
    this.retention = new HistoryRetention(context, config.historyRetention());
    tracked.reset(); // (re)initialized after the task's stores were restored
    vmNewest.clear();
    nextLook = Long.MIN_VALUE;
    lastInputWall = context.currentSystemTimeMs();
    context.schedule(Duration.ofSeconds(5), PunctuationType.WALL_CLOCK_TIME, this::idleLook);
  }

  @Override
  public void process(Record<String, Object> record) {
    lastInputWall = context.currentSystemTimeMs();
    if (record.value() instanceof VcenterEvent e) {
      if (e.category() != VcenterEventCategory.POWER
          && e.category() != VcenterEventCategory.OTHER) {
        event(record, e); // a power event or another kept one is no migration, nor part of one's chain
      }
    } else {
      Long newest = vmNewest.get(record.key());
      if (SampleKinds.of(record.value()) == SampleKinds.GPU && (newest == null || record.timestamp() > newest)) {
        vmNewest.put(record.key(), record.timestamp());
      }
      if (!pins.isEmpty()) {
        reopen(record.key(), record.timestamp());
      }
      Map<String, TrackedMigrations.Awaited> ids = tracked.watching(record.key());
      if (ids != null) {
        samplesArrived(record.key(), ids, record.timestamp(), SampleKinds.of(record.value()));
      }
    }
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
      closeDue(streamTime + idle, idle);
    } else {
      closeDue(streamTime, 0);
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
      closeDue(streamTime);
      pins.expire(streamTime, tracked::contains);
      retention.tick(streamTime, id -> {
        if (tracked.contains(id)) {
          tracked.remove(id);
        }
      });
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
      String vmKey = record.key();
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(e.vmKey());
      Migration m = MigrationAssembler.assemble(after.events(), vm == null ? null : vm.value());
      Migration stored = migrations.get(id);
      if (stored != null && stored.state() == MigrationState.UNKNOWN && !m.state().isFinal()) {
        // Still no end: it stays closed at its timeout, showing what the new event told.
        m = unknown(m, m.startTime().plus(config.migrationTimeout()));
      }
      MigrationImpact settled = null;
      if (!m.equals(stored)) {
        migrations.put(id, m);
        context.forward(new Record<>(id, m, record.timestamp()));
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
          context.forward(new Record<>(id, settled, record.timestamp()));
        }
      }
      if (before == null) {
        Tracked.Recent r = recent.get(vmKey);
        recent.put(vmKey, (r == null ? new Tracked.Recent(null) : r).with(id));
        if (m.startTime() != null) {
          if (SampleKinds.windowKnown(samples, vmKey, m.startTime(), config.alertWindow())) {
            alerting.raiseIfUnderLoad(vmKey, m, record.timestamp());
          } else {
            alertPending(id, m, true); // its samples are behind its events: decided when they come
          }
        }
      }
      alerting.resolveIfEnded(m, record.timestamp());
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

  /**
   * Whether a settled migration's impact must be built again for {@code m} rather than only show it: its range or
   * result changed, and the VM's per-second history still holds the range.
   */
  private boolean rebuilds(MigrationImpact closed, Migration m, String vmKey) {
    Migration was = closed.migration();
    boolean moved = was.state() != m.state() || !Objects.equals(was.endTime(), m.endTime())
        || !Objects.equals(was.startTime(), m.startTime());
    return moved && m.startTime() != null && (historyHolds(vmKey, rangeStart(m).toEpochMilli())
        || pins.of(vmKey).stream().anyMatch(r -> r.id().equals(m.id())));
  }

  /**
   * Whether the VM's history still holds what starts at {@code millis}: within {@code process.sample-retention} and
   * the late grace of the VM's own newest sample ({@link SampleHistory#keep} less the block that rounds it), or of
   * the task's stream time less {@link SampleHistory#VM_SKEW} (the history keeps no VM longer than that) when the VM
   * has sent nothing since the task started.
   */
  private boolean historyHolds(String vmKey, long millis) {
    Long newest = vmNewest.get(vmKey);
    long reach = newest != null ? newest
        : context.currentStreamTimeMs() - SampleHistory.VM_SKEW.toMillis();
    return millis >= reach - config.sampleRetention().toMillis() - config.lateGrace().toMillis();
  }

  /**
   * Pins the migration's range in the VM's history ({@link HistoryPins}), from now until stream time is
   * {@link SampleHistory#VM_SKEW} past its end.
   */
  private void pin(String vmKey, String id, Migration m) {
    pins.pin(vmKey, new HistoryPins.Range(id, rangeStart(m).toEpochMilli(), rangeEnd(m).toEpochMilli()));
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
      Tracked.Migration t = new Tracked.Migration(r.id(), vmKey, m.state().isFinal(), due(m), true,
          !alerting.raised(r.id()), 0);
      tracked.put(t);
      watch(t, m);
      tracked.nextDue(Long.MIN_VALUE);
    }
  }

  /**
   * Tracks a migration until it settles: an open one is due at its timeout, an ended one when its settle window is
   * over. What was pending of its alert stays pending.
   */
  private void track(String id, String vmKey, Migration m, Tracked.Migration previous) {
    long due = due(m);
    Tracked.Migration t = new Tracked.Migration(id, vmKey, m.state().isFinal(), due, false,
        previous != null && previous.alertPending(), 0);
    tracked.put(t);
    pin(vmKey, id, m);
    tracked.dueAt(due);
    tracked.rangeChanged(id); // its range may have changed with its end
    tracked.unwatch(vmKey, id);
    if (t.alertPending()) {
      watch(t, m);
    }
  }

  /** When a migration is due: an ended one when its settle window is over, an open one at its timeout. */
  private long due(Migration m) {
    return m.state().isFinal() && m.endTime() != null
        ? m.endTime().plus(config.settleWindow()).toEpochMilli()
        : m.startTime().plus(config.migrationTimeout()).toEpochMilli();
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
      watch(next, m);
    }
  }

  /** Watches the VM's samples for what {@code t} waits for: its alert window, its impact's range. */
  private void watch(Tracked.Migration t, Migration m) {
    tracked.watch(t, new TrackedMigrations.Awaited(
        t.alertPending() ? m.startTime().minus(ALERT_WINDOW_END).toEpochMilli() : Long.MAX_VALUE,
        t.provisional() ? rangeEnd(m).plusSeconds(1).toEpochMilli() : Long.MAX_VALUE,
        // a provisional impact is rebuilt until the history no longer holds the start of its range
        t.provisional() ? rangeStart(m).plus(config.sampleRetention()).toEpochMilli() : Long.MIN_VALUE));
  }

  /**
   * A sample of a VM that migrations wait on, recorded in its history before it reaches this processor: decides an
   * alert whose window it completes, and rebuilds a provisional impact when it is the first of its kind past the
   * impact's range (its kind's samples of the range are then all in the history: each kind arrives in order).
   */
  private void samplesArrived(String vmKey, Map<String, TrackedMigrations.Awaited> ids, long timestamp,
      int kind) {
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
          && SampleKinds.windowKnown(samples, vmKey, m.startTime(), config.alertWindow())) {
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
   * {@link #CLOSE_FALLBACK_MILLIS} past due, provisionally), closing timed-out ones as UNKNOWN first; rebuilds a
   * provisional impact one last time before the history no longer holds its range.
   */
  void closeDue(long time) {
    closeDue(time, 0);
  }

  /**
   * As {@link #closeDue(long)}, {@code idle} ms of wall time after the task's last input: every VM's own time is
   * then taken to have moved on by as much, as the task's has.
   */
  private void closeDue(long time, long idle) {
    Collection<Tracked.Migration> all = tracked.all();
    if (tracked.nextDue() > time) {
      return;
    }
    List<Tracked.Migration> due = new ArrayList<>();
    long next = Long.MAX_VALUE;
    for (Tracked.Migration t : all) {
      long at = t.provisional() ? tracked.provisionalUntil(t.migrationId()) : t.dueAtMillis();
      if (t.provisional() && at > Long.MIN_VALUE) {
        // Rebuilt until its VM's own history no longer holds the range: another VM's samples running ahead in the
        // task say nothing of this one's, which may be a repartition hop or a whole recording behind.
        Long newest = vmNewest.get(t.vmKey());
        long vmTime = Math.max(newest == null ? Long.MIN_VALUE : newest + idle,
            time - SampleHistory.VM_SKEW.toMillis());
        if (at > vmTime) {
          next = Math.min(next, at);
          continue;
        }
        due.add(t);
        continue;
      }
      if (at <= time) {
        due.add(t);
      } else {
        next = Math.min(next, at);
      }
    }
    tracked.nextDue(next);
    // In the store's key order, as a scan of it gave them: the order of the outputs must not depend on a hash map.
    due.sort(Comparator.comparing(Tracked.Migration::migrationId));
    for (Tracked.Migration t : due) {
      Migration m = migrations.get(t.migrationId());
      if (m == null || m.startTime() == null) {
        tracked.remove(t.migrationId());
        continue;
      }
      if (t.provisional()) {
        settle(t, m, SampleKinds.ALL); // the last rebuild: the history is about to lose its range
        continue;
      }
      Instant from = rangeEnd(m).plusSeconds(1);
      int passed = SampleKinds.of(samples.range(t.vmKey(), from, from.plusMillis(CLOSE_FALLBACK_MILLIS)));
      if (!caughtUp(t, passed) && t.dueAtMillis() + CLOSE_FALLBACK_MILLIS > time) {
        tracked.nextDue(Long.MIN_VALUE); // still due: look again at the next second of stream time
        continue; // the VM's samples of the impact's range may still be on their way
      }
      settle(t, m, passed);
    }
  }

  private Instant rangeStart(Migration m) {
    return m.startTime().minus(config.beforeWindow());
  }

  private Instant rangeEnd(Migration m) {
    Instant end = m.endTime() != null ? m.endTime() : m.startTime();
    return end.plus(config.settleWindow()).plusSeconds(1);
  }

  /**
   * Builds the impact of a due migration and emits what changed: the migration closed as UNKNOWN if it never ended,
   * its impact, its alert resolved with the impact's figures. Closed at its due time, not at the look's: the outputs
   * must not depend on when the look ran (after a restart it runs at other times). {@code passed}: the kinds of the
   * VM's samples that have passed the range; with all of them the impact is final, otherwise it is provisional.
   */
  private void settle(Tracked.Migration t, Migration m, int passed) {
    boolean complete = passed == SampleKinds.ALL;
    long at = t.dueAtMillis();
    // The migration as it is now, not as it was tracked: an end that came after the impact was first closed revises
    // the migration even where the history could no longer rebuild the impact, and must never be closed again.
    if (!m.state().isFinal() && m.state() != MigrationState.UNKNOWN) {
      m = unknown(m, Instant.ofEpochMilli(at));
      migrations.put(m.id(), m);
      context.forward(new Record<>(m.id(), m, at));
    }
    if (t.alertPending()
        && (complete || SampleKinds.windowKnown(samples, t.vmKey(), m.startTime(), config.alertWindow()))) {
      alertPending(t.migrationId(), m, false);
      alerting.raiseIfUnderLoad(t.vmKey(), m, at);
    }
    MigrationImpact stored = impacts.get(m.id());
    VmSamples history = samples.range(t.vmKey(), rangeStart(m), rangeEnd(m));
    Tracked.Stuns s = stuns.get(t.vmKey());
    MigrationImpact impact = ImpactBuilder.build(m, history, s,
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
      watch(p, m);
    }
  }

  /**
   * Whether every kind of sample the VM sent within the impact's range (GPU, training throughput, RDMA) has a second
   * after it, given the kinds that have ({@code passed}): each kind arrives in order on its own partition, so the
   * range then holds all of that kind it ever will. Asked every second of stream time while a migration waits, so
   * the cheap answers come first: nothing after the range yet (the usual wait), or every kind after it. A kind not
   * seen in the range at all may still come (its partition behind the others): the impact closed then is
   * provisional ({@link #settle}).
   */
  private boolean caughtUp(Tracked.Migration t, int passed) {
    if (passed == 0 || passed == SampleKinds.ALL) {
      return passed == SampleKinds.ALL;
    }
    // Some kinds have moved on: the rest are owed only if the VM sent them within the range. Read once per migration
    // (again after a restart).
    int expected = tracked.expectedKinds(t.migrationId(), () -> {
      Migration m = migrations.get(t.migrationId());
      return SampleKinds.of(samples.range(t.vmKey(), rangeStart(m), rangeEnd(m)));
    });
    return (passed & expected) == expected;
  }

  private static Migration unknown(Migration m, Instant at) {
    return m.withOutcome(MigrationState.UNKNOWN, null, "no end seen within the migration timeout", at);
  }

}
