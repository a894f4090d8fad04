package io.stunwatch.model;

/**
 * A forecast of the stun time of migrating a VM now.
 *
 * @param p50Seconds       median forecast, seconds
 * @param p95Seconds       95th percentile forecast, seconds
 * @param secondsPerGiB    fitted (or reference) seconds per GiB of framebuffer used
 * @param fbUsedGiB        the framebuffer used the forecast was made for, GiB
 * @param observations     how many past stuns the model had for this profile, bucket or host pair
 * @param basis            what the forecast rests on
 */
public record StunForecast(
    Double p50Seconds,
    Double p95Seconds,
    Double secondsPerGiB,
    Double fbUsedGiB,
    long observations,
    Basis basis) {

  public StunForecast {
    Checks.required(basis, "forecast.basis");
    Checks.nonNegative(p50Seconds, "forecast.p50Seconds");
    Checks.nonNegative(p95Seconds, "forecast.p95Seconds");
  }

  /** What a forecast rests on. */
  public enum Basis {
    /** Fitted on this fleet's own stun observations. */
    FITTED,
    /** VMware's published figure (about 2 s per GiB of framebuffer on vSphere 7), for lack of observations. */
    VMWARE_REFERENCE
  }
}
