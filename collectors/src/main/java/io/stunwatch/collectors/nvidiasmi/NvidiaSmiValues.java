package io.stunwatch.collectors.nvidiasmi;

import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reading nvidia-smi's values. Every way nvidia-smi says "no value" ({@code [N/A]}, {@code [Not Supported]},
 * {@code [Unknown Error]}, {@code [Insufficient Permissions]}, {@code [Requested functionality has been
 * deprecated]}, {@code N/A}, ...) reads as null: unknown, never 0.
 */
final class NvidiaSmiValues {

  private static final Set<String> UNAVAILABLE = Set.of("n/a", "not supported", "unknown error",
      "insufficient permissions", "requested functionality has been deprecated", "function not found",
      "not found", "gpu is lost", "gpu requires reset", "not available", "");
  // A number, then optionally a unit as nvidia-smi prints them with --format=csv or in XML: MiB, %, W, C, MHz, ...
  private static final Pattern NUMBER_WITH_UNIT = Pattern.compile("([-+]?\\d+(?:\\.\\d+)?)\\s*([A-Za-z%/]*)");

  private NvidiaSmiValues() {
  }

  /** True for nvidia-smi's "no value" forms, bracketed or not. */
  static boolean unavailable(String raw) {
    if (raw == null) {
      return true;
    }
    String s = raw.trim();
    if (s.startsWith("[") && s.endsWith("]")) {
      return true; // every bracketed value is a status, never a reading
    }
    String lower = s.toLowerCase(Locale.ROOT);
    // "Not available in WDDM driver model": a Windows driver's process memory
    return UNAVAILABLE.contains(lower) || lower.startsWith("not available in ");
  }

  /** Text, or null when unavailable. */
  static String text(String raw) {
    return unavailable(raw) ? null : raw.trim();
  }

  /**
   * A number with an optional unit ({@code 575 MiB}, {@code 38 %}, {@code 39.32 W}, {@code -5 C}), or null when
   * unavailable.
   *
   * @throws NumberFormatException naming the value when it is neither a number nor a "no value" form
   */
  static Double number(String raw) {
    if (unavailable(raw)) {
      return null;
    }
    Matcher m = NUMBER_WITH_UNIT.matcher(raw.trim());
    if (!m.matches()) {
      throw new NumberFormatException("'" + raw.trim() + "' is not a number");
    }
    double v = Double.parseDouble(m.group(1));
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      throw new NumberFormatException("'" + raw.trim() + "' is not a finite number");
    }
    return v;
  }

  /** A whole number with an optional unit, or null when unavailable. */
  static Long whole(String raw) {
    Double d = number(raw);
    if (d == null) {
      return null;
    }
    if (d != Math.rint(d)) {
      throw new NumberFormatException("'" + raw.trim() + "' is not a whole number");
    }
    return d.longValue();
  }
}
