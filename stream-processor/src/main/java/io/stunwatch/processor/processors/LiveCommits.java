package io.stunwatch.processor.processors;

import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Asks Kafka Streams for a commit as soon as the current record is processed when that record is part of a live
 * migration alert's path, so that the alert does not wait for {@code process.commit-interval}.
 *
 * <p>Why: under exactly-once a record written by the topology is visible only after the transaction that wrote it
 * commits, and a "migration under load" alert crosses two transactions: the vCenter event's hop to its VM's
 * partition ({@code events-by-vm}), then the alert itself. At the processor's commit interval, longer than Kafka's
 * 100 ms, the alert would wait up to two intervals. A commit is requested for a record no
 * older than {@link #LIVE_WITHIN} by the injected clock: a vCenter event of a migration happening now (the vCenter
 * collector reads events every few seconds) or its alert. A catch-up or a replay, whose records are older, commits
 * at the interval, where fewer, larger transactions are what makes it fast. A live site sees a few such records a
 * minute, so the extra commits cost nothing measurable.
 */
public final class LiveCommits {

  /**
   * How old (by the processor's clock) a record may be and still count as live. Generous: vCenter's clock and the
   * processor's may differ, and the collector may be a poll or a retry behind.
   */
  public static final Duration LIVE_WITHIN = Duration.ofMinutes(5);

  private final Clock clock;

  public LiveCommits(Clock clock) {
    this.clock = clock;
  }

  /** Whether a record of event time {@code eventMillis} is live now (a future time is: clocks differ). */
  private boolean isLive(long eventMillis) {
    return clock.millis() - eventMillis <= LIVE_WITHIN.toMillis();
  }

  /**
   * Requests a commit of {@code context}'s task after the current record when {@code eventMillis} is live.
   *
   * @return whether a commit was requested
   */
  public boolean requestIfLive(ProcessorContext<?, ?> context, long eventMillis) {
    if (!isLive(eventMillis)) {
      return false;
    }
    context.commit();
    return true;
  }
}
