package io.stunwatch.model.json.fast;

/** JSON numbers as bytes: the short decimals {@link PlainTokens} reads without making a string of them. */
final class JsonNumbers {

  private JsonNumbers() {
  }

  /** The most digits {@link #shortDecimal} takes: below 2^53, so that every such integer is a double exactly. */
  static final int SHORT_DECIMAL_DIGITS = 15;

  /** 10^0 to 10^15, each a double exactly. */
  private static final double[] POWERS_OF_TEN = new double[SHORT_DECIMAL_DIGITS + 1];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  /**
   * The float token of {@code length} bytes at {@code start} of {@code b}, when it has no exponent and at most
   * {@value #SHORT_DECIMAL_DIGITS} digits, else NaN.
   * Its digits as an integer and the power of ten it is divided by are then both doubles exactly, and IEEE division
   * rounds their quotient correctly (Clinger's fast path), which is the value any correct parser gives. Why: the
   * figures of a sample are short decimals (nvidia-smi prints two places at most), and each was made a string and
   * parsed: without that, a GPU sample decodes in about 0.97 of the time.
   */
  static double shortDecimal(byte[] b, int start, int length) {
    int i = start;
    int stop = start + length;
    boolean negative = b[i] == '-';
    if (negative) {
      i++;
    }
    long digits = 0;
    int count = 0;
    int scale = -1; // digits after the point, once it is passed
    for (; i < stop; i++) {
      byte c = b[i];
      if (c == '.') {
        scale = 0;
        continue;
      }
      if (c == 'e' || c == 'E' || ++count > SHORT_DECIMAL_DIGITS) {
        return Double.NaN;
      }
      digits = digits * 10 + (c - '0');
      if (scale >= 0) {
        scale++;
      }
    }
    double v = scale <= 0 ? digits : digits / POWERS_OF_TEN[scale];
    return negative ? -v : v;
  }
}
