package io.stunwatch.collectors.nvidiasmi;

import java.time.Clock;
import java.time.Duration;

/**
 * Decides when a streaming child that has gone quiet is hung, so that it can be killed and restarted, and not
 * before. Three rules:
 * <ol>
 *   <li>after its first line, a child may be silent for three sampling intervals, and never less than
 *       {@link #FLOOR}: one scheduling hiccup on a busy machine is not a hung driver call;</li>
 *   <li>before its first line it may take {@code startupGrace} (NVML starts slowly without persistence mode);</li>
 *   <li>time in which the watchdog itself did not run is nobody's silence. A vMotion stuns the whole guest for
 *       seconds to minutes, and the guest's clocks jump over the stun: the child, its reader and the watchdog all
 *       stopped together. When a check comes more than {@link #PAUSE} after it was due, or the clock went back,
 *       the silence is counted again from that check: the child gets a full limit after the resume to print the
 *       readings that show what the migration did.</li>
 * </ol>
 * Its checks are called from one thread, its {@link #started} and {@link #line} from another.
 */
final class SilenceWatchdog {

  /** The shortest silence limit, whatever the interval. */
  static final Duration FLOOR = Duration.ofSeconds(10);
  /** A check this late means this VM or process did not run in between. */
  static final Duration PAUSE = Duration.ofSeconds(2);

  /** What a check found. */
  enum Verdict {
    /** Within its limit. */
    QUIET,
    /** The checks themselves were held up, as by a stun: the silence is counted again from now. */
    PAUSED,
    /** Silent past its limit: hung. */
    HUNG
  }

  private final Duration limit;
  private final Duration startupLimit;
  private final long checkEveryMs;
  private final Clock clock;
  private volatile long silentSince;
  private volatile boolean seenLine;
  private long lastCheck = Long.MIN_VALUE;
  private long pausedMs;

  /**
   * @param interval     the child's sampling interval
   * @param startupGrace how long a new child may take to print its first line
   * @param floor        the shortest silence limit ({@link #FLOOR} but in tests)
   * @param checkEvery   how often {@link #check} is called
   * @param clock        the time; it jumps over a stun, as the guest's clocks do
   */
  SilenceWatchdog(Duration interval, Duration startupGrace, Duration floor, Duration checkEvery, Clock clock) {
    Duration three = interval.multipliedBy(3);
    this.limit = three.compareTo(floor) > 0 ? three : floor;
    this.startupLimit = startupGrace.compareTo(limit) > 0 ? startupGrace : limit;
    this.checkEveryMs = checkEvery.toMillis();
    this.clock = clock;
    this.silentSince = clock.millis();
  }

  /** How long a child may print nothing after its first line. */
  Duration limit() {
    return limit;
  }

  /** A new child started: its silence counts from now, with the startup grace. */
  void started() {
    seenLine = false;
    silentSince = clock.millis();
  }

  /** The child printed a line. */
  void line() {
    seenLine = true;
    silentSince = clock.millis();
  }

  /** The silence so far, in milliseconds. */
  long silentMs() {
    return clock.millis() - silentSince;
  }

  /** The current limit: the startup grace until the first line. */
  Duration currentLimit() {
    return seenLine ? limit : startupLimit;
  }

  /** The pause the latest {@link Verdict#PAUSED} check found, in milliseconds. */
  long pausedMs() {
    return pausedMs;
  }

  /** One check: called every {@code checkEvery}. */
  Verdict check() {
    long now = clock.millis();
    long previous = lastCheck;
    lastCheck = now;
    if (previous != Long.MIN_VALUE && (now < previous || now - previous > checkEveryMs + PAUSE.toMillis())) {
      pausedMs = now - previous;
      silentSince = now;
      return Verdict.PAUSED;
    }
    return now - silentSince > currentLimit().toMillis() ? Verdict.HUNG : Verdict.QUIET;
  }
}
