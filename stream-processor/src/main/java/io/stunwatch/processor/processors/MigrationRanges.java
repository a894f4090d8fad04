package io.stunwatch.processor.processors;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.Tracked;
import java.time.Duration;
import java.time.Instant;

/**
 * The spans of event time a migration's state machine works with, all from the migration and the configuration: the
 * range of the VM's history its impact is built from, when it is due to settle, and what it waits for.
 */
final class MigrationRanges {

  /**
   * How far stream time must pass a migration's due time before it is closed although the VM's own samples have not
   * caught up with it (see {@link TrackedMigrations#caughtUp}): samples of a kind that stopped (the VM powered off,
   * its collector died, training ended) must not hold the impact forever. Stream time is the newest record of any of
   * the task's partitions; the VM's samples may be a fetch behind it, which a replay or a catch-up multiplies.
   */
  static final long CLOSE_FALLBACK_MILLIS = 60_000;
  /**
   * The alert window ends this long before the start: a sample and an event of the start's second arrive in either
   * order, and the alert must not depend on which came first.
   */
  static final Duration ALERT_WINDOW_END = Duration.ofSeconds(1);

  private final ProcessorConfig config;

  MigrationRanges(ProcessorConfig config) {
    this.config = config;
  }

  /** The impact's range starts {@code process.before-window} before the migration. */
  Instant start(Migration m) {
    return m.startTime().minus(config.beforeWindow());
  }

  /** The impact's range ends the settle window and a second after the migration's end (or start, if it has none). */
  Instant end(Migration m) {
    Instant end = m.endTime() != null ? m.endTime() : m.startTime();
    return end.plus(config.settleWindow()).plusSeconds(1);
  }

  /**
   * Whether the VM's history still holds what starts at {@code start}: within {@code process.sample-retention} and
   * the late grace of the VM's own newest sample ({@code vmNewest}, null when the VM has sent nothing since the task
   * started; {@link SampleHistory#keep} less the block that rounds it), or else of the task's stream time less
   * {@link SampleHistory#VM_SKEW} (the history keeps no VM longer than that).
   */
  boolean historyHolds(Long vmNewest, long streamTime, Instant start) {
    long reach = vmNewest != null ? vmNewest : streamTime - SampleHistory.VM_SKEW.toMillis();
    return start.toEpochMilli() >= reach - config.sampleRetention().toMillis() - config.lateGrace().toMillis();
  }

  /** When a migration is due: an ended one when its settle window is over, an open one at its timeout. */
  long due(Migration m) {
    return m.state().isFinal() && m.endTime() != null
        ? m.endTime().plus(config.settleWindow()).toEpochMilli()
        : m.startTime().plus(config.migrationTimeout()).toEpochMilli();
  }

  /** What {@code t} waits for in the VM's samples: its alert window, its impact's range. */
  TrackedMigrations.Awaited awaited(Tracked.Migration t, Migration m) {
    return new TrackedMigrations.Awaited(
        t.alertPending() ? m.startTime().minus(ALERT_WINDOW_END).toEpochMilli() : Long.MAX_VALUE,
        t.provisional() ? end(m).plusSeconds(1).toEpochMilli() : Long.MAX_VALUE,
        // a provisional impact is rebuilt until the history no longer holds the start of its range
        t.provisional() ? start(m).plus(config.sampleRetention()).toEpochMilli() : Long.MIN_VALUE);
  }

  /** {@code m} closed as UNKNOWN at {@code at}: no end came within its timeout. */
  static Migration unknown(Migration m, Instant at) {
    return m.withOutcome(MigrationState.UNKNOWN, null, "no end seen within the migration timeout", at);
  }
}
