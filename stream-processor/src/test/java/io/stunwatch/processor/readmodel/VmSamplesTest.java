package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class VmSamplesTest {

  private static VmSamples.Point point(long second, int samples) {
    return new VmSamples.Point(second, samples, 50.0 * samples, samples, 1024L, 16_384L, null, null, null, 1);
  }

  @Test
  void aBlockKeepsOnePointPerSecondInOrderWhateverOrderTheyCameIn() {
    VmSamples.Block b = VmSamples.Block.empty(1_700_000_000L)
        .with(point(1_700_000_005L, 1))
        .with(point(1_700_000_001L, 1))
        .with(point(1_700_000_009L, 1))
        .with(point(1_700_000_005L, 2)) // the same second again: replaces its point
        .with(point(1_700_000_000L, 1));
    assertThat(b.points()).extracting(VmSamples.Point::epochSecond)
        .containsExactly(1_700_000_000L, 1_700_000_001L, 1_700_000_005L, 1_700_000_009L);
    assertThat(b.point(1_700_000_005L).samples()).isEqualTo(2);
    assertThat(b.point(1_700_000_004L)).isNull();
  }

  @Test
  void aBlockStartsOnAMultipleOfItsLengthAndHoldsOnlyItsOwnSeconds() {
    assertThat(VmSamples.Block.startOf(1_700_000_019L)).isEqualTo(1_700_000_010L);
    assertThat(VmSamples.Block.startOf(-1L)).as("before the epoch too").isEqualTo(-10L);
    assertThatThrownBy(() -> VmSamples.Block.empty(1_700_000_001L)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1700000001");
    assertThatThrownBy(() -> VmSamples.Block.empty(1_700_000_000L).with(point(1_700_000_010L, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1700000010");
    assertThatThrownBy(() -> new VmSamples.Block(1_700_000_000L, List.of(point(1_700_000_002L, 1),
        point(1_700_000_002L, 1)))).as("a second twice").isInstanceOf(IllegalArgumentException.class);
    // A block's own points, which a block of the same start takes unchecked, are checked for any other start.
    VmSamples.Block first = VmSamples.Block.empty(1_700_000_000L).with(point(1_700_000_003L, 1));
    assertThatThrownBy(() -> new VmSamples.Block(1_700_000_010L, first.points())).as("another block's points")
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1700000003");
    assertThat(new VmSamples.Block(1_700_000_000L, first.points())).isEqualTo(first);
  }
}
