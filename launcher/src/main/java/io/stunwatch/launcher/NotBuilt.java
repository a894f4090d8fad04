package io.stunwatch.launcher;

/**
 * Reports that a subcommand of the design is not in this build yet. It starts nothing and exits with
 * {@link ExitCodes#NOT_BUILT}, so a script cannot mistake it for a running component.
 */
final class NotBuilt {

  private NotBuilt() {
  }

  static int report(LaunchContext ctx, String command, int issue, String what) {
    ctx.err().println("stunwatch " + command + ": not built yet. " + what + " arrives with issue #" + issue
        + "; nothing was started.");
    ctx.err().flush();
    return ExitCodes.NOT_BUILT;
  }
}
