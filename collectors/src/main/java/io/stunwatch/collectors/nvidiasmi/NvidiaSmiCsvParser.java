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
import java.util.HashMap;
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

  /** Columns that are readings of a GPU: a header with one of them is a --query-gpu's even with no index. */
  private static final java.util.Set<GpuField> READINGS = java.util.EnumSet.of(GpuField.UTILIZATION_GPU,
      GpuField.UTILIZATION_MEMORY, GpuField.MEMORY_USED, GpuField.MEMORY_TOTAL, GpuField.POWER_DRAW,
      GpuField.TEMPERATURE_GPU, GpuField.CLOCKS_SM, GpuField.PSTATE);

  private final List<GpuField> columns;
  /** One per parser, as a parser reads one stream: the fall-back hour is read in the stream's order. */
  private final LocalTimes localTimes;
  private final WorkerIdentity identity;
  private final Clock clock;
  private final String source;
  /**
   * With no {@code index} column, a GPU's index is the order in which its uuid or bus id first appears; with
   * neither, the file is one GPU's, and a second reading at one time is refused rather than merged.
   */
  private final Map<String, Integer> derivedIndex = new HashMap<>();
  private Instant lastSingleGpuTime;

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
    return forHeader(header, 1, zone, identity, clock, source);
  }

  /**
   * As {@link #forHeader(String, ZoneId, WorkerIdentity, Clock, String)}, for a header at {@code line}.
   *
   * @throws InputParseException when the header has neither {@code index} nor a GPU reading column
   */
  public static NvidiaSmiCsvParser forHeader(String header, long line, ZoneId zone, WorkerIdentity identity,
      Clock clock, String source) throws InputParseException {
    List<GpuField> columns = new ArrayList<>();
    for (String cell : header.split(",\\s*", -1)) {
      columns.add(GpuField.of(cell).orElse(null));
    }
    if (!columns.contains(GpuField.INDEX) && columns.stream().noneMatch(READINGS::contains)) {
      throw new InputParseException(source, line, "header has no 'index' column and no GPU reading column ("
          + "utilization.gpu, memory.used, ...): not an nvidia-smi --query-gpu CSV (header starts '"
          + abbreviate(header) + "'); --query-compute-apps and --query-accounted-apps list processes, not GPUs");
    }
    return new NvidiaSmiCsvParser(columns, zone, identity, clock, source);
  }

  /**
   * A parser for a headerless recorded CSV whose columns are the {@code --query-gpu} fields {@code names}, in
   * order; a name the collector does not use is a column it skips.
   *
   * @throws IllegalArgumentException when no name is a field the collector uses
   */
  public static NvidiaSmiCsvParser forColumns(List<String> names, ZoneId zone, WorkerIdentity identity, Clock clock,
      String source) {
    List<GpuField> columns = names.stream().map(n -> GpuField.of(n).orElse(null)).toList();
    if (columns.stream().allMatch(c -> c == null)) {
      throw new IllegalArgumentException("none of the columns " + names + " is a --query-gpu field Stunwatch reads "
          + "(such as timestamp, index, utilization.gpu, memory.used)");
    }
    return new NvidiaSmiCsvParser(columns, zone, identity, clock, source);
  }

  /** A parser for a headerless recorded CSV written by the collector's own query, all its fields. */
  public static NvidiaSmiCsvParser forOwnQuery(ZoneId zone, WorkerIdentity identity, Clock clock, String source) {
    return new NvidiaSmiCsvParser(NvidiaSmiQuery.all().fields(), zone, identity, clock, source);
  }

  /** Whether a headerless line could be the collector's own query: as many cells, a timestamp first. */
  public static boolean ownQueryLine(String line) {
    String[] cells = line.split(SEPARATOR, -1);
    return cells.length == GpuField.values().length
        && cells[0].trim().matches("\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d+)?");
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
      Instant at = timestamp(v.get(GpuField.TIMESTAMP));
      Long index = columns.contains(GpuField.INDEX) ? whole(v, GpuField.INDEX) : derivedIndex(v, at, lineNumber);
      if (index == null) {
        throw new InputParseException(source, lineNumber, "GPU index is unavailable");
      }
      String name = NvidiaSmiValues.text(v.get(GpuField.NAME));
      return new GpuSample(identity.vmId(), identity.hostname(), at,
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

  private Long derivedIndex(Map<GpuField, String> v, Instant at, long lineNumber) throws InputParseException {
    String id = NvidiaSmiValues.text(v.get(GpuField.UUID));
    if (id == null) {
      id = NvidiaSmiValues.text(v.get(GpuField.PCI_BUS_ID));
    }
    if (id != null) {
      return (long) derivedIndex.computeIfAbsent(id, k -> derivedIndex.size());
    }
    if (columns.contains(GpuField.TIMESTAMP) && at.equals(lastSingleGpuTime)) {
      throw new InputParseException(source, lineNumber, "a second reading at " + at + " and no index, uuid or "
          + "pci.bus_id column to tell the GPUs apart");
    }
    lastSingleGpuTime = at;
    return 0L;
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
