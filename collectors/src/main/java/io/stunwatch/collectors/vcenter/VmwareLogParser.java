package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.StunObservation.StunSource;
import java.math.BigInteger;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds stun times in a VM's {@code vmware.log}, in all three line formats ESXi has used:
 * <pre>
 * 2015-10-27T22:01:42.149Z| vcpu-0| I120: Checkpoint_Unstun: vm stopped for 188405 us   (5.5 to 7.x)
 * 2012-01-01T00:00:00.000Z| vcpu-0| Checkpoint_Unstun: vm stopped for 188405 us         (5.0)
 * 2023-04-15T08:52:34.879Z In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 18500 us  (8.x)
 * </pre>
 * and the {@code Migrate: VM starting stun} / {@code VM successfully stunned} pair. Several records run together on
 * one line are all found. The vMotion migration id ({@code migration id N}, {@code mid=<hex>}, {@code mid id N}) seen
 * before a stun is attached to it, in decimal.
 */
public final class VmwareLogParser {

  private static final Pattern TIMESTAMP = Pattern.compile(
      "(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2}))");
  private static final Pattern UNSTUN = Pattern.compile("Checkpoint_Unstun: vm stopped for (\\d+) us");
  private static final Pattern STUN_START = Pattern.compile("Migrate: VM starting stun");
  private static final Pattern STUNNED = Pattern.compile("VM successfully stunned");
  private static final Pattern MIGRATION_ID = Pattern.compile(
      "(?:migration id|mid id|mid=)\\s*([0-9a-fA-F]+)\\b");

  /**
   * One stun found in the log.
   *
   * @param timestamp   the time of the line that ends the stun; null when the log has none (or redacted ones)
   * @param stunMicros  how long the VM was stopped, microseconds
   * @param source      which lines gave it
   * @param migrationId the vMotion migration id seen before it, decimal; null when none
   * @param lineNumber  1-based line of the figure
   */
  public record Stun(Instant timestamp, long stunMicros, StunSource source, String migrationId, int lineNumber) {

    /** This stun as the observation published for the VM whose log {@code logFile} ({@code [ds] dir/vmware.log}) is. */
    public io.stunwatch.model.StunObservation observation(String vcenterUuid, String vmMoref, String vmName,
        String logFile) {
      return new io.stunwatch.model.StunObservation(vcenterUuid, vmMoref, vmName, migrationId, timestamp, stunMicros,
          source, logFile, lineNumber);
    }
  }

  /**
   * The stuns of {@code text} with a timestamp after {@code after} (all timestamped ones when null), in file order:
   * what a collector that re-reads a growing log has not published yet.
   */
  public List<Stun> parseAfter(String text, Instant after) {
    List<Stun> out = new ArrayList<>();
    for (Stun s : parse(text)) {
      if (s.timestamp() != null && (after == null || s.timestamp().isAfter(after))) {
        out.add(s);
      }
    }
    return out;
  }

  /** Every stun in {@code text}, in file order. */
  public List<Stun> parse(String text) {
    List<Stun> out = new ArrayList<>();
    String migrationId = null;
    Instant stunStartAt = null;
    String[] lines = text.split("\\R", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      Matcher mid = MIGRATION_ID.matcher(line);
      while (mid.find()) {
        migrationId = decimal(mid.group(1), line.substring(mid.start(), mid.start(1)).contains("="));
      }
      if (STUN_START.matcher(line).find()) {
        stunStartAt = timestampBefore(line, line.length());
      }
      Matcher stunned = STUNNED.matcher(line);
      if (stunned.find()) {
        Instant at = timestampBefore(line, stunned.start());
        if (stunStartAt != null && at != null && !at.isBefore(stunStartAt)) {
          long micros = (at.getEpochSecond() - stunStartAt.getEpochSecond()) * 1_000_000L
              + (at.getNano() - stunStartAt.getNano()) / 1000;
          out.add(new Stun(at, micros, StunSource.MIGRATE_STUN_PAIR, migrationId, i + 1));
        }
        stunStartAt = null;
      }
      Matcher unstun = UNSTUN.matcher(line);
      while (unstun.find()) {
        out.add(new Stun(timestampBefore(line, unstun.start()), Long.parseLong(unstun.group(1)),
            StunSource.CHECKPOINT_UNSTUN, migrationId, i + 1));
      }
    }
    return out;
  }

  /** The last timestamp on the line before {@code end}: the one that heads this record. */
  private static Instant timestampBefore(String line, int end) {
    Matcher m = TIMESTAMP.matcher(line);
    Instant last = null;
    while (m.find() && m.start() < end) {
      try {
        last = Instant.parse(m.group(1));
      } catch (DateTimeParseException e) {
        last = null;
      }
    }
    return last;
  }

  /** A migration id in decimal: {@code mid=7958ea7f2d34d435} is hex; the other forms are decimal already. */
  static String decimal(String raw, boolean afterEquals) {
    boolean hex = afterEquals && raw.length() == 16 && raw.chars().anyMatch(c -> Character.isLetter(c));
    return hex ? new BigInteger(raw, 16).toString() : raw;
  }
}
