package io.stunwatch.launcher.sim;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long a simulated vMotion stuns its VM: {@code interceptSeconds + secondsPerGiB * framebuffer used}, then a
 * uniform ±15 % jitter. VMware's published vSphere 7 figure is {@code 0+2/GiB}; a site with a fixed checkpoint
 * overhead and fast links looks more like {@code 4+0.8/GiB}, and vSphere 6.7 like {@code 0+9/GiB}.
 *
 * @param interceptSeconds the fixed part, seconds
 * @param secondsPerGiB    the part per GiB of framebuffer used
 */
public record StunLaw(double interceptSeconds, double secondsPerGiB) {

  /** VMware's published figure from vSphere 7 on: about 2 s per GiB. */
  public static final StunLaw VSPHERE_7 = new StunLaw(0, 2);

  private static final Pattern FORM = Pattern.compile("\\s*(\\d+(?:\\.\\d+)?)\\s*\\+\\s*(\\d+(?:\\.\\d+)?)\\s*/\\s*GiB\\s*",
      Pattern.CASE_INSENSITIVE);

  public StunLaw {
    if (!(interceptSeconds >= 0) || !(secondsPerGiB >= 0) || interceptSeconds + secondsPerGiB == 0) {
      throw new IllegalArgumentException("a stun law needs a non-negative intercept and slope, not both 0");
    }
  }

  /** Reads {@code A+B/GiB}, e.g. {@code 4+0.8/GiB}. */
  public static StunLaw parse(String text) {
    Matcher m = FORM.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("a stun law is SECONDS+SECONDS_PER_GIB/GiB, e.g. 0+2/GiB or 4+0.8/GiB, not '"
          + text + "'");
    }
    return new StunLaw(Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)));
  }

  /** The stun of {@code fbGiB} of framebuffer, milliseconds, with {@code jitter} in [0, 1) drawn by the caller. */
  int stunMillis(double fbGiB, double jitter) {
    return (int) Math.round((interceptSeconds + secondsPerGiB * fbGiB) * 1000 * (0.85 + 0.3 * jitter));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s+%s/GiB", strip(interceptSeconds), strip(secondsPerGiB));
  }

  private static String strip(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
