package io.stunwatch.processor.node;

import io.stunwatch.model.Migration;
import io.stunwatch.processor.ProcessorConfig;
import java.time.Instant;

/**
 * The spans of event time a migration's state machine works with, all from the migration and the configuration: the
 * range of the VM's history its impact is built from, and when it is due to settle.
 */
final class MigrationRanges {

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
}
