package io.stunwatch.collectors.prometheus;

import io.stunwatch.collectors.worker.InputParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads a page in the Prometheus text exposition format (version 0.0.4) or in OpenMetrics 1.0, the two formats
 * dcgm-exporter and nvidia_gpu_exporter serve. No maintained Java library parses them (Prometheus' Java client only
 * writes them), so this follows the formats' specifications:
 * <ul>
 *   <li>{@code # HELP} and {@code # TYPE} lines, and any other comment, are skipped; so are blank lines;</li>
 *   <li>a sample is {@code name{label="value",...} value [timestamp]}, with spaces or tabs between the parts, an
 *       optional trailing comma in the label set, and a quoted name inside the braces as Prometheus 3 writes names
 *       outside the legacy character set ({@code {"gpu.util",gpu="0"}});</li>
 *   <li>label values escape {@code \\}, {@code \"} and {@code \n};</li>
 *   <li>values are floats, including {@code NaN}, {@code +Inf} and {@code -Inf};</li>
 *   <li>a timestamp is milliseconds since the epoch in the text format, and seconds (possibly fractional) in
 *       OpenMetrics, which {@code # EOF} ends and whose exemplars ({@code # {...} value}) are skipped.</li>
 * </ul>
 * A line that breaks the format is reported with its number and the reason, and the rest of the page is read.
 */
public final class ExpositionParser {

  /** A float as the format writes it; Java's parser alone would also take "1d", "0x1p3" and "Infinity". */
  private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

  /** One sample of the page. */
  public record Sample(String name, Map<String, String> labels, double value, Long timestampMillis, int line) {

    /** The label's value, or null. */
    public String label(String name) {
      return labels.get(name);
    }
  }

  /** What a page held: its samples, and a parse error for each line that broke the format. */
  public record Page(List<Sample> samples, List<InputParseException> errors, boolean openMetrics) {
  }

  /**
   * Parses one page.
   *
   * @param text        the page
   * @param source      names the page in errors: the URL, or the file
   * @param openMetrics whether the server said the page is OpenMetrics ({@code application/openmetrics-text}); a page
   *                    that ends with {@code # EOF} is read as OpenMetrics as well
   */
  public Page parse(String text, String source, boolean openMetrics) {
    String[] lines = text.split("\n", -1);
    boolean om = openMetrics || endsWithEof(lines);
    List<Sample> samples = new ArrayList<>();
    List<InputParseException> errors = new ArrayList<>();
    boolean eof = false;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].endsWith("\r") ? lines[i].substring(0, lines[i].length() - 1) : lines[i];
      if (eof) {
        if (!line.isEmpty()) {
          errors.add(new InputParseException(source, i + 1, "text after '# EOF'"));
          break;
        }
        continue;
      }
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#")) {
        if (om && line.equals("# EOF")) {
          eof = true;
        }
        continue;
      }
      try {
        samples.add(new LineReader(line, i + 1, om).sample());
      } catch (IllegalArgumentException e) {
        errors.add(new InputParseException(source, i + 1, e.getMessage()));
      }
    }
    return new Page(samples, errors, om);
  }

  private static boolean endsWithEof(String[] lines) {
    for (int i = lines.length - 1; i >= 0; i--) {
      String l = lines[i].strip();
      if (!l.isEmpty()) {
        return l.equals("# EOF");
      }
    }
    return false;
  }

  /** One sample line, read left to right. */
  private static final class LineReader {
    private final String s;
    private final int number;
    private final boolean om;
    private int pos;

    LineReader(String s, int number, boolean om) {
      this.s = s;
      this.number = number;
      this.om = om;
    }

    Sample sample() {
      skipBlanks();
      String name = null;
      if (peek() != '{') {
        name = metricName();
      }
      Map<String, String> labels = new LinkedHashMap<>();
      int afterName = pos;
      skipBlanks();
      if (peek() == '{') {
        pos++;
        name = labels(labels, name);
      } else {
        pos = afterName; // the blanks before the value
      }
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("no metric name");
      }
      if (!blank(peek())) {
        throw new IllegalArgumentException("expected a space before the value at column " + (pos + 1));
      }
      skipBlanks();
      double value = number(token(), "value");
      skipBlanks();
      Long ts = null;
      if (pos < s.length() && peek() != '#') {
        String t = token();
        ts = om ? Math.round(number(t, "timestamp") * 1000) : parseMillis(t);
        skipBlanks();
      }
      if (pos < s.length()) {
        if (!(om && s.startsWith("# ", pos))) {
          throw new IllegalArgumentException("unexpected '" + s.substring(pos) + "' after the sample");
        }
        // an OpenMetrics exemplar: not a sample of its own
      }
      return new Sample(name, Collections.unmodifiableMap(labels), value, ts, number);
    }

    private String metricName() {
      int start = pos;
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == ':') {
          pos++;
        } else {
          break;
        }
      }
      if (pos == start) {
        throw new IllegalArgumentException("expected a metric name at column " + (start + 1));
      }
      if (Character.isDigit(s.charAt(start))) {
        throw new IllegalArgumentException("a metric name cannot begin with a digit");
      }
      return s.substring(start, pos);
    }

    /** Reads the label set up to its closing brace; returns the metric name, which may be quoted inside. */
    private String labels(Map<String, String> labels, String name) {
      boolean first = true;
      while (true) {
        skipBlanks();
        if (peek() == '}') {
          pos++;
          return name;
        }
        if (!first) {
          expect(',');
          skipBlanks();
          if (peek() == '}') {
            pos++;
            return name;
          }
        }
        String labelName;
        if (peek() == '"') {
          labelName = quoted();
          skipBlanks();
          if (peek() != '=') {
            if (name != null || !first) {
              throw new IllegalArgumentException("a quoted metric name must come first, and once");
            }
            name = labelName;
            first = false;
            continue;
          }
        } else {
          int start = pos;
          while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) && s.charAt(pos) < 128
              || s.charAt(pos) == '_')) {
            pos++;
          }
          if (pos == start) {
            throw new IllegalArgumentException("expected a label name at column " + (start + 1));
          }
          labelName = s.substring(start, pos);
        }
        skipBlanks();
        expect('=');
        skipBlanks();
        if (peek() != '"') {
          throw new IllegalArgumentException("label " + labelName + ": its value must be quoted");
        }
        String value = quoted();
        if (labels.put(labelName, value) != null) {
          throw new IllegalArgumentException("label " + labelName + " given twice");
        }
        first = false;
      }
    }

    private String quoted() {
      pos++; // the opening quote
      StringBuilder b = new StringBuilder();
      while (pos < s.length()) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          if (pos >= s.length()) {
            break;
          }
          char e = s.charAt(pos++);
          switch (e) {
            case '\\' -> b.append('\\');
            case '"' -> b.append('"');
            case 'n' -> b.append('\n');
            default -> throw new IllegalArgumentException("unknown escape \\" + e + " at column " + (pos - 1));
          }
        } else {
          b.append(c);
        }
      }
      throw new IllegalArgumentException("a quoted string is not closed");
    }

    private String token() {
      int start = pos;
      while (pos < s.length() && !blank(s.charAt(pos))) {
        pos++;
      }
      return s.substring(start, pos);
    }

    private double number(String t, String what) {
      switch (t) {
        case "NaN":
          return Double.NaN;
        case "+Inf":
        case "Inf":
          return Double.POSITIVE_INFINITY;
        case "-Inf":
          return Double.NEGATIVE_INFINITY;
        default:
          break;
      }
      if (t.isEmpty() || !NUMBER.matcher(t).matches()) {
        throw new IllegalArgumentException(what + " '" + t + "' is not a number");
      }
      return Double.parseDouble(t);
    }

    private long parseMillis(String t) {
      try {
        return Long.parseLong(t);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("timestamp '" + t + "' is not an integer of milliseconds");
      }
    }

    private void expect(char c) {
      if (peek() != c) {
        throw new IllegalArgumentException("expected '" + c + "' at column " + (pos + 1)
            + (pos < s.length() ? ", found '" + s.charAt(pos) + "'" : ", found the end of the line"));
      }
      pos++;
    }

    private char peek() {
      return pos < s.length() ? s.charAt(pos) : '\0';
    }

    private void skipBlanks() {
      while (pos < s.length() && blank(s.charAt(pos))) {
        pos++;
      }
    }

    private static boolean blank(char c) {
      return c == ' ' || c == '\t';
    }

    @Override
    public String toString() {
      return "line " + number;
    }
  }
}
