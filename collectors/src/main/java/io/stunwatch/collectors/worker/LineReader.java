package io.stunwatch.collectors.worker;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads lines from a child's output without trusting it: a line longer than {@code maxLength} bytes is cut (and
 * reported by {@link #truncated()}) instead of growing the heap, and bytes that are not UTF-8 are replaced.
 */
public final class LineReader {

  private final InputStream in;
  private final int maxLength;
  private final byte[] buf;
  private boolean truncated;

  public LineReader(InputStream in, int maxLength) {
    this.in = in instanceof BufferedInputStream ? in : new BufferedInputStream(in, 1 << 16);
    this.maxLength = maxLength;
    this.buf = new byte[maxLength];
  }

  /** The next line without its terminator ({@code \n} or {@code \r\n}), or null at the end of the stream. */
  public String readLine() throws IOException {
    int n = 0;
    truncated = false;
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        return decode(n);
      }
      if (n < maxLength) {
        buf[n++] = (byte) b;
      } else {
        truncated = true;
      }
    }
    return n == 0 && !truncated ? null : decode(n);
  }

  /** Whether the last line returned was cut at {@code maxLength}. */
  public boolean truncated() {
    return truncated;
  }

  private String decode(int n) {
    int end = n > 0 && buf[n - 1] == '\r' ? n - 1 : n;
    return new String(buf, 0, end, StandardCharsets.UTF_8);
  }
}
