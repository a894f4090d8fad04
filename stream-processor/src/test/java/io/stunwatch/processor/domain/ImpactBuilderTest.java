package io.stunwatch.processor.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ImpactBuilderTest {

  static final Instant START = Instant.parse("2026-11-21T12:00:00Z");

  private static Migration migration(int seconds) {
    return new Migration("vc/1", "vc", "vm-1", "train-1", "id-1", "T4-16C", MigrationState.SUCCEEDED,
        Initiator.USER, null, false, null, null, null, null, null, null, START, START.plusSeconds(seconds), null, START);
  }

  /** A point a second from {@code from} to {@code to} (epoch seconds of START), inclusive, but those in {@code gap}. */
  private static List<VmSamples.Point> seconds(int from, int to, int gapFrom, int gapTo) {
    List<VmSamples.Point> points = new ArrayList<>();
    for (int s = from; s <= to; s++) {
      if (s >= gapFrom && s <= gapTo) {
        continue;
      }
      points.add(VmSamples.withGpu(VmSamples.empty(START.getEpochSecond() + s),
          new io.stunwatch.model.GpuSample("id-1", "g", START.plusSeconds(s), 0, "GPU-0", "GRID T4-16C", null, 50.0,
              10.0, 1024L, 16384L, null, null, null, null, null)));
    }
    return points;
  }

  @Test
  void samplesCoveringTheMigrationGiveTheLargestGapLessTheSamplingStep() {
    StunTime s = ImpactBuilder.gapEstimate(migration(88), seconds(-60, 150, 60, 81));
    assertThat(s).isEqualTo(new StunTime(22.0, StunTime.Source.SAMPLE_GAP_ESTIMATE));
  }

  @Test
  void samplesThatHaveNotReachedTheEndAreNoGapAndTheEstimateIsUnknownNotZero() {
    StunTime s = ImpactBuilder.gapEstimate(migration(88), seconds(-60, 30, 999, 999));
    assertThat(s.source()).as("nothing at or after the end yet").isEqualTo(StunTime.Source.UNKNOWN);
    assertThat(s.seconds()).isNull();
  }

  @Test
  void samplesThatStartAfterTheMigrationStartedAreUnknownToo() {
    StunTime s = ImpactBuilder.gapEstimate(migration(88), seconds(70, 150, 999, 999));
    assertThat(s.source()).isEqualTo(StunTime.Source.UNKNOWN);
  }

  @Test
  void aMigrationWithoutAnEndHasNoGapEstimate() {
    Migration open = new Migration("vc/1", "vc", "vm-1", "train-1", "id-1", "T4-16C", MigrationState.UNKNOWN,
        Initiator.USER, null, false, null, null, null, null, null, null, START, null, null, START);
    assertThat(ImpactBuilder.gapEstimate(open, seconds(-60, 150, 999, 999)).source())
        .isEqualTo(StunTime.Source.UNKNOWN);
  }
}
