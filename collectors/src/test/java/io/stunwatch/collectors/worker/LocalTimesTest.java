package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** Berlin falls back from 03:00 CEST to 02:00 CET on 2026-10-25: 02:00 to 02:59 happens twice. */
class LocalTimesTest {

  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  private static LocalDateTime local(String t) {
    return LocalDateTime.parse("2026-10-25T" + t);
  }

  @Test
  void aStreamThroughTheFallBackHourMovesForwardAndIsNeverPlacedAnHourEarly() {
    LocalTimes times = new LocalTimes(BERLIN, Clock.fixed(Instant.parse("2026-10-25T01:00:02Z"), ZoneOffset.UTC));
    assertThat(times.resolve(local("01:59:59"))).isEqualTo("2026-10-24T23:59:59Z");
    assertThat(times.resolve(local("02:30:00"))).as("first pass, CEST").isEqualTo("2026-10-25T00:30:00Z");
    assertThat(times.resolve(local("02:59:59"))).isEqualTo("2026-10-25T00:59:59Z");
    assertThat(times.resolve(local("02:00:00"))).as("second pass, CET").isEqualTo("2026-10-25T01:00:00Z");
    assertThat(times.resolve(local("02:30:00"))).isEqualTo("2026-10-25T01:30:00Z");
    assertThat(times.resolve(local("03:00:00"))).isEqualTo("2026-10-25T02:00:00Z");
  }

  @Test
  void aFirstReadingInTheSecondPassIsPlacedByItsReceiveTime() {
    // the collector restarted at 02:10 CET: nothing earlier in this stream to go by
    LocalTimes live = new LocalTimes(BERLIN, Clock.fixed(Instant.parse("2026-10-25T01:10:00.400Z"), ZoneOffset.UTC));
    assertThat(live.resolve(local("02:10:00"))).isEqualTo("2026-10-25T01:10:00Z");
    LocalTimes firstPass = new LocalTimes(BERLIN,
        Clock.fixed(Instant.parse("2026-10-25T00:10:00.400Z"), ZoneOffset.UTC));
    assertThat(firstPass.resolve(local("02:10:00"))).isEqualTo("2026-10-25T00:10:00Z");
  }

  @Test
  void aFileReplayedDaysLaterReadsTheHourTwiceInOrder() {
    LocalTimes replay = new LocalTimes(BERLIN, Clock.fixed(Instant.parse("2026-11-26T12:00:00Z"), ZoneOffset.UTC));
    assertThat(replay.resolve(local("02:58:00"))).isEqualTo("2026-10-25T00:58:00Z");
    assertThat(replay.resolve(local("02:01:00"))).isEqualTo("2026-10-25T01:01:00Z");
    assertThat(replay.resolve(local("02:00:30"))).as("a step back within a minute: the same pass")
        .isEqualTo("2026-10-25T01:00:30Z");
  }
}
