package io.stunwatch.launcher;

import java.io.PrintWriter;
import java.time.Clock;
import java.util.Map;

/**
 * What a command gets from the outside world: the environment, its output streams and the clock. Injected by
 * {@link Stunwatch}'s picocli factory so commands can be run in-process by tests with a given environment.
 *
 * @param env the environment variables
 * @param out standard output: the command's results (ready lines, records), for people and scripts
 * @param err standard error: diagnostics; logs also go there
 * @param clock wall clock
 */
public record LaunchContext(Map<String, String> env, PrintWriter out, PrintWriter err, Clock clock) {

  public static LaunchContext system() {
    return new LaunchContext(System.getenv(), new PrintWriter(System.out, true), new PrintWriter(System.err, true),
        Clock.systemUTC());
  }
}
