package io.stunwatch.collectors.worker;

/**
 * Input that an input's parser rejects. The message says where (file or stream and line) and why, so an operator
 * can find the line; the input counts it and goes on.
 */
public final class InputParseException extends Exception {

  private final String source;
  private final long line;
  private final String reason;

  /**
   * @param source the file or stream, e.g. {@code /var/log/train.log} or {@code nvidia-smi stdout}
   * @param line   1-based line number, or 0 when not line-oriented
   * @param reason what is wrong, in one line
   */
  public InputParseException(String source, long line, String reason) {
    super(source + (line > 0 ? ":" + line : "") + ": " + reason);
    this.source = source;
    this.line = line;
    this.reason = reason;
  }

  /**
   * Untrusted input made safe to quote in a message: control characters as {@code \\uXXXX}, cut to {@code max}
   * characters with "..." when longer.
   */
  public static String quote(String input, int max) {
    StringBuilder b = new StringBuilder(Math.min(input.length(), max) + 8);
    int i = 0;
    for (; i < input.length() && b.length() < max; i++) {
      char c = input.charAt(i);
      if (Character.isISOControl(c) || c == '\uFFFD') {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return i < input.length() ? b.append("...").toString() : b.toString();
  }

  public String source() {
    return source;
  }

  public long line() {
    return line;
  }

  public String reason() {
    return reason;
  }
}
