package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.GpuSample;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CurrentLoadTest {

  static final Instant T = Instant.parse("2026-11-21T10:00:00Z");
  static final String VM = "42100001-0000-4000-8000-000000000001";

  static GpuSample gpu(int index, Double util, Long used, Long total) {
    return new GpuSample(VM, "train-1", T, index, "GPU-" + index, "GRID A100-40C", "00000000:0" + index + ":00.0",
        util, null, used, total, null, null, null, null, null);
  }

  static CurrentLoad load(GpuSample... samples) {
    CurrentLoad l = new CurrentLoad(VM, Map.of(), null, null, false);
    for (GpuSample s : samples) {
      l = l.with(s, null);
    }
    return l;
  }

  @Test
  void aVmsFramebufferIsTheSumOverItsGpus() {
    CurrentLoad l = load(gpu(0, 90.0, 30_000L, 40_960L), gpu(1, 70.0, 20_000L, 40_960L));
    assertThat(l.fbUsedMiB()).isEqualTo(50_000L);
    assertThat(l.fbTotalMiB()).isEqualTo(81_920L);
    assertThat(l.gpuUtilizationAvgPct()).isEqualTo(80.0);
  }

  @Test
  void oneGpuThatCannotReadAFigureMakesTheVmsFigureUnknownNotSmaller() {
    CurrentLoad l = load(gpu(0, null, 30_000L, null), gpu(1, 70.0, null, 40_960L));
    assertThat(l.fbUsedMiB()).isNull();
    assertThat(l.fbTotalMiB()).isNull();
    assertThat(l.gpuUtilizationAvgPct()).as("the GPU that knows its utilization").isEqualTo(70.0);
    assertThat(load(gpu(0, null, 1L, 2L)).gpuUtilizationAvgPct()).isNull();
    assertThat(load().fbTotalMiB()).isNull();
  }
}
