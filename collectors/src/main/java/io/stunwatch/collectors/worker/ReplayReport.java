package io.stunwatch.collectors.worker;

import java.util.ArrayList;
import java.util.List;

/**
 * What a replay did with each file it was given: the kind it read the file as, the records it published, the lines
 * or items it skipped, and the first problem (the first bad line with its file and line number, or why the whole
 * file was refused). A replay exits 0 only when every file was read whole; see {@link #outcome()}.
 */
public final class ReplayReport {

  /** The replay as a whole, from which the command's exit status follows. */
  public enum Outcome {
    /** Every file read, every line of it; something published. */
    READ,
    /** Something published, but a line, an item or a whole file was skipped or refused. */
    SKIPPED,
    /** Nothing published at all. */
    NOTHING
  }

  /**
   * One file.
   *
   * @param file      the file as the user named it (or its path inside a bundle)
   * @param kind      what it was read as, or what it was seen to be when refused
   * @param published records published from it
   * @param skipped   lines or items that could not be read
   * @param problem   the first bad line, or the refusal with its advice; null when there was none
   * @param refused   whether the whole file was refused
   */
  public record Row(String file, String kind, long published, long skipped, String problem, boolean refused) {

    /** Whether this file was read whole and gave something. */
    public boolean clean() {
      return !refused && skipped == 0 && published > 0;
    }
  }

  private final List<Row> rows = new ArrayList<>();
  private long undelivered;

  /** Records handed to Kafka that it did not acknowledge before the replay gave up waiting. */
  public void undelivered(long n) {
    undelivered = n;
  }

  public long undelivered() {
    return undelivered;
  }

  public void add(Row row) {
    rows.add(row);
  }

  /** A file refused whole, with nothing published from it. */
  public void refused(String file, ReplayRefusedException e) {
    rows.add(new Row(file, e.what(), 0, 0, e.getMessage(), true));
  }

  public List<Row> rows() {
    return List.copyOf(rows);
  }

  public long published() {
    return rows().stream().mapToLong(Row::published).sum();
  }

  public long skipped() {
    return rows().stream().mapToLong(Row::skipped).sum();
  }

  /**
   * {@link Outcome#NOTHING} when nothing at all was published; {@link Outcome#SKIPPED} when anything was skipped
   * or refused, or a file gave nothing; {@link Outcome#READ} otherwise.
   */
  public Outcome outcome() {
    List<Row> all = rows();
    if (all.stream().mapToLong(Row::published).sum() - undelivered <= 0) {
      return Outcome.NOTHING;
    }
    return undelivered == 0 && all.stream().allMatch(Row::clean) ? Outcome.READ : Outcome.SKIPPED;
  }

  /** The table the CLI prints: one line per file, then the total and, when any, each file's first problem. */
  public List<String> table() {
    List<Row> all = rows();
    int width = Math.max(4, all.stream().mapToInt(r -> r.file().length()).max().orElse(4));
    int kindWidth = Math.max(4, all.stream().mapToInt(r -> r.kind().length()).max().orElse(4));
    String format = "%-" + width + "s  %-" + kindWidth + "s  %9s  %7s";
    List<String> out = new ArrayList<>();
    out.add(String.format(format, "file", "kind", "published", "skipped").stripTrailing());
    for (Row r : all) {
      out.add(String.format(format, r.file(), r.kind(), r.published(), r.refused() ? "refused" : r.skipped()));
    }
    out.add(String.format(format, "total (" + all.size() + " files)", "", published(), skipped()));
    if (undelivered > 0) {
      out.add(undelivered + " records were not acknowledged by Kafka before the replay stopped waiting "
          + "(delivery.outage-bound)");
    }
    for (Row r : all) {
      if (r.problem() != null) {
        out.add((r.refused() ? "refused " : "first skipped in ") + r.file() + ": " + r.problem());
      } else if (r.published() == 0) {
        out.add("nothing published from " + r.file() + ": read as " + r.kind() + ", no line gave a record");
      }
    }
    return out;
  }
}
