package io.stunwatch.logging;

import java.util.function.LongSupplier;

/**
 * Caps how many lines a repeating problem writes to the log: at most {@code perMinute} a minute, and the next line
 * that gets through says how many were held back. Counting the problem is the caller's job (a metric); this only
 * keeps a flood of bad input from flooding the log too.
 *
 * <p>A minute is a minute of the wall clock (a monotonic one), never a clock the caller simulates or replays: the
 * limit is about how much a person reading the log sees, and a demo running time 60 times faster, or a replay of
 * last week, would otherwise write sixty times as many lines a real minute.
 */
public final class LogLimiter {

  private final int perMinute;
  private final LongSupplier millis;
  private long windowStart;
  private int inWindow;
  private long suppressed;

  public LogLimiter(int perMinute) {
    this(perMinute, () -> System.nanoTime() / 1_000_000L);
  }

  /** With its own monotonic millisecond ticker (tests drive one by hand). */
  public LogLimiter(int perMinute, LongSupplier millis) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("perMinute must be at least 1");
    }
    this.perMinute = perMinute;
    this.millis = millis;
    this.windowStart = millis.getAsLong();
  }

  /**
   * Asks to log one line.
   *
   * @return null when the line must be held back; else a suffix to append to it: empty, or
   *         {@code " (N more not logged since the last line)"}
   */
  public synchronized String admit() {
    long now = millis.getAsLong();
    if (now - windowStart >= 60_000L) {
      windowStart = now;
      inWindow = 0;
    }
    if (inWindow++ >= perMinute) {
      suppressed++;
      return null;
    }
    if (suppressed == 0) {
      return "";
    }
    String suffix = " (" + suppressed + " more not logged since the last line)";
    suppressed = 0;
    return suffix;
  }
}
