package io.stunwatch.processor.domain;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunObservation.StunSource;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TrackedStunsTest {

  private static StunObservation stun(String file, int line, long micros) {
    return new StunObservation("vc", "vm-1", "a", null, Instant.parse("2026-11-26T10:00:00Z"), micros,
        StunSource.CHECKPOINT_UNSTUN, file, line);
  }

  @Test
  void theSameStunReadFromAnotherByteOfTheLogIsKeptOnce() {
    Tracked.Stuns s = new Tracked.Stuns(null)
        .with(stun("[ds] a/vmware.log", 900, 2_000_000))
        .with(stun("[ds] a/vmware.log from byte 8192", 12, 2_000_000))
        .with(stun("[ds] a/vmware-7.log", 900, 2_000_000));
    assertThat(s.stuns()).singleElement().extracting(StunObservation::lineNumber).isEqualTo(900);
    assertThat(s.with(stun("[ds] a/vmware.log", 901, 2_500_000)).stuns()).as("another figure is another stun")
        .hasSize(2);
  }
}
