package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.GpuSample;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadAggregateTest {

  private static final Instant AT = Instant.parse("2026-11-26T10:00:00Z");

  private static GpuSample sample(String gpu, int second, Double util, Long usedMiB, Long totalMiB) {
    return new GpuSample("42100000-0000-4000-8000-000000000001", "gpu-vm-00", AT.plusSeconds(second), 0, gpu,
        "GRID T4-16C", null, util, util == null ? null : util / 2, usedMiB, totalMiB, null, null, null, null, null);
  }

  @Test
  void oneGpusFramebufferIsItsLatestAndItsMaxIsKeptWhetherItChangedOrNot() {
    LoadAggregate a = LoadAggregate.empty()
        .with(sample("GPU-a", 0, 80.0, 12_000L, 16_384L))
        .with(sample("GPU-a", 1, 90.0, 12_000L, 16_384L))
        .with(sample("GPU-a", 2, 70.0, 14_000L, 16_384L))
        .with(sample("GPU-a", 3, 60.0, 13_000L, 16_384L))
        .with(sample("GPU-a", 4, 50.0, 13_000L, 16_384L));

    assertThat(a.samples()).isEqualTo(5);
    assertThat(a.gpuUtilAvgPct()).isEqualTo(70.0);
    assertThat(a.gpuUtilMax()).isEqualTo(90.0);
    assertThat(a.fbUsedLastMiB()).isEqualTo(13_000L);
    assertThat(a.fbUsedMaxMiB()).isEqualTo(14_000L);
    assertThat(a.fbTotalMiB()).isEqualTo(16_384L);
    assertThat(a.fbByGpu()).isEqualTo(Map.of("GPU-a", new LoadAggregate.Fb(13_000L, 16_384L)));
  }

  @Test
  void severalGpusSumTheirLatestFramebuffersAndAnUnknownOneChangesNothing() {
    LoadAggregate a = LoadAggregate.empty()
        .with(sample("GPU-a", 0, 80.0, 10_000L, 16_384L))
        .with(sample("GPU-b", 0, 40.0, 2_000L, 16_384L))
        .with(sample("GPU-a", 1, 80.0, 10_000L, 16_384L)) // unchanged
        .with(sample("GPU-b", 1, null, null, null)) // [N/A]: unknown, not zero
        .with(sample("GPU-b", 2, 40.0, 3_000L, 16_384L));

    assertThat(a.fbUsedLastMiB()).isEqualTo(13_000L);
    assertThat(a.fbTotalMiB()).isEqualTo(32_768L);
    assertThat(a.fbUsedMaxMiB()).isEqualTo(13_000L);
    assertThat(a.fbByGpu()).containsOnlyKeys("GPU-a", "GPU-b");
    assertThat(a.gpuUtilCount()).isEqualTo(4);
    assertThat(a.samples()).isEqualTo(5);

    LoadAggregate unknownOnly = LoadAggregate.empty().with(sample("GPU-a", 0, null, null, null));
    assertThat(unknownOnly.fbUsedLastMiB()).isNull();
    assertThat(unknownOnly.fbTotalMiB()).isNull();
    assertThat(unknownOnly.gpuUtilAvgPct()).isNull();
  }
}
