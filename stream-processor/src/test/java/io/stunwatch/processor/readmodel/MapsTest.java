package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MapsTest {

  @Test
  void settingTheOnlyKeyOrAFirstKeyGivesAnImmutableOneEntryMapAndLeavesTheOriginalAlone() {
    Map<String, Integer> one = Map.of("gpu-0", 1);
    Map<String, Integer> replaced = Maps.with(one, "gpu-0", 2);
    assertThat(replaced).containsExactlyEntriesOf(Map.of("gpu-0", 2));
    assertThat(Map.copyOf(replaced)).as("kept as it is by the record's copy").isSameAs(replaced);
    assertThat(Maps.with(Map.of(), "gpu-0", 3)).containsExactlyEntriesOf(Map.of("gpu-0", 3));
    assertThat(one).containsExactlyEntriesOf(Map.of("gpu-0", 1));
  }

  @Test
  void aSecondKeyOrAReplacementAmongSeveralKeepsEveryOtherEntry() {
    Map<String, Integer> one = Map.of("gpu-0", 1);
    assertThat(Maps.with(one, "gpu-1", 5)).isEqualTo(Map.of("gpu-0", 1, "gpu-1", 5));
    Map<String, Integer> two = new HashMap<>(Map.of("gpu-0", 1, "gpu-1", 5));
    assertThat(Maps.with(two, "gpu-1", 6)).isEqualTo(Map.of("gpu-0", 1, "gpu-1", 6));
    assertThat(two).containsEntry("gpu-1", 5);
  }
}
