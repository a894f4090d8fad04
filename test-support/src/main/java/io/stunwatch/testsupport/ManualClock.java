package io.stunwatch.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A UTC clock that stands still until the test moves it. Not thread-safe: one test thread moves it. */
public final class ManualClock extends Clock {

  private Instant now;

  public ManualClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock on. */
  public void advance(Duration d) {
    now = now.plus(d);
  }

  /** Sets the clock. */
  public void set(Instant t) {
    now = t;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }
}
