package io.stunwatch.launcher;

/** Exit statuses of the {@code stunwatch} command. */
public final class ExitCodes {

  public static final int OK = 0;
  /** The command ran and failed (a broker that would not start, for example). */
  public static final int FAILED = 1;
  /** Bad command line or bad configuration: nothing was started. */
  public static final int USAGE = 2;

  private ExitCodes() {
  }
}
