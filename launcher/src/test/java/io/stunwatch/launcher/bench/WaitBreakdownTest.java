package io.stunwatch.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WaitBreakdownTest {

  private static final String APP = "bench-topology-1-0f8e5a52-3c0e-4f7b-9a55-1d2e3f4a5b6c";

  @Test
  void streamsClientIdsAreToldApartBySuffix() {
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-consumer")).isEqualTo("main consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-2-restore-consumer")).isEqualTo("restore consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-global-consumer")).isEqualTo("global consumer");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-producer")).isEqualTo("producer");
    assertThat(WaitBreakdown.clientKind(APP + "-admin")).isEqualTo("admin");
  }

  @Test
  void anUnknownOrMissingClientIdIsOther() {
    assertThat(WaitBreakdown.clientKind(null)).isEqualTo("other");
    assertThat(WaitBreakdown.clientKind(APP + "-StreamThread-1-something")).isEqualTo("other");
  }
}
