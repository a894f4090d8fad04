package io.stunwatch.launcher.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class SimulatedClockTest {

  /** Real time that a test moves. */
  static final class Real extends Clock {
    Instant now = Instant.parse("2026-11-21T12:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  final Real real = new Real();

  @Test
  void runsSpeedTimesFasterFromThePastUntilItReachesThePresentThenWithRealTime() {
    SimulatedClock c = new SimulatedClock(real, real.now.minus(Duration.ofHours(2)), 60);
    assertThat(c.instant()).isEqualTo("2026-11-21T10:00:00Z");
    assertThat(c.live()).isFalse();
    assertThat(c.speedNow()).isEqualTo(60);

    real.now = real.now.plusSeconds(60); // one real minute: an hour simulated
    assertThat(c.instant()).isEqualTo("2026-11-21T11:00:00Z");

    // two hours at 60x minus the minutes real time moved meanwhile: it meets the present after 2h/59
    real.now = Instant.parse("2026-11-21T12:03:00Z");
    assertThat(c.instant()).isEqualTo(real.now);
    assertThat(c.live()).isTrue();
    assertThat(c.speedNow()).isEqualTo(1);
    real.now = real.now.plusSeconds(10);
    assertThat(c.instant()).isEqualTo(real.now);
  }

  @Test
  void untilSaysHowLongToWaitInRealTimeForASimulatedInstant() {
    SimulatedClock c = new SimulatedClock(real, real.now.minus(Duration.ofHours(1)), 60);
    assertThat(c.until(Instant.parse("2026-11-21T11:00:00Z"))).isZero(); // already there
    assertThat(c.until(Instant.parse("2026-11-21T11:30:00Z"))).isEqualTo(Duration.ofSeconds(30));
    // past the meeting point, real time governs: 12:05 is five real minutes away
    assertThat(c.until(Instant.parse("2026-11-21T12:05:00Z"))).isEqualTo(Duration.ofMinutes(5));
    real.now = real.now.plusSeconds(30);
    assertThat(c.until(Instant.parse("2026-11-21T11:30:00Z"))).isZero();
  }

  @Test
  void neverStartsInTheFutureNorSlowerThanRealTime() {
    assertThatThrownBy(() -> new SimulatedClock(real, real.now.plusSeconds(1), 60))
        .hasMessageContaining("future");
    assertThatThrownBy(() -> new SimulatedClock(real, real.now, 0.5)).hasMessageContaining("at least 1");
  }
}
