package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartKeysTest {

  @Test
  void keysSortAsTheirStartTimesAcrossDigitCounts() {
    List<String> keys = new ArrayList<>(List.of(StartKeys.of(Instant.ofEpochMilli(1_000_000_000_000L), "vc/2"),
        StartKeys.of(Instant.ofEpochMilli(999_999_999_999L), "vc/9"), StartKeys.of(Instant.EPOCH, "vc/1"),
        StartKeys.of(Instant.ofEpochMilli(1_000_000_000_000L), "vc/10")));
    keys.sort(null);
    assertThat(keys).extracting(k -> k.substring(k.indexOf('|') + 1)).containsExactly("vc/1", "vc/9", "vc/10",
        "vc/2");
  }

  @Test
  void aRangeHoldsEveryMigrationStartedWithinItsInclusiveBoundsAndNoOther() {
    Instant from = Instant.parse("2026-11-21T12:00:00Z");
    Instant to = Instant.parse("2026-11-21T13:00:00Z");
    String lo = StartKeys.from(from);
    String hi = StartKeys.to(to);
    assertThat(StartKeys.of(from, "a")).isGreaterThan(lo).isLessThan(hi);
    assertThat(StartKeys.of(to, "zzzz~~~")).isGreaterThan(lo).isLessThan(hi);
    assertThat(StartKeys.of(from.minusMillis(1), "~")).isLessThan(lo);
    assertThat(StartKeys.of(to.plusMillis(1), "")).isGreaterThan(hi);
  }

  @Test
  void keysAreZeroPaddedToTheirWidthAndClampedAtTheEpoch() {
    assertThat(StartKeys.of(Instant.ofEpochMilli(1234), "vc/1")).isEqualTo("0000000000001234|vc/1");
    assertThat(StartKeys.of(Instant.ofEpochMilli(-5), "vc/1")).isEqualTo("0000000000000000|vc/1");
    assertThat(StartKeys.from(Instant.parse("2026-11-21T12:00:00Z"))).isEqualTo("0001795262400000|");
    assertThat(StartKeys.hour(Instant.parse("2026-11-21T12:59:59Z"))).isEqualTo("000000498684");
    assertThat(StartKeys.hour(Instant.parse("1969-12-31T23:00:00Z"))).isEqualTo("000000000000");
  }
}
