package io.stunwatch.model;

/**
 * A migration's stun time and where it comes from.
 *
 * @param seconds how long the guest was frozen, seconds; absent when {@link Source#UNKNOWN}
 * @param source  its provenance
 */
public record StunTime(Double seconds, Source source) {

  public StunTime {
    Checks.required(source, "stun.source");
    Checks.nonNegative(seconds, "stun.seconds");
    if ((source == Source.UNKNOWN) != (seconds == null)) {
      throw new IllegalArgumentException("stun.seconds must be absent exactly when stun.source is UNKNOWN");
    }
  }

  /** Provenance of a stun time. */
  public enum Source {
    /** Measured by ESXi and read from {@code vmware.log}. */
    VMWARE_LOG,
    /** Estimated from the largest gap in the guest's sample timestamps during the migration. */
    SAMPLE_GAP_ESTIMATE,
    /** Neither was available. */
    UNKNOWN
  }
}
