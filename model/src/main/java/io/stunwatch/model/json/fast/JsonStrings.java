package io.stunwatch.model.json.fast;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * JSON strings as UTF-8 bytes: the checks {@link PlainTokens} makes on every escape and sequence as it scans a string,
 * and the decoding of one it has scanned. What is not well formed is declined ({@link RecordReader#DECLINE}), for
 * Jackson to read and refuse.
 */
final class JsonStrings {

  private JsonStrings() {
  }

  /** The bytes a string's scan passes over: printable ASCII but the quote and the backslash. */
  static final boolean[] PLAIN = new boolean[256];

  static {
    for (int c = 0x20; c < 0x80; c++) {
      PLAIN[c] = c != '"' && c != '\\';
    }
  }

  /**
   * A field's name as {@link PlainTokens#nextFieldIs} matches it: the name's bytes between quotes, then the colon. Null
   * for a name with a byte a string's scan would not pass over as it is (a quote, a backslash, a control or non-ASCII
   * byte), as {@link PlainTokens#nextFieldIs} could then accept what the scan decodes otherwise.
   */
  static byte[] fieldPattern(String name) {
    byte[] raw = name.getBytes(StandardCharsets.UTF_8);
    byte[] pattern = new byte[raw.length + 3];
    pattern[0] = '"';
    for (int i = 0; i < raw.length; i++) {
      if (!PLAIN[raw[i] & 0xFF]) {
        return null;
      }
      pattern[i + 1] = raw[i];
    }
    pattern[raw.length + 1] = '"';
    pattern[raw.length + 2] = ':';
    return pattern;
  }

  /**
   * The index among {@code candidates} (each a string's UTF-8 bytes), searched from {@code from} on and round, of the
   * string scanned at {@code start} of {@code b}: its bytes compared as they stand, or, when it needed decoding, {@code
   * decoded}.
   */
  static int indexAmong(byte[] b, byte[][] candidates, int from, int start, int length, String decoded) {
    int n = candidates.length;
    if (decoded != null) {
      for (int k = 0; k < n; k++) {
        int i = from + k < n ? from + k : from + k - n;
        if (decoded.equals(new String(candidates[i], StandardCharsets.UTF_8))) {
          return i;
        }
      }
      return -1;
    }
    for (int k = 0; k < n; k++) {
      int i = from + k < n ? from + k : from + k - n;
      byte[] c = candidates[i];
      if (c.length == length && Arrays.equals(b, start, start + length, c, 0, length)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The index after the escape at {@code i} of {@code b} (which ends at {@code end}), which must be one of JSON's
   * own, and not an escaped surrogate where {@code noSurrogate}.
   */
  static int escapeEnd(byte[] b, int end, int i, boolean noSurrogate) {
    if (i + 1 >= end) {
      throw RecordReader.DECLINE;
    }
    switch (b[i + 1]) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
        return i + 2;
      }
      case 'u' -> {
        if (i + 6 > end) {
          throw RecordReader.DECLINE;
        }
        int unit = hex(b[i + 2]) << 12 | hex(b[i + 3]) << 8 | hex(b[i + 4]) << 4 | hex(b[i + 5]);
        if (noSurrogate && Character.isSurrogate((char) unit)) {
          throw RecordReader.DECLINE;
        }
        return i + 6;
      }
      default -> throw RecordReader.DECLINE;
    }
  }

  static int hex(byte c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    throw RecordReader.DECLINE;
  }

  /**
   * The index after the well-formed UTF-8 sequence that starts at {@code i} (RFC 3629: no overlong form, no encoded
   * surrogate, nothing past U+10FFFF), whose decoding is then the same in the JDK and in Jackson.
   */
  static int utf8End(byte[] b, int end, int i) {
    int lead = b[i] & 0xFF;
    int n;
    int min;
    int max = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
      n = 1;
      min = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      n = 2;
      min = lead == 0xE0 ? 0xA0 : 0x80;
      max = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      n = 3;
      min = lead == 0xF0 ? 0x90 : 0x80;
      max = lead == 0xF4 ? 0x8F : 0xBF;
    } else {
      throw RecordReader.DECLINE;
    }
    if (i + n >= end) {
      throw RecordReader.DECLINE;
    }
    int second = b[i + 1] & 0xFF;
    if (second < min || second > max) {
      throw RecordReader.DECLINE;
    }
    for (int k = i + 2; k <= i + n; k++) {
      if ((b[k] & 0xC0) != 0x80) {
        throw RecordReader.DECLINE;
      }
    }
    return i + n + 1;
  }

  /** The text of a scanned string's bytes (already checked: every escape and sequence is well formed). */
  static String text(byte[] b, int start, int length, boolean coded) {
    if (!coded) {
      return new String(b, start, length, StandardCharsets.ISO_8859_1);
    }
    StringBuilder s = new StringBuilder(length);
    int runStart = start;
    int i = start;
    int stop = start + length;
    while (i < stop) {
      if (b[i] != '\\') {
        i++;
        continue;
      }
      s.append(new String(b, runStart, i - runStart, StandardCharsets.UTF_8));
      byte e = b[i + 1];
      switch (e) {
        case 'b' -> s.append('\b');
        case 'f' -> s.append('\f');
        case 'n' -> s.append('\n');
        case 'r' -> s.append('\r');
        case 't' -> s.append('\t');
        case 'u' -> s.append((char) (hex(b[i + 2]) << 12 | hex(b[i + 3]) << 8 | hex(b[i + 4]) << 4 | hex(b[i + 5])));
        default -> s.append((char) e); // " \ /
      }
      i += e == 'u' ? 6 : 2;
      runStart = i;
    }
    s.append(new String(b, runStart, stop - runStart, StandardCharsets.UTF_8));
    return s.toString();
  }
}
