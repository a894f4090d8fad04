package io.stunwatch.launcher;

/** Exit statuses of the {@code stunwatch} command. */
public final class ExitCodes {

  public static final int OK = 0;
  /** The command ran and failed (a broker that would not start, for example). */
  public static final int FAILED = 1;
  /** Bad command line or bad configuration: nothing was started. */
  public static final int USAGE = 2;
  /** A replay published what it could read, but skipped a line, an item or a whole file; its summary says which. */
  public static final int SKIPPED = 4;
  /** A replay published nothing: no file it was given held anything it could read. */
  public static final int NOTHING = 5;

  /** The exit status of a replay. */
  static int of(io.stunwatch.collectors.worker.ReplayReport.Outcome outcome) {
    return switch (outcome) {
      case READ -> OK;
      case SKIPPED -> SKIPPED;
      case NOTHING -> NOTHING;
    };
  }

  private ExitCodes() {
  }
}
