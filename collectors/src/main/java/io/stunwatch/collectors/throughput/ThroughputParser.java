package io.stunwatch.collectors.throughput;

import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.ThroughputSample.ThroughputScope;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds training throughput in log lines. Built in: tf_cnn_benchmarks and Horovod,
 * {@code images/sec: 245.3 +/- 0.0 (jitter = 0.0)} per step and {@code total images/sec: 1953.42} for the job.
 * A configured pattern must have a named group {@code value}.
 *
 * <p>A line that starts with a timestamp ({@code 2026-11-21T12:00:00.123Z}, {@code 2026-11-21 12:00:00,123} in the
 * configured zone) is stamped with it; otherwise with the read time.
 */
public final class ThroughputParser {

  /** tf_cnn_benchmarks / Horovod job total. Tried first: its line also contains "images/sec:". */
  static final Pattern TOTAL = Pattern.compile("total images/sec:\\s*(?<value>\\d+(?:\\.\\d+)?)");
  /** tf_cnn_benchmarks per-step rate. */
  static final Pattern STEP = Pattern.compile("images/sec:\\s*(?<value>\\d+(?:\\.\\d+)?)\\s*\\+/-");
  /** Horovod's synthetic benchmarks: the whole job, {@code Total img/sec on 8 GPU(s): 2487.2 +-33.6}. */
  static final Pattern HOROVOD_TOTAL = Pattern.compile(
      "Total img/sec on \\d+ GPU\\(s\\):\\s*(?<value>\\d+(?:\\.\\d+)?)");
  /**
   * Horovod's synthetic benchmarks, per GPU of this worker: {@code Iter #3: 312.4 img/sec per GPU} each iteration,
   * {@code Img/sec per GPU: 310.9 +-4.2} at the end.
   */
  static final Pattern HOROVOD_STEP = Pattern.compile(
      "(?:(?<value>\\d+(?:\\.\\d+)?)\\s*img/sec per GPU|Img/sec per GPU:\\s*(?<mean>\\d+(?:\\.\\d+)?))");

  private static final Pattern LEADING_TIME = Pattern.compile(
      "^\\[?(\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(?:[.,]\\d{1,9})?)(Z|[+-]\\d{2}:?\\d{2})?");

  private final List<Rule> rules;
  private final String unit;
  private final ZoneId zone;

  /**
   * @param custom a pattern with group {@code value}, counted as {@code STEP}, tried before the built-ins; or null
   * @param unit   the unit of the values, e.g. {@code images/sec}
   * @param zone   zone of timestamps without an offset
   */
  public ThroughputParser(Pattern custom, String unit, ZoneId zone) {
    List<Rule> r = new ArrayList<>();
    if (custom != null) {
      if (!custom.pattern().contains("(?<value>")) {
        throw new IllegalArgumentException("throughput pattern needs a named group 'value': " + custom.pattern());
      }
      r.add(new Rule(custom, ThroughputScope.STEP));
    }
    r.add(new Rule(TOTAL, ThroughputScope.TOTAL));
    r.add(new Rule(HOROVOD_TOTAL, ThroughputScope.TOTAL));
    r.add(new Rule(STEP, ThroughputScope.STEP));
    r.add(new Rule(HOROVOD_STEP, ThroughputScope.STEP));
    this.rules = List.copyOf(r);
    this.unit = unit;
    this.zone = zone;
  }

  /** A found throughput, before the VM identity is attached. */
  public record Found(Instant timestamp, ThroughputScope scope, double value) {
  }

  /** The throughput in {@code line}, if any; {@code readTime} when the line carries no timestamp. */
  public Optional<Found> parse(String line, Instant readTime) {
    for (Rule rule : rules) {
      Matcher m = rule.pattern.matcher(line);
      if (m.find()) {
        String v = m.group("value");
        double value = Double.parseDouble(v != null ? v : m.group("mean"));
        return Optional.of(new Found(timestamp(line).orElse(readTime), rule.scope, value));
      }
    }
    return Optional.empty();
  }

  /** The sample for a found value. */
  public ThroughputSample sample(Found f, String vmId, String hostname, String job) {
    return new ThroughputSample(vmId, hostname, f.timestamp(), job, f.scope(), f.value(), unit);
  }

  private Optional<Instant> timestamp(String line) {
    Matcher m = LEADING_TIME.matcher(line);
    if (!m.find()) {
      return Optional.empty();
    }
    String t = m.group(1).replace(' ', 'T').replace(',', '.');
    try {
      if (m.group(2) != null) {
        String offset = m.group(2).equals("Z") ? "Z" : m.group(2).replaceAll("(\\d{2})(\\d{2})$", "$1:$2");
        return Optional.of(OffsetDateTime.parse(t + offset).toInstant());
      }
      return Optional.of(LocalDateTime.parse(t, DateTimeFormatter.ISO_LOCAL_DATE_TIME).atZone(zone).toInstant());
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  private record Rule(Pattern pattern, ThroughputScope scope) {
  }
}
