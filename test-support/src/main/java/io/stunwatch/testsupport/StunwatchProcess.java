package io.stunwatch.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real {@code stunwatch} command (the launcher's executable jar) run as a child process, with its stdout and
 * stderr captured line by line, for ITs that exercise what an operator types.
 */
public final class StunwatchProcess implements AutoCloseable {

  private final Process process;
  private final ClassDataArchives.Plan archive;
  private final List<String> stdout = new ArrayList<>();
  private final List<String> stderr = new ArrayList<>();

  private StunwatchProcess(Process process, ClassDataArchives.Plan archive) {
    this.process = process;
    this.archive = archive;
    pump(process.getInputStream(), stdout, "stdout");
    pump(process.getErrorStream(), stderr, "stderr");
  }

  /** The executable jar built by {@code mvn package} in the launcher module. */
  public static Path jar() {
    Path jar = SharedFixtures.repoRoot().resolve("launcher/target/stunwatch.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: run the ITs with mvn verify, after package");
    }
    return jar;
  }

  /** Starts {@code java -jar stunwatch.jar ARGS} with extra environment variables. */
  public static StunwatchProcess start(Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>(List.of(javaBin()));
    cmd.addAll(javaOptions());
    ClassDataArchives.Plan archive = ClassDataArchives.plan(jar(), List.of(args));
    cmd.addAll(archive.options());
    cmd.addAll(List.of("-jar", jar().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    try {
      return new StunwatchProcess(pb.start(), archive);
    } catch (IOException e) {
      archive.ended(false);
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
  }

  public static StunwatchProcess start(String... args) {
    return start(Map.of(), args);
  }

  /**
   * Starts a checkout's own {@code stunwatch} command, as a user types it in that checkout: {@code root/stunwatch
   * ARGS}, in {@code root}, with extra environment variables. It builds its jar when it has none.
   */
  public static StunwatchProcess script(Path root, Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>(List.of(root.resolve("stunwatch").toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile());
    pb.environment().putAll(env);
    try {
      return new StunwatchProcess(pb.start(), ClassDataArchives.Plan.NONE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
  }

  /**
   * Waits for a stdout line matching {@code regex} and returns its match.
   *
   * @throws AssertionError naming the pattern and showing the output when it does not appear in time, or the
   *                        process exits first
   */
  public Matcher awaitStdout(String regex, Duration timeout) {
    return await(stdout, "stdout", regex, timeout);
  }

  /** Like {@link #awaitStdout}, on stderr. */
  public Matcher awaitStderr(String regex, Duration timeout) {
    return await(stderr, "stderr", regex, timeout);
  }

  private Matcher await(List<String> lines, String stream, String regex, Duration timeout) {
    Pattern p = Pattern.compile(regex);
    long deadline = System.nanoTime() + timeout.toNanos();
    int seen = 0;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          Matcher m = p.matcher(lines.get(seen));
          if (m.find()) {
            return m;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0 || (!process.isAlive() && seen == lines.size() && closed(lines))) {
          throw new AssertionError("no " + stream + " line matching /" + regex + "/ within " + timeout
              + (process.isAlive() ? "" : " (process exited with " + process.exitValue() + ")")
              + "\n--- stdout ---\n" + String.join("\n", stdout()) + "\n--- stderr ---\n"
              + String.join("\n", stderr()));
        }
        try {
          lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
      }
    }
  }

  // Keyed by identity: a List's hashCode changes as lines arrive.
  private final Map<List<String>, Boolean> closedStreams =
      Collections.synchronizedMap(new IdentityHashMap<>());

  private boolean closed(List<String> lines) {
    return closedStreams.containsKey(lines);
  }

  /** Waits for the process to exit and returns its exit code. */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("process still running after " + timeout + "\n--- stderr ---\n"
            + String.join("\n", stderr()));
      }
      archive.ended(true);
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Sends SIGTERM (what Ctrl-C or systemd stop does) and waits for a clean exit. */
  public int terminate(Duration timeout) {
    // Not process.destroy(): that also closes our ends of the pipes, losing what the process prints on its way out.
    process.toHandle().destroy();
    return awaitExit(timeout);
  }

  /**
   * Sends SIGINT, what Ctrl-C in a terminal sends, and waits for the exit; returns the exit code.
   *
   * @throws AssertionError at once when the process ignores SIGINT, which it inherits from whatever started the
   *                        tests (a background job of a shell without job control ignores it, and so does every
   *                        process it starts): the JVM then installs no handler, and the test would wait in vain
   */
  public int interrupt(Duration timeout) {
    String status;
    try {
      status = Files.readString(Path.of("/proc", String.valueOf(process.pid()), "status"));
    } catch (IOException e) {
      status = ""; // no /proc: nothing to tell
    }
    if (ignoresSigint(status)) {
      throw new AssertionError("process " + process.pid() + " ignores SIGINT, inherited from what started the "
          + "tests (a background job of a shell without job control ignores it): run ./test.sh in the foreground "
          + "or from a shell with job control (set -m)");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(process.pid())).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new AssertionError("kill -INT " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    return awaitExit(timeout);
  }

  /** Whether a {@code /proc/<pid>/status} text's {@code SigIgn} mask has SIGINT (signal 2) set. */
  static boolean ignoresSigint(String procStatus) {
    for (String line : procStatus.split("\n")) {
      if (line.startsWith("SigIgn:")) {
        return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16) & (1L << (2 - 1))) != 0;
      }
    }
    return false;
  }

  /** Sends SIGKILL: the JVM halts at once, with no shutdown hook, flush or close; waits until it is gone. */
  public void kill() {
    process.toHandle().destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new AssertionError("still alive 30 s after SIGKILL");
      }
      archive.ended(false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  public List<String> stdout() {
    synchronized (stdout) {
      return List.copyOf(stdout);
    }
  }

  public List<String> stderr() {
    synchronized (stderr) {
      return List.copyOf(stderr);
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    boolean byItself = !process.isAlive();
    if (!byItself) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    archive.ended(byItself);
  }

  private void pump(InputStream in, List<String> sink, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (sink) {
            sink.add(line);
            sink.notifyAll();
          }
        }
      } catch (IOException e) {
        // the process went away; what was read is kept
      } finally {
        closedStreams.put(sink, Boolean.TRUE);
        synchronized (sink) {
          sink.notifyAll();
        }
      }
    }, "stunwatch-" + name);
    t.setDaemon(true);
    t.start();
  }

  /**
   * The JVM options of the processes the tests start, from the system property {@code stunwatch.it.java-options}
   * (space-separated; the build sets it). They change how fast a process gets going, never what it does: most of the
   * processes a test starts live for seconds, and on a 2-core machine running two tests at once the JIT's second tier
   * costs them more CPU than it gives back.
   */
  static List<String> javaOptions() {
    String v = System.getProperty("stunwatch.it.java-options", "");
    return v.isBlank() || v.contains("${") ? List.of() : List.of(v.trim().split("\\s+"));
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
