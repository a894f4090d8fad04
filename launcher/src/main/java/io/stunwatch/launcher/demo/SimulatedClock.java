package io.stunwatch.launcher.demo;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The demo's time: it starts some history in the past and runs {@code speed} times faster than real time until it
 * reaches the present, then runs with real time.
 *
 * <p>It is never ahead of real time, so Kafka never receives records from the future (Kafka 4 rejects timestamps
 * over an hour ahead) and the API's "last 24 hours" holds the demo's data. It never goes back. The processor and
 * the API are given this clock, so their wall-clock decisions (closing a migration that never ended, dropping a
 * silent VM's series) agree with the simulated fleet's event time.
 */
public final class SimulatedClock extends Clock {

  private final Clock real;
  private final long startMillis;
  private final long realStartMillis;
  private final double speed;

  /**
   * @param real  real time
   * @param start the first simulated instant, at most {@code real}'s present
   * @param speed simulated seconds per real second until the present is reached, at least 1
   */
  public SimulatedClock(Clock real, Instant start, double speed) {
    if (!(speed >= 1)) {
      throw new IllegalArgumentException("speed must be at least 1, not " + speed);
    }
    this.real = real;
    this.realStartMillis = real.millis();
    if (start.toEpochMilli() > realStartMillis) {
      throw new IllegalArgumentException("the simulation cannot start in the future: " + start);
    }
    this.startMillis = start.toEpochMilli();
    this.speed = speed;
  }

  @Override
  public long millis() {
    long now = real.millis();
    return Math.min(startMillis + (long) ((now - realStartMillis) * speed), now);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  /** Whether simulated time has reached real time (and runs with it from now on). */
  public boolean live() {
    return millis() >= real.millis();
  }

  /** The speed now: the configured speed before the present is reached, 1 after. */
  public double speedNow() {
    return live() ? 1 : speed;
  }

  /** Real time to wait until this clock reads {@code t}; zero when it already does. */
  public Duration until(Instant t) {
    long target = t.toEpochMilli();
    // Simulated time is min(accelerated, real): it reads t once both have reached t.
    long realAt = Math.max(realStartMillis + (long) Math.ceil((target - startMillis) / speed), target);
    return Duration.ofMillis(Math.max(0, realAt - real.millis()));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException("the simulated clock is UTC only");
  }
}
