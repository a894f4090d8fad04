package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.VgpuProfile;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Turns one line of {@code nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]} into a {@link GpuSample}.
 *
 * <p>The live stream has no header: its columns are the query's fields. A recorded CSV (replay) starts with a
 * header, which gives the columns, and may carry units in values ({@code 575 MiB}); both read the same. Columns the
 * collector does not use are skipped.
 *
 * <p>nvidia-smi's {@code timestamp} is host local time without a zone: {@code zone} says which.
 */
public final class NvidiaSmiCsvParser {

  private static final String SEPARATOR = ", ";
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss[.SSS]");

  private final List<GpuField> columns;
  /** One per parser, as a parser reads one stream: the fall-back hour is read in the stream's order. */
  private final LocalTimes localTimes;
  private final WorkerIdentity identity;
  private final Clock clock;
  private final String source;

  /**
   * @param columns  the field of each column; null for a column to skip
   * @param zone     the zone of nvidia-smi's timestamps (the host's)
   * @param identity the VM identity stamped on every sample
   * @param clock    gives the time when the timestamp column is absent
   * @param source   names the stream or file in errors
   */
  NvidiaSmiCsvParser(List<GpuField> columns, ZoneId zone, WorkerIdentity identity, Clock clock, String source) {
    this.columns = new ArrayList<>(columns);
    this.localTimes = new LocalTimes(zone, clock);
    this.identity = identity;
    this.clock = clock;
    this.source = source;
  }

  /** A parser for the live stream of {@code query}. */
  static NvidiaSmiCsvParser forQuery(NvidiaSmiQuery query, ZoneId zone, WorkerIdentity identity, Clock clock) {
    return new NvidiaSmiCsvParser(query.fields(), zone, identity, clock, "nvidia-smi stdout");
  }

  /**
   * A parser for a recorded CSV whose first line is {@code header}.
   *
   * @throws InputParseException when the header lacks the {@code index} column
   */
  public static NvidiaSmiCsvParser forHeader(String header, ZoneId zone, WorkerIdentity identity, Clock clock,
      String source) throws InputParseException {
    List<GpuField> columns = new ArrayList<>();
    for (String cell : header.split(SEPARATOR, -1)) {
      columns.add(GpuField.of(cell).orElse(null));
    }
    if (!columns.contains(GpuField.INDEX)) {
      throw new InputParseException(source, 1, "header has no 'index' column: not an nvidia-smi --query-gpu CSV "
          + "(header starts '" + abbreviate(header) + "')");
    }
    return new NvidiaSmiCsvParser(columns, zone, identity, clock, source);
  }

  /**
   * Parses one data line.
   *
   * @param line       the line, without its line break
   * @param lineNumber its 1-based number in the stream or file, for the error message
   * @throws InputParseException naming source, line and reason when the line is not a valid sample
   */
  public GpuSample parse(String line, long lineNumber) throws InputParseException {
    String[] cells = line.split(SEPARATOR, -1);
    if (cells.length != columns.size()) {
      throw new InputParseException(source, lineNumber, "expected " + columns.size() + " comma-separated fields, "
          + "found " + cells.length + ": '" + abbreviate(line) + "'");
    }
    Map<GpuField, String> v = new EnumMap<>(GpuField.class);
    for (int i = 0; i < cells.length; i++) {
      if (columns.get(i) != null) {
        v.put(columns.get(i), cells[i]);
      }
    }
    try {
      Long index = whole(v, GpuField.INDEX);
      if (index == null) {
        throw new InputParseException(source, lineNumber, "GPU index is unavailable");
      }
      String name = NvidiaSmiValues.text(v.get(GpuField.NAME));
      return new GpuSample(identity.vmId(), identity.hostname(), timestamp(v.get(GpuField.TIMESTAMP)),
          index.intValue(), NvidiaSmiValues.text(v.get(GpuField.UUID)), name,
          NvidiaSmiValues.text(v.get(GpuField.PCI_BUS_ID)),
          number(v, GpuField.UTILIZATION_GPU), number(v, GpuField.UTILIZATION_MEMORY),
          whole(v, GpuField.MEMORY_USED), whole(v, GpuField.MEMORY_TOTAL),
          number(v, GpuField.POWER_DRAW), number(v, GpuField.TEMPERATURE_GPU), whole(v, GpuField.CLOCKS_SM),
          NvidiaSmiValues.text(v.get(GpuField.PSTATE)), VgpuProfile.parse(name).orElse(null));
    } catch (FieldException e) {
      throw new InputParseException(source, lineNumber, e.getMessage());
    } catch (IllegalArgumentException e) {
      // a value outside its range (utilization 180 %): the record's own check names the field
      throw new InputParseException(source, lineNumber, e.getMessage());
    }
  }

  private Instant timestamp(String raw) {
    String t = NvidiaSmiValues.text(raw);
    if (t == null) {
      return clock.instant(); // the driver has no timestamp field: the read time is the best we know
    }
    try {
      return localTimes.resolve(LocalDateTime.parse(t, TIMESTAMP));
    } catch (DateTimeParseException e) {
      throw new FieldException(GpuField.TIMESTAMP, "'" + t + "' is not YYYY/MM/DD HH:MM:SS.mmm");
    }
  }

  private static Double number(Map<GpuField, String> v, GpuField f) {
    try {
      return NvidiaSmiValues.number(v.get(f));
    } catch (NumberFormatException e) {
      throw new FieldException(f, e.getMessage());
    }
  }

  private static Long whole(Map<GpuField, String> v, GpuField f) {
    try {
      return NvidiaSmiValues.whole(v.get(f));
    } catch (NumberFormatException e) {
      throw new FieldException(f, e.getMessage());
    }
  }

  /** A bad value of one field; the message starts with the field's name. */
  private static final class FieldException extends RuntimeException {
    FieldException(GpuField field, String message) {
      super(field.queryName() + ": " + message, null, false, false);
    }
  }

  /** At most 80 characters of untrusted input, with control characters escaped, safe to quote in a log line. */
  static String abbreviate(String s) {
    return InputParseException.quote(s, 80);
  }
}
