package io.stunwatch.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.Locale;

/**
 * A forecast of the stun time of migrating a VM now, with VMware's published figure beside it.
 *
 * @param p50Seconds       median forecast, seconds
 * @param p95Seconds       95th percentile forecast, seconds
 * @param secondsPerGiB    the slope the forecast used: seconds per GiB of framebuffer used
 * @param fbUsedGiB        the framebuffer used the forecast was made for, GiB
 * @param observations     how many past stuns the forecast rests on (0 for VMware's figure)
 * @param basis            what the forecast rests on
 * @param interceptSeconds the fixed part of a {@link Basis#SITE_LINEAR_FIT} (stun at no framebuffer), else null
 * @param group            the model group it came from, e.g. {@code profile:T4-16C}; null for VMware's figure
 * @param hostPairFactor   how much slower (above 1) or faster the planned host pair's past stuns were than the
 *                         group's line, when the pair had enough of them; applied to both figures; else null
 * @param linkMbps         the vMotion link speed the history was narrowed to (only stuns over links of that speed),
 *                         when it was; else null
 * @param reference        VMware's published figure for the same framebuffer, always given
 */
public record StunForecast(
    Double p50Seconds,
    Double p95Seconds,
    Double secondsPerGiB,
    Double fbUsedGiB,
    long observations,
    Basis basis,
    Double interceptSeconds,
    String group,
    Double hostPairFactor,
    Long linkMbps,
    Reference reference) {

  public StunForecast {
    Checks.required(basis, "forecast.basis");
    Checks.nonNegative(p50Seconds, "forecast.p50Seconds");
    Checks.nonNegative(p95Seconds, "forecast.p95Seconds");
  }

  /** A forecast without the details of its fit or VMware's figure, as older records read. */
  public StunForecast(Double p50Seconds, Double p95Seconds, Double secondsPerGiB, Double fbUsedGiB, long observations,
      Basis basis) {
    this(p50Seconds, p95Seconds, secondsPerGiB, fbUsedGiB, observations, basis, null, null, null, null, null);
  }

  /** What a forecast rests on. */
  public enum Basis {
    /**
     * A line fitted to the group's own recent {@code vmware.log} stuns against framebuffer used: Theil-Sen (the median
     * of the pairwise slopes, then the median intercept), which a few outliers do not move. Used when the group's
     * stuns span enough framebuffer sizes to tell a slope from a fixed overhead.
     */
    SITE_LINEAR_FIT,
    /**
     * The median of the group's own stun seconds per GiB, times the framebuffer: for a group whose stuns are too few
     * or too alike in framebuffer for a line.
     */
    SITE_MEDIAN_RATIO,
    /** VMware's published figure, for lack of the site's own stuns. */
    VMWARE_REFERENCE;

    /**
     * Reads a basis by name; {@code FITTED}, the name older records carry for it, was
     * always the median ratio.
     */
    @JsonCreator
    public static Basis of(String name) {
      return "FITTED".equals(name) ? SITE_MEDIAN_RATIO : valueOf(name.toUpperCase(Locale.ROOT));
    }
  }

  /**
   * VMware's published stun figure for vGPU vMotion: about 9 s per GB of framebuffer on vSphere 6.7, about 2 s per GB
   * from vSphere 7 on.
   *
   * @param vsphereVersion the vCenter version it was chosen by ({@code about.version}), or null when not known
   *                       (then the vSphere 7 figure)
   * @param secondsPerGiB  the published slope
   * @param p50Seconds     that slope times the framebuffer used
   */
  public record Reference(String vsphereVersion, double secondsPerGiB, double p50Seconds) {

    /** vSphere 6.7's figure, seconds per GiB. */
    public static final double VSPHERE_67_SECONDS_PER_GIB = 9.0;
    /** The figure from vSphere 7 on, seconds per GiB. */
    public static final double VSPHERE_7_SECONDS_PER_GIB = 2.0;

    /** The reference for {@code fbUsedGiB} under the vCenter version {@code version} (null when unknown). */
    public static Reference of(String version, double fbUsedGiB) {
      double slope = version != null && version.matches("6\\..*") ? VSPHERE_67_SECONDS_PER_GIB
          : VSPHERE_7_SECONDS_PER_GIB;
      return new Reference(version, slope, slope * fbUsedGiB);
    }
  }
}
