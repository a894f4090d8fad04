package io.stunwatch.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogLimiterTest {

  @Test
  void admitsAtMostPerMinuteOfItsOwnTickerAndTheNextLineSaysHowManyWereHeldBack() {
    AtomicLong now = new AtomicLong(1_000);
    LogLimiter l = new LogLimiter(2, now::get);
    assertThat(l.admit()).isEmpty();
    assertThat(l.admit()).isEmpty();
    assertThat(l.admit()).isNull();
    assertThat(l.admit()).isNull();
    now.addAndGet(59_999);
    assertThat(l.admit()).as("still the same minute").isNull();
    now.addAndGet(1);
    assertThat(l.admit()).isEqualTo(" (3 more not logged since the last line)");
    assertThat(l.admit()).isEmpty();
  }

  @Test
  void aMinuteIsAWallClockMinuteWhateverClockTheCallerRunsOn() {
    LogLimiter l = new LogLimiter(1);
    assertThat(l.admit()).isEmpty();
    // a simulated clock 60 times faster, or a replay of last week, moves nothing here: the window is real time
    assertThat(l.admit()).isNull();
  }
}
