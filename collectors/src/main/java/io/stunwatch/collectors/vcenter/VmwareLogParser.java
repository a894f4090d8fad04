package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.LogMessage;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunObservation.StunSource;
import io.stunwatch.model.VmotionObservation;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * The vMotion migration id ({@code migration id N}, {@code mid=<hex>}, {@code mid id N}) seen before a stun is
 * attached to it, in decimal.
 *
 * <p>Each vMotion the log shows is read as a {@link Vmotion} ({@link VmotionTracker}): its id, and the lines that mark
 * its phases:
 * <pre>
 * MigrateSetState: Transitioning from state 0 to 1.                 the precopy begins (source)
 *   (or, with names: from state MIGRATE_NONE (0) to ... (1); or MigrateSetInfo: state=1)
 * Migrate: VM starting stun, waiting 100 seconds for go/no-go message.   the precopy ends (source)
 * Migrate: VM successfully stunned                                  the vCPUs are stopped (source)
 * Migrate_Open: Restoring from &lt;10.0.0.2&gt; with migration id N       the destination restores (destination)
 * Checkpoint_Unstun: vm stopped for N us                            the VM runs again
 * Migrate: Remote Log: Destination waited for 208.42 seconds.
 * Migrate: Caching migration error message list:                    a failure, followed by its messages:
 * [msg.checkpoint.migration.maxSwitchoverTimeExceeded] The migration has exceeded ...
 * </pre>
 * The time from {@code starting stun} to {@code successfully stunned} is the time to stop the vCPUs, a phase of its
 * own and no stun: the stun is the {@code Checkpoint_Unstun} figure.
 *
 * <p><b>The log is not trusted.</b> A guest writes into {@code vmware.log} through VMware Tools, so a figure is taken
 * only from a message that begins right after the line's own header (timestamp, thread, level): a guest's text sits
 * behind a {@code Guest:} prefix and never counts. A line that is not valid UTF-8, longer than
 * {@value #MAX_LINE_BYTES} bytes (ESXi caps an entry at 4 KB), dated after {@code notAfter}, or with a stun over
 * {@link #MAX_STUN} is reported to {@link Problems} with its line number and skipped; the rest of the log still
 * counts. The log is read as a stream, a line at a time, so a 1 GiB log needs no more memory than a small one.
 *
 * <p>Lines with no header at all (excerpts quoted in KB articles, several records run together on one line) still
 * give their {@code Checkpoint_Unstun} figures, without a timestamp: such stuns are never published by the live
 * collector, which needs the time.
 */
public final class VmwareLogParser {

  /** The longest line read; a longer one is skipped and reported. */
  public static final int MAX_LINE_BYTES = 16 * 1024;

  /** The longest stun believed: vMotion gives up after 100 s of switchover by default; an hour is no stun. */
  public static final Duration MAX_STUN = Duration.ofHours(1);

  private static final long MAX_STUN_MICROS = MAX_STUN.toNanos() / 1000;

  /**
   * The line's header: a timestamp token, then {@code | thread| I120: }, {@code | thread| } or
   * {@code  In(05) thread - }. The message is what follows.
   */
  private static final Pattern HEADER = Pattern.compile(
      "^(\\S+?)(?:\\| ?[^\\s|]+\\| (?:[A-Z]\\d{3}(?:\\(\\d+\\))?: )?| [A-Z][a-z]\\(\\d{2}\\)(?:\\[\\+\\])? \\S+ - )");
  private static final Pattern TIMESTAMP = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,9})?(?:Z|[+-]\\d{2}:\\d{2})");
  private static final Pattern UNSTUN = Pattern.compile("^Checkpoint_Unstun: vm stopped for (\\d+) us");
  /** Headerless records run together: {@code vmx| Checkpoint_Unstun: vm stopped for N us}. */
  private static final Pattern BARE_UNSTUN = Pattern.compile(
      "(?:^|\\s)[\\w.-]+\\| Checkpoint_Unstun: vm stopped for (\\d+) us");
  private static final Pattern MIGRATION_ID = Pattern.compile(
      "(?:migration id|mid id|mid=)\\s*([0-9a-fA-F]{1,20})\\b");

  /** Where the lines the parser skips are reported. */
  @FunctionalInterface
  public interface Problems {
    /** Nothing is reported. */
    Problems IGNORE = (line, why) -> { };

    /**
     * A line that was skipped.
     *
     * @param line 1-based line number in what was read
     * @param why  what is wrong with it
     */
    void badLine(long line, String why);
  }

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
    public StunObservation observation(String vcenterUuid, String vmMoref, String vmName,
        String logFile) {
      return new StunObservation(vcenterUuid, vmMoref, vmName, migrationId, timestamp, stunMicros,
          source, logFile, lineNumber);
    }
  }

  /**
   * One vMotion the log shows. Each instant is absent when its line was not read or its timestamp is redacted.
   *
   * @param vmotionId              decimal, null when the log names none
   * @param timestamp              the newest timestamp of its lines; null when none has one
   * @param precopyStart           the source's state 0 to 1
   * @param restoreStart           the destination's {@code Migrate_Open}
   * @param stunStart              {@code Migrate: VM starting stun}
   * @param stunned                {@code Migrate: VM successfully stunned}
   * @param unstun                 {@code Checkpoint_Unstun}
   * @param stunMicros             its figure
   * @param destinationWaitSeconds {@code Destination waited for N seconds}
   * @param failures               the failure's {@code [msg.*]} entries
   * @param lineNumber             1-based line of its first line
   */
  public record Vmotion(String vmotionId, Instant timestamp, Instant precopyStart, Instant restoreStart,
      Instant stunStart, Instant stunned, Instant unstun, Long stunMicros, Double destinationWaitSeconds,
      List<LogMessage> failures, int lineNumber) {

    public Vmotion {
      failures = List.copyOf(failures);
    }

    /** This vMotion as published for the VM whose log {@code logFile} is; its {@link #timestamp} must be known. */
    public VmotionObservation observation(String vcenterUuid, String vmMoref, String vmName, String logFile) {
      return new VmotionObservation(vcenterUuid, vmMoref, vmName, vmotionId, timestamp, precopyStart, restoreStart,
          stunStart, stunned, unstun, stunMicros, destinationWaitSeconds, failures, logFile, lineNumber);
    }
  }

  /**
   * What one log gave.
   *
   * @param stuns    every stun, in file order
   * @param vmotions every vMotion, in file order
   */
  public record Log(List<Stun> stuns, List<Vmotion> vmotions) {

    public Log {
      stuns = List.copyOf(stuns);
      vmotions = List.copyOf(vmotions);
    }
  }

  /**
   * The stuns of {@code text} with a timestamp after {@code after} (all timestamped ones when null), in file order:
   * what a collector that re-reads a growing log has not published yet.
   */
  public List<Stun> parseAfter(String text, Instant after) {
    return after(parse(text), after);
  }

  /** The stuns of {@code stuns} with a timestamp after {@code after} (all timestamped ones when null). */
  public static List<Stun> after(List<Stun> stuns, Instant after) {
    List<Stun> out = new ArrayList<>();
    for (Stun s : stuns) {
      if (s.timestamp() != null && (after == null || s.timestamp().isAfter(after))) {
        out.add(s);
      }
    }
    return out;
  }

  /** Every stun in {@code text}, in file order; bad lines are skipped silently. */
  public List<Stun> parse(String text) {
    try {
      return parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), null, Problems.IGNORE);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // not from a byte array
    }
  }

  /**
   * Every stun in {@code in}, in file order.
   *
   * @param notAfter a stun dated after this is reported and skipped (a guest's forgery or a broken clock must not
   *                 stand for a real stun, nor hide the real ones after it); null for no limit
   * @param problems told of every line skipped
   * @throws IOException only when reading {@code in} fails
   */
  public List<Stun> parse(InputStream in, Instant notAfter, Problems problems) throws IOException {
    return read(in, notAfter, problems).stuns();
  }

  /** Every stun and vMotion in {@code text}, in file order; bad lines are skipped silently. */
  public Log read(String text) {
    try {
      return read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), null, Problems.IGNORE);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // not from a byte array
    }
  }

  /**
   * Every stun and vMotion in {@code in}, in file order, with the same checks as {@link #parse(InputStream, Instant,
   * Problems)}.
   */
  public Log read(InputStream in, Instant notAfter, Problems problems) throws IOException {
    Reader reader = new Reader(in, notAfter, problems);
    reader.run();
    return new Log(reader.out, reader.vmotions.finish());
  }

  /** The state of one pass over a log. */
  private static final class Reader {
    private final InputStream in;
    private final Instant notAfter;
    private final Problems problems;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private final List<Stun> out = new ArrayList<>();
    private final VmotionTracker vmotions = new VmotionTracker();
    private String migrationId;

    Reader(InputStream in, Instant notAfter, Problems problems) {
      this.in = in;
      this.notAfter = notAfter;
      this.problems = problems;
    }

    void run() throws IOException {
      byte[] buf = new byte[64 * 1024];
      byte[] line = new byte[MAX_LINE_BYTES];
      int len = 0;
      boolean tooLong = false;
      long lineNo = 1;
      int n;
      while ((n = in.read(buf)) >= 0) {
        for (int i = 0; i < n; i++) {
          byte b = buf[i];
          if (b == '\n') {
            finish(line, len, tooLong, lineNo++);
            len = 0;
            tooLong = false;
          } else if (len < line.length) {
            line[len++] = b;
          } else {
            tooLong = true;
          }
        }
      }
      if (len > 0 || tooLong) {
        finish(line, len, tooLong, lineNo);
      }
    }

    private void finish(byte[] bytes, int len, boolean tooLong, long lineNo) {
      if (tooLong) {
        problems.badLine(lineNo, "longer than " + MAX_LINE_BYTES + " bytes");
        return;
      }
      if (len > 0 && bytes[len - 1] == '\r') {
        len--;
      }
      String text = decode(bytes, len, lineNo);
      if (text != null) {
        line(text, lineNo);
      }
    }

    private String decode(byte[] bytes, int len, long lineNo) {
      boolean ascii = true;
      for (int i = 0; i < len && ascii; i++) {
        ascii = bytes[i] >= 0;
      }
      if (ascii) {
        return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
      }
      try {
        CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(bytes, 0, len));
        return chars.toString();
      } catch (CharacterCodingException e) {
        problems.badLine(lineNo, "not valid UTF-8");
        return null;
      }
    }

    private void line(String line, long lineNo) {
      boolean candidate = line.contains("Checkpoint_Unstun") || line.contains("Migrate") || line.contains("mid")
          || line.contains("[msg.") || line.contains("Msg_Post");
      if (!candidate) {
        vmotions.other();
        return; // most lines: nothing to look at
      }
      Matcher header = HEADER.matcher(line);
      if (!header.find()) {
        bare(line, lineNo);
        return;
      }
      String message = line.substring(header.end());
      Instant at = timestamp(header.group(1));
      if (message.startsWith("Guest")) {
        vmotions.other();
        return; // written by the guest: never a figure, never a migration id
      }
      if (!inTime(at, lineNo) || vmotions.listEntry(message, at, lineNo)) {
        return;
      }
      Matcher mid = MIGRATION_ID.matcher(message);
      while (mid.find()) {
        migrationId = decimal(mid.group(1), message.substring(mid.start(), mid.start(1)).contains("="));
        vmotions.id(migrationId, lineNo, at);
      }
      if (vmotions.phase(message, at, lineNo, migrationId)) {
        return;
      }
      Matcher unstun = UNSTUN.matcher(message);
      if (unstun.find()) {
        Long micros = micros(unstun.group(1), lineNo);
        if (micros != null) {
          out.add(new Stun(at, micros, StunSource.CHECKPOINT_UNSTUN, migrationId, intLine(lineNo)));
          vmotions.unstun(at, micros);
        }
      }
    }

    /** A line without a header: records quoted without their timestamps, possibly several run together. */
    private void bare(String line, long lineNo) {
      Matcher unstun = BARE_UNSTUN.matcher(line);
      while (unstun.find()) {
        Long micros = micros(unstun.group(1), lineNo);
        if (micros != null) {
          out.add(new Stun(null, micros, StunSource.CHECKPOINT_UNSTUN, migrationId, intLine(lineNo)));
        }
      }
    }

    private Long micros(String digits, long lineNo) {
      if (digits.length() > 12 || Long.parseLong(digits) > MAX_STUN_MICROS) {
        problems.badLine(lineNo, "stun figure " + (digits.length() > 24 ? digits.substring(0, 24) + "..." : digits)
            + " us is over " + MAX_STUN.toMinutes() + " min");
        return null;
      }
      return Long.parseLong(digits);
    }

    private boolean inTime(Instant at, long lineNo) {
      if (at != null && notAfter != null && at.isAfter(notAfter)) {
        problems.badLine(lineNo, "dated " + at + ", after " + notAfter);
        return false;
      }
      return true;
    }
  }

  private static int intLine(long lineNo) {
    return lineNo > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) lineNo;
  }

  private static Instant timestamp(String token) {
    if (!TIMESTAMP.matcher(token).matches()) {
      return null; // redacted, or not a time
    }
    try {
      return Instant.parse(token);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** A migration id in decimal: {@code mid=7958ea7f2d34d435} is hex; the other forms are decimal already. */
  static String decimal(String raw, boolean afterEquals) {
    boolean hex = afterEquals && raw.length() == 16 && raw.chars().anyMatch(c -> Character.isLetter(c));
    return hex ? new BigInteger(raw, 16).toString() : raw;
  }
}
