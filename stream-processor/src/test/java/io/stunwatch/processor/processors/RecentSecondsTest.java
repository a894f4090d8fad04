package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.processor.readmodel.VmSamples;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RecentSeconds} gives the points it was given for the seconds it covers, never a point of another second that
 * shares its slot, and says when a range reaches back further than it holds.
 */
class RecentSecondsTest {

  static VmSamples.Point at(long second, double util) {
    return new VmSamples.Point(second, 1, util, 1, 1024L, 16_384L, null, null, null, 0);
  }

  @Test
  void aRangeIsTheSecondsItWasGivenAndASlotReusedByANewerSecondHidesTheOlderOne() {
    RecentSeconds r = new RecentSeconds(62);
    r.fill(1_000, (from, to) -> List.of()); // the history had nothing: each reading then puts back its point
    for (long s = 1_000; s < 1_100; s++) {
      if (s % 7 != 0) { // some seconds without a reading
        r.update(s, at(s, s % 100));
      }
    }
    // The newest reading is of 1098 (1099 had none).
    assertThat(r.covers(1_098 - 63)).isTrue();
    assertThat(r.covers(1_098 - 64)).as("further back than its 64 slots").isFalse();
    assertThat(r.points(1_040, 1_099)).extracting(VmSamples.Point::epochSecond)
        .doesNotContain(1_043L, 1_050L, 1_057L).hasSize(60 - 9)
        .allSatisfy(s -> assertThat(s).isBetween(1_040L, 1_099L));
    r.update(1_090, at(1_090, 5)); // a late reading of a second it holds
    assertThat(r.points(1_090, 1_090)).singleElement()
        .satisfies(p -> assertThat(p.gpuUtilizationPct()).isEqualTo(5.0));
    r.update(1_000, at(1_000, 9)); // older than it covers: no slot of a newer second is given up for it
    assertThat(r.points(1_065, 1_065)).singleElement().extracting(VmSamples.Point::epochSecond).isEqualTo(1_065L);
  }

  @Test
  void aFillTakesTheSecondsAfterALateReadingsAndCoversFromTheNewest() {
    RecentSeconds r = new RecentSeconds(62);
    r.fill(1_000, (from, to) -> {
      assertThat(from.getEpochSecond()).isEqualTo(1_000 - 63);
      return List.of(at(990, 1), at(1_000, 2), at(1_030, 3), at(1_080, 4)); // recorded before this task ran
    });
    assertThat(r.points(1_021, 1_080)).extracting(VmSamples.Point::epochSecond).containsExactly(1_030L, 1_080L);
    assertThat(r.covers(1_000)).as("990 shares its slot with 1054; the reach is from the newest, 1080").isFalse();
    assertThat(r.covers(1_017)).isTrue();
  }
}
