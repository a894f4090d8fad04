package io.stunwatch.processor;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link StartupTimeline} divides a start into its parts, each from the clock at the moment it began. */
class StartupTimelineTest {

  @Test
  void aStartThatRestoresIsDividedIntoTheJvmTheJoinTheRestoreAndTheRest() {
    AtomicLong now = new AtomicLong(10_000);
    StartupTimeline t = new StartupTimeline(now::get, 9_000);
    t.processorStarting(); // 1 s after the JVM started
    now.set(14_500);
    t.restoreStarted();
    now.set(15_000);
    t.restoreStarted(); // a second store: the first start counts
    now.set(16_000);
    t.restoreEnded("vm-live", 1_200);
    now.set(17_000);
    t.restoreEnded("alerts", 300);
    assertThat(t.line(17_250)).isEqualTo("Running 8250 ms after the JVM started: the JVM and topology until the "
        + "processor started 1000 ms, the group's join and assignment and the stores' opening 4500 ms, restoring 1500 "
        + "changelog records 2500 ms (vm-live 1200, alerts 300), then until every task ran 250 ms");
  }

  @Test
  void aStartWithNothingToRestoreSaysSo() {
    AtomicLong now = new AtomicLong(2_000);
    StartupTimeline t = new StartupTimeline(now::get, 1_000);
    t.processorStarting();
    assertThat(t.line(5_000)).endsWith("until the processor started 1000 ms, then the group's join and assignment "
        + "and the stores' opening 3000 ms, no changelog to restore");
  }
}
