package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterCheckpoint.RecentEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventCursorTest {

  private static final Instant T = Instant.parse("2026-11-26T12:00:00Z");
  private static final Duration OVERLAP = Duration.ofMinutes(10);

  private static VcenterCheckpoint saved(EventCursor c) {
    return new VcenterCheckpoint("vc", c.last(), c.keysAtLast(), T, Map.of(), List.of(), c.recent());
  }

  @Test
  void anEventThatBecomesVisibleLateWithAnOlderCreatedTimeIsStillNewAndNoneIsNewTwice() {
    EventCursor first = EventCursor.from(null, OVERLAP);
    assertThat(first.readFrom(T.minusSeconds(3600))).isEqualTo(T.minusSeconds(3600));
    assertThat(first.accept(100, T.minusSeconds(60))).isTrue();
    assertThat(first.accept(101, T)).isTrue();
    VcenterCheckpoint c = saved(first);

    EventCursor next = EventCursor.from(c, OVERLAP);
    assertThat(next.readFrom(null)).as("the read starts the overlap behind the newest").isEqualTo(T.minus(OVERLAP));
    assertThat(next.accept(100, T.minusSeconds(60))).as("published before").isFalse();
    assertThat(next.accept(101, T)).isFalse();
    // key 99 was created two minutes ago but is visible only now (a host that reconnected)
    assertThat(next.accept(99, T.minusSeconds(120))).as("late, within the window").isTrue();
    assertThat(next.accept(102, T.plusSeconds(5))).isTrue();
    assertThat(next.last()).isEqualTo(T.plusSeconds(5));
    assertThat(next.keysAtLast()).containsExactly(102L);
    assertThat(next.recent()).extracting(RecentEvent::key).containsExactly(99L, 100L, 101L, 102L);
  }

  @Test
  void theWindowMovesWithTheNewestEventAndForgetsWhatFallsBehindIt() {
    EventCursor c = EventCursor.from(null, OVERLAP);
    c.accept(1, T);
    c.accept(2, T.plus(OVERLAP).plusSeconds(1));
    assertThat(c.recent()).extracting(RecentEvent::key).containsExactly(2L);
    EventCursor after = EventCursor.from(saved(c), OVERLAP);
    assertThat(after.accept(0, T.minusSeconds(1))).as("behind the window: lost, and not re-read").isFalse();
  }

  @Test
  void aCheckpointFromBeforeTheWindowRepublishesNothing() {
    VcenterCheckpoint legacy = new VcenterCheckpoint("vc", T, List.of(7L, 8L), T, Map.of(), List.of());
    EventCursor c = EventCursor.from(legacy, OVERLAP);
    assertThat(c.accept(5, T.minusSeconds(30))).as("it published everything before T").isFalse();
    assertThat(c.accept(7, T)).isFalse();
    assertThat(c.accept(9, T)).isTrue();
    assertThat(c.keysAtLast()).containsExactly(7L, 8L, 9L);
  }
}
