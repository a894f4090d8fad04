package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.junit.jupiter.api.Test;

class LiveCommitsTest {

  private static final Instant NOW = Instant.parse("2026-11-25T07:00:00Z");
  private final LiveCommits live = new LiveCommits(Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void aRecordFromTheLastFiveMinutesAsksForACommit() {
    MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    assertThat(live.requestIfLive(context, NOW.minus(Duration.ofMinutes(4)).toEpochMilli())).isTrue();
    assertThat(context.committed()).isTrue();
  }

  @Test
  void anOlderRecordOfACatchUpOrReplayWaitsForTheCommitInterval() {
    MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    assertThat(live.requestIfLive(context, NOW.minus(Duration.ofMinutes(6)).toEpochMilli())).isFalse();
    assertThat(context.committed()).isFalse();
  }

  @Test
  void aRecordAheadOfTheProcessorsClockIsLiveAsClocksDiffer() {
    MockProcessorContext<String, Object> context = new MockProcessorContext<>();
    assertThat(live.requestIfLive(context, NOW.plusSeconds(30).toEpochMilli())).isTrue();
    assertThat(context.committed()).isTrue();
  }
}
