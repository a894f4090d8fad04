package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.VmInventoryEntry;
import java.io.ByteArrayInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a migrated VM's stuns from the end of its {@code vmware.log} on its datastore, or from its newest rotated
 * {@code vmware-N.log} that has one: vMotion and power operations start a new log, and the stun may be in the one
 * rotated out. Only the last {@code vcenter.log-tail-bytes} of a file are read.
 *
 * <p>The log is written by the VM's host, but a guest can make lines appear in it (guest RPC), so no line is trusted:
 * a line that does not parse, or dated more than {@link #LOG_FUTURE_TOLERANCE} ahead, is skipped, counted and said
 * with its file and line ({@link VmwareLogParser}). A log that cannot be read is said and read as having no stun.
 */
final class StunLogFetcher {

  /** A log line dated further ahead than this is not believed (a guest's forgery or a broken host clock). */
  static final Duration LOG_FUTURE_TOLERANCE = Duration.ofMinutes(5);

  /** The rotated logs tried when the current one has no new stun: ESXi keeps six by default. */
  static final int MAX_ROTATED_LOGS = 6;

  private static final Pattern VMX_PATH = Pattern.compile("^\\[([^]]+)]\\s*(.*)$");
  private static final Pattern ROTATED = Pattern.compile("vmware-\\d{1,9}\\.log");

  /**
   * What the logs gave.
   *
   * @param stuns    the new stuns, oldest first
   * @param file     {@code [ds] path} of the log they were read from, and the byte its lines are counted from when
   *                 only its end was read
   * @param vmotions the new vMotions of the current log and the newest rotated one, each with its file
   */
  record Found(List<VmwareLogParser.Stun> stuns, String file, List<FoundVmotion> vmotions) {

    Found(List<VmwareLogParser.Stun> stuns, String file) {
      this(stuns, file, List.of());
    }
  }

  /** A vMotion read, and the file (as {@link Found#file}) it was read from. */
  record FoundVmotion(VmwareLogParser.Vmotion vmotion, String file) {
  }

  private final long tailBytes;
  private final Clock clock;
  private final Runnable lineSkipped;
  private final Consumer<String> problem;
  private final VmwareLogParser parser = new VmwareLogParser();

  /**
   * @param tailBytes   how much of the end of a log is read
   * @param lineSkipped called for each line skipped as bad (a counter)
   * @param problem     says what went wrong, with where (the collector's rate-limited log)
   */
  StunLogFetcher(long tailBytes, Clock clock, Runnable lineSkipped, Consumer<String> problem) {
    this.tailBytes = tailBytes;
    this.clock = clock;
    this.lineSkipped = lineSkipped;
    this.problem = problem;
  }

  /**
   * The stuns after {@code after} in the VM's current log, or else in its newest rotated log that has some, and the
   * vMotions after it in the current log and the newest rotated one; none
   * when its vmx path is not {@code [datastore] dir/file.vmx} or no log can be read (said why).
   */
  Found newStuns(VcenterConnection c, VmInventoryEntry vm, Instant after) {
    Matcher m = VMX_PATH.matcher(vm.vmPathName());
    if (!m.matches()) {
      problem.accept("vmx path of " + vm.key() + " is not '[datastore] dir/file.vmx': " + vm.vmPathName());
      return new Found(List.of(), vm.vmPathName());
    }
    String datastore = m.group(1);
    String dir = m.group(2).contains("/") ? m.group(2).substring(0, m.group(2).lastIndexOf('/') + 1) : "";
    Found current = read(c, vm, datastore, dir + "vmware.log", after);
    List<FoundVmotion> vmotions = new ArrayList<>(current.vmotions());
    Found read = current;
    // The source host's half of a vMotion (precopy, stop, a failure's messages) is in the log it rotated out as the
    // destination began its own: the newest rotated log is read for it, and for the stun when the current has none.
    List<String> rotated = rotatedLogs(c, vm, datastore, dir);
    for (int i = 0; i < rotated.size(); i++) {
      if (i > 0 && !read.stuns().isEmpty()) {
        break;
      }
      Found r = read(c, vm, datastore, dir + rotated.get(i), after);
      if (i == 0) {
        vmotions.addAll(r.vmotions());
      }
      if (read.stuns().isEmpty() && !r.stuns().isEmpty()) {
        read = r;
      }
    }
    return new Found(read.stuns(), read.file(), vmotions);
  }

  /** The stuns after {@code after} in the end of one log file; none when it cannot be read (said why). */
  private Found read(VcenterConnection c, VmInventoryEntry vm, String datastore, String path, Instant after) {
    String file = "[" + datastore + "] " + path;
    VcenterConnection.Tail tail;
    try {
      tail = c.datastoreTail(vm.datacenter(), datastore, path, tailBytes);
    } catch (FileNotFoundException ex) {
      return new Found(List.of(), file); // not every VM has every log; the rotated ones are looked for next
    } catch (IOException ex) {
      problem.accept("cannot read " + file + " of " + vm.key() + ": " + ex.getMessage());
      return new Found(List.of(), file);
    }
    byte[] bytes = tail.content();
    int from = 0;
    String name = file;
    if (tail.offset() > 0) {
      // cut inside a line: its rest is no line of its own
      while (from < bytes.length && bytes[from] != '\n') {
        from++;
      }
      from = Math.min(from + 1, bytes.length);
      name = file + " from byte " + (tail.offset() + from);
    }
    String where = name;
    try {
      VmwareLogParser.Log log = parser.read(new ByteArrayInputStream(bytes, from, bytes.length - from),
          clock.instant().plus(LOG_FUTURE_TOLERANCE), (line, why) -> {
            lineSkipped.run();
            problem.accept(where + ":" + line + ": skipped: " + why);
          });
      List<FoundVmotion> vmotions = log.vmotions().stream()
          .filter(v -> v.timestamp() != null && (after == null || v.timestamp().isAfter(after)))
          .map(v -> new FoundVmotion(v, where)).toList();
      return new Found(VmwareLogParser.after(log.stuns(), after), name, vmotions);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex); // not from a byte array
    }
  }

  /** The rotated logs in a VM's directory, newest (highest N) first, at most {@link #MAX_ROTATED_LOGS}. */
  private List<String> rotatedLogs(VcenterConnection c, VmInventoryEntry vm, String datastore, String dir) {
    List<String> names;
    try {
      names = c.datastoreDirectory(vm.datacenter(), datastore, dir);
    } catch (FileNotFoundException ex) {
      return List.of();
    } catch (IOException ex) {
      problem.accept("cannot list [" + datastore + "] " + dir + " of " + vm.key() + ": " + ex.getMessage());
      return List.of();
    }
    return names.stream().filter(n -> ROTATED.matcher(n).matches())
        .sorted(Comparator.comparingLong((String n) -> Long.parseLong(n.substring(7, n.length() - 4)))
            .reversed())
        .limit(MAX_ROTATED_LOGS).toList();
  }
}
