package io.stunwatch.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VgpuProfileTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "GRID T4-16C,          T4-16C,      T4,      16384, C,",
      "grid_t4-16c,          T4-16C,      T4,      16384, C,",
      "NVIDIA A100-40C,      A100-40C,    A100,    40960, C,",
      "nvidia_a100-3-20c,    A100-3-20C,  A100,    20480, C, 3",
      "GRID M10-0B,          M10-0B,      M10,     512,   B,",
      "GRID RTX6000-24Q,     RTX6000-24Q, RTX6000, 24576, Q,",
      "GRID T4-1B4,          T4-1B4,      T4,      1024,  B,",
      "  GRID V100DX-32C  ,  V100DX-32C,  V100DX,  32768, C,"})
  void guestNamesAndVcenterBackingsParseToTheSameProfile(String input, String name, String model, long fbMiB,
      String series, Integer slices) {
    VgpuProfile p = VgpuProfile.parse(input).orElseThrow();
    assertThat(p.name()).isEqualTo(name);
    assertThat(p.gpuModel()).isEqualTo(model);
    assertThat(p.framebufferMiB()).isEqualTo(fbMiB);
    assertThat(p.series()).isEqualTo(series);
    assertThat(p.migSlices()).isEqualTo(slices);
  }

  @Test
  void guestAndVcenterSpellingsAreEqual() {
    assertThat(VgpuProfile.parse("GRID T4-16C")).isEqualTo(VgpuProfile.parse("grid_t4-16c"));
    assertThat(VgpuProfile.parse("GRID T4-16C").orElseThrow().framebufferGiB()).isEqualTo(16.0);
  }

  @ParameterizedTest
  @CsvSource({"Tesla T4", "NVIDIA H100 80GB HBM3", "NVIDIA GeForce RTX 3080", "GRID", "T4-16X", "''"})
  void physicalGpusAreNotProfiles(String name) {
    assertThat(VgpuProfile.parse(name)).isEmpty();
  }
}
