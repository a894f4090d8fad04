package io.stunwatch.collectors.vmkernel;

import io.stunwatch.model.VmotionBandwidth;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the precopy's end in an ESXi host's {@code vmkernel.log}, as the source host writes it for every vMotion:
 * <pre>
 * 2026-04-14T15:38:20.160Z cpu0:151370)VMotion: 4650: 1446046703473901 S: Stopping pre-copy: only 1296 pages left to
 *   send, which can be sent within the switchover time goal of 0.500 seconds (network bandwidth ~145.404 MB/s,
 *   101088% t2d)
 * </pre>
 * ESXi 8 puts {@code In(182) vmkernel: } between the time and the CPU. Records run together on one line (as a quoted
 * excerpt has them) are each found. The vMotion id is the one the VM's {@code vmware.log} prints, decimal.
 *
 * <p>vmkernel.log is written by the host's kernel, not by a guest; a line is still read only as far as the pattern
 * matches, figures beyond the plausible (a bandwidth over {@value #MAX_MBPS} MB/s, a count of pages over 2^40) are
 * reported and skipped, and a line longer than {@value #MAX_LINE_CHARS} characters is cut there.
 */
public final class VmkernelLogParser {

  /** The longest line read; the rest of a longer one is not looked at. */
  public static final int MAX_LINE_CHARS = 16 * 1024;
  /** No vMotion network moves more than this (400 Gb/s is 50,000 MB/s). */
  static final double MAX_MBPS = 100_000;
  private static final long MAX_PAGES = 1L << 40;

  private static final Pattern STOPPING = Pattern.compile(
      "(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2}))\\s+"
          + "(?:[A-Z][a-z]\\(\\d{1,3}\\)\\s+vmkernel:\\s+)?cpu\\d{1,5}:\\d{1,12}\\)(?:WARNING: )?VMotion: \\d{1,6}: "
          + "(\\d{1,20}) S: Stopping pre-copy: only (\\d{1,20}) pages left to send, which can be sent within the "
          + "switchover time goal of (\\d{1,6}(?:\\.\\d{1,6})?) seconds \\(network bandwidth ~(\\d{1,9}(?:\\.\\d{1,6})?)"
          + " MB/s");

  /** Where the lines the parser skips are reported. */
  @FunctionalInterface
  public interface Problems {
    /** A skipped record: its line and why. */
    void badLine(long line, String why);
  }

  private final String hostname;
  private final String logFile;
  private final Problems problems;

  /**
   * @param hostname the host whose log it is
   * @param logFile  where it is read, for the records and the problems
   * @param problems told of every record skipped
   */
  public VmkernelLogParser(String hostname, String logFile, Problems problems) {
    this.hostname = hostname;
    this.logFile = logFile;
    this.problems = problems;
  }

  /** The precopy ends of one line, {@code lineNumber} 1-based. */
  public List<VmotionBandwidth> line(String line, long lineNumber) {
    if (!line.contains("Stopping pre-copy")) {
      return List.of(); // nearly every line
    }
    String text = line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) : line;
    List<VmotionBandwidth> out = new ArrayList<>(1);
    Matcher m = STOPPING.matcher(text);
    while (m.find()) {
      Instant at;
      try {
        at = Instant.parse(m.group(1));
      } catch (DateTimeParseException e) {
        problems.badLine(lineNumber, "time '" + m.group(1) + "' is no time");
        continue;
      }
      long pages = m.group(3).length() > 13 ? Long.MAX_VALUE : Long.parseLong(m.group(3));
      double mbps = Double.parseDouble(m.group(5));
      if (pages > MAX_PAGES || mbps > MAX_MBPS) {
        problems.badLine(lineNumber, "vMotion " + m.group(2) + ": " + m.group(3) + " pages at " + m.group(5)
            + " MB/s is not believed");
        continue;
      }
      out.add(new VmotionBandwidth(m.group(2), hostname, at, mbps, pages, Double.parseDouble(m.group(4)), logFile,
          lineNumber));
    }
    return out;
  }

  /** Every precopy end of {@code text}, lines counted from 1. */
  public List<VmotionBandwidth> parse(String text) {
    List<VmotionBandwidth> out = new ArrayList<>();
    long n = 0;
    for (String l : text.split("\n", -1)) {
      out.addAll(line(l.endsWith("\r") ? l.substring(0, l.length() - 1) : l, ++n));
    }
    return out;
  }
}
