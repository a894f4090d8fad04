package io.stunwatch.logging;

import java.time.Clock;

/**
 * Caps how many lines a repeating problem writes to the log: at most {@code perMinute} a minute, and the next line
 * that gets through says how many were held back. Counting the problem is the caller's job (a metric); this only
 * keeps a flood of bad input from flooding the log too.
 */
public final class LogLimiter {

  private final int perMinute;
  private final Clock clock;
  private long windowStart;
  private int inWindow;
  private long suppressed;

  public LogLimiter(int perMinute, Clock clock) {
    if (perMinute < 1) {
      throw new IllegalArgumentException("perMinute must be at least 1");
    }
    this.perMinute = perMinute;
    this.clock = clock;
    this.windowStart = clock.millis();
  }

  /**
   * Asks to log one line.
   *
   * @return null when the line must be held back; else a suffix to append to it: empty, or
   *         {@code " (N more not logged since the last line)"}
   */
  public synchronized String admit() {
    long now = clock.millis();
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
