package io.stunwatch.collectors.nvidiasmi;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.nvidiasmi.SilenceWatchdog.Verdict;
import io.stunwatch.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SilenceWatchdogTest {

  private static final Duration CHECK = Duration.ofMillis(500);
  private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00Z"));

  private SilenceWatchdog watchdog(Duration interval) {
    return new SilenceWatchdog(interval, Duration.ofSeconds(30), SilenceWatchdog.FLOOR, CHECK, clock);
  }

  /** Moves the clock on in checks, as the scheduler would, and returns the last verdict. */
  private Verdict checksFor(SilenceWatchdog w, Duration d) {
    Verdict v = w.check();
    for (long t = 0; t < d.toMillis(); t += CHECK.toMillis()) {
      clock.advance(CHECK);
      v = w.check();
      if (v != Verdict.QUIET) {
        return v;
      }
    }
    return v;
  }

  @Test
  void aFastIntervalStillGetsTheFloor() {
    SilenceWatchdog w = watchdog(Duration.ofMillis(50));
    w.started();
    w.line();
    assertThat(checksFor(w, Duration.ofMillis(9_500))).as("9.5 s silent at a 50 ms interval").isEqualTo(Verdict.QUIET);
    assertThat(checksFor(w, Duration.ofSeconds(1))).as("past 10 s").isEqualTo(Verdict.HUNG);
  }

  @Test
  void aSlowIntervalGetsThreeOfThem() {
    SilenceWatchdog w = watchdog(Duration.ofSeconds(5));
    w.started();
    w.line();
    assertThat(w.limit()).isEqualTo(Duration.ofSeconds(15));
    assertThat(checksFor(w, Duration.ofSeconds(14))).isEqualTo(Verdict.QUIET);
    assertThat(checksFor(w, Duration.ofSeconds(2))).isEqualTo(Verdict.HUNG);
  }

  @Test
  void aNewChildHasTheStartupGraceForItsFirstLine() {
    SilenceWatchdog w = watchdog(Duration.ofSeconds(1));
    w.started();
    assertThat(checksFor(w, Duration.ofSeconds(29))).isEqualTo(Verdict.QUIET);
    w.line();
    assertThat(checksFor(w, Duration.ofSeconds(9))).as("after its first line, the plain limit").isEqualTo(
        Verdict.QUIET);
    assertThat(checksFor(w, Duration.ofSeconds(2))).isEqualTo(Verdict.HUNG);
  }

  @Test
  void aStunLongerThanTheLimitIsNotTheChildsSilenceAndItHasAFullLimitAfterTheResume() {
    SilenceWatchdog w = watchdog(Duration.ofSeconds(1));
    w.started();
    w.line();
    assertThat(checksFor(w, Duration.ofSeconds(3))).isEqualTo(Verdict.QUIET);
    // a 45 s stun: no check ran in it, and the guest's clock jumps over it
    clock.advance(Duration.ofSeconds(45));
    assertThat(w.check()).as("the first check after the resume").isEqualTo(Verdict.PAUSED);
    assertThat(w.pausedMs()).isEqualTo(45_000);
    // nvidia-smi is slow to print its first line after the resume: it keeps its child for a whole limit
    assertThat(checksFor(w, Duration.ofMillis(9_500))).isEqualTo(Verdict.QUIET);
    w.line();
    assertThat(checksFor(w, Duration.ofSeconds(9))).isEqualTo(Verdict.QUIET);
    // and a child that never prints again after the resume is still found hung
    assertThat(checksFor(w, Duration.ofSeconds(2))).isEqualTo(Verdict.HUNG);
  }

  @Test
  void aLateCheckWithinThePauseMarginIsNoPause() {
    SilenceWatchdog w = watchdog(Duration.ofSeconds(1));
    w.started();
    w.line();
    w.check();
    clock.advance(CHECK.plus(Duration.ofMillis(1_900)));
    assertThat(w.check()).as("a check 1.9 s late on a busy machine").isEqualTo(Verdict.QUIET);
    assertThat(w.silentMs()).isEqualTo(2_400);
  }

  @Test
  void aClockThatGoesBackCountsTheSilenceFromThere() {
    SilenceWatchdog w = watchdog(Duration.ofSeconds(1));
    w.started();
    w.line();
    checksFor(w, Duration.ofSeconds(5));
    clock.advance(Duration.ofHours(-1));
    assertThat(w.check()).isEqualTo(Verdict.PAUSED);
    assertThat(checksFor(w, Duration.ofMillis(9_500))).as("not blind for the hour, nor hung at once")
        .isEqualTo(Verdict.QUIET);
    assertThat(checksFor(w, Duration.ofSeconds(1))).isEqualTo(Verdict.HUNG);
  }
}
