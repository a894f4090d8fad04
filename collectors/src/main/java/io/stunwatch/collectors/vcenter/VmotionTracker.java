package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.LogMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Follows the vMotions of one pass over a {@code vmware.log}: {@link VmwareLogParser} hands it each line's message
 * (after the header, never a guest's) and the migration ids it names, and it gathers each vMotion's phase lines into
 * a {@link VmwareLogParser.Vmotion}. A vMotion ends where another begins: a new migration id, a new precopy after a
 * later phase, a second stun start. Stun lines with nothing of a migration around them are no vMotion.
 */
final class VmotionTracker {

  static final String STUN_START = "Migrate: VM starting stun";
  static final String STUNNED = "Migrate: VM successfully stunned";
  /** State 0 (none) to 1: the source starts the precopy; with or without the states' names. */
  private static final Pattern PRECOPY_START = Pattern.compile(
      "^(?:MigrateSetState: Transitioning from state (?:\\S+ \\()?0\\)? to (?:\\S+ \\()?1\\b|MigrateSetInfo: state=1\\b"
          + "|Received migrate 'to' request)");
  private static final String RESTORE = "Migrate_Open: Restoring from";
  private static final Pattern DESTINATION_WAIT = Pattern.compile(
      "^Migrate: Remote Log: Destination waited for (\\d{1,9}(?:\\.\\d{1,6})?) seconds");
  private static final String FAILURE_LIST = "Migrate: Caching migration error message list";
  private static final String MSG_POST = "Msg_Post: Error";
  private static final Pattern MESSAGE = Pattern.compile("^\\[(msg\\.[\\w.-]{1,200})\\] ?(.*)$");
  /** The longest failure message kept. */
  private static final int MAX_MESSAGE_CHARS = 1024;
  /** The most failure messages kept of one vMotion. */
  private static final int MAX_MESSAGES = 20;

  private final List<VmwareLogParser.Vmotion> out = new ArrayList<>();
  private Draft current;
  /** Whether the lines now are a failure's message list. */
  private boolean messageList;

  /** A line with nothing for a vMotion (or the guest's): a message list ends there. */
  void other() {
    messageList = false;
  }

  /** Whether {@code message} is an entry of the message list being read; it is kept. */
  boolean listEntry(String message, Instant at, long lineNo) {
    Matcher msg = MESSAGE.matcher(message);
    if (messageList && msg.matches()) {
      draft(lineNo, at, null).failure(msg.group(1), msg.group(2));
      return true;
    }
    messageList = false;
    return false;
  }

  /** A migration id the line names: another vMotion begins when the one being read has another. */
  void id(String id, long lineNo, Instant at) {
    if (current != null && current.id != null && !current.id.equals(id)) {
      finishOne();
    }
    draft(lineNo, at, id).id = id;
  }

  /**
   * Reads a phase line; false when {@code message} is none (a stun figure may be).
   *
   * @param id the newest migration id of the log, for a vMotion this line begins
   */
  boolean phase(String message, Instant at, long lineNo, String id) {
    if (PRECOPY_START.matcher(message).find()) {
      if (current != null && current.pastPrecopy()) {
        finishOne();
      }
      Draft d = draft(lineNo, at, id);
      d.precopyStart = d.precopyStart == null ? at : d.precopyStart;
    } else if (message.startsWith(RESTORE)) {
      draft(lineNo, at, id).restoreStart = at;
    } else if (message.startsWith(STUN_START)) {
      if (current != null && current.stunStart != null) {
        finishOne();
      }
      draft(lineNo, at, id).stunStart = at;
    } else if (message.startsWith(STUNNED)) {
      draft(lineNo, at, id).stunned = at;
    } else if (message.startsWith(FAILURE_LIST)) {
      draft(lineNo, at, id);
      messageList = true;
    } else if (message.startsWith(MSG_POST)) {
      messageList = current != null && current.unstun == null; // an error while a vMotion runs is its failure
    } else {
      Matcher wait = DESTINATION_WAIT.matcher(message);
      if (!wait.find()) {
        return false;
      }
      draft(lineNo, at, id).destinationWait = Double.parseDouble(wait.group(1));
    }
    return true;
  }

  /** A {@code Checkpoint_Unstun} figure: the resume of the vMotion being read, unless it has one. */
  void unstun(Instant at, long micros) {
    if (current != null && current.unstun == null && current.stunMicros == null) {
      current.stunMicros = micros;
      current.unstun = at;
      current.seen(at);
    }
  }

  /** Every vMotion read, in file order. */
  List<VmwareLogParser.Vmotion> finish() {
    finishOne();
    return out;
  }

  private void finishOne() {
    if (current != null && current.migration()) {
      out.add(current.build());
    }
    current = null;
    messageList = false;
  }

  /** The vMotion being read, begun at this line when there is none. */
  private Draft draft(long lineNo, Instant at, String id) {
    if (current == null) {
      current = new Draft(lineNo > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) lineNo);
      current.id = id;
    }
    current.seen(at);
    return current;
  }

  /** A vMotion while its lines are read. */
  private static final class Draft {
    private final int firstLine;
    private String id;
    private Instant last;
    private Instant precopyStart;
    private Instant restoreStart;
    private Instant stunStart;
    private Instant stunned;
    private Instant unstun;
    private Long stunMicros;
    private Double destinationWait;
    private final List<LogMessage> failures = new ArrayList<>();

    Draft(int firstLine) {
      this.firstLine = firstLine;
    }

    void seen(Instant at) {
      if (at != null && (last == null || at.isAfter(last))) {
        last = at;
      }
    }

    /**
     * Whether the lines are a migration's: a hot add or a snapshot stuns the VM through the same stun and resume
     * lines, with no migration id, precopy, restore, wait or message list (Broadcom KB 432796).
     */
    boolean migration() {
      return id != null || precopyStart != null || restoreStart != null || destinationWait != null
          || !failures.isEmpty();
    }

    /** Whether a later phase than the precopy's start was read: a new start is another vMotion. */
    boolean pastPrecopy() {
      return stunStart != null || stunned != null || restoreStart != null || unstun != null || !failures.isEmpty();
    }

    void failure(String msgId, String text) {
      if (failures.size() < MAX_MESSAGES) {
        failures.add(new LogMessage(msgId, text.length() > MAX_MESSAGE_CHARS
            ? text.substring(0, MAX_MESSAGE_CHARS) : text));
      }
    }

    VmwareLogParser.Vmotion build() {
      return new VmwareLogParser.Vmotion(id, last, precopyStart, restoreStart, stunStart, stunned, unstun, stunMicros,
          destinationWait, failures, firstLine);
    }
  }
}
