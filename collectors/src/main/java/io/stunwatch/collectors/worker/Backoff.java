package io.stunwatch.collectors.worker;

import java.time.Duration;

/** Exponential backoff between restarts: doubles from {@code initial} to {@code max}, reset after a healthy run. */
public final class Backoff {

  private final Duration initial;
  private final Duration max;
  private Duration next;

  public Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
    this.next = initial;
  }

  /** The delay before the next attempt; each call doubles the one after, up to {@code max}. */
  public synchronized Duration nextDelay() {
    Duration d = next;
    Duration doubled = next.multipliedBy(2);
    next = doubled.compareTo(max) > 0 ? max : doubled;
    return d;
  }

  /** Called after an attempt that ran well for a while: the next failure starts from {@code initial} again. */
  public synchronized void reset() {
    next = initial;
  }
}
