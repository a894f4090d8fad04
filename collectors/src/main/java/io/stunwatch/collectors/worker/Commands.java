package io.stunwatch.collectors.worker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a short-lived command (a snapshot, not a stream) within a deadline. Its standard output and error are read
 * to their end by threads of their own, so neither a silent child nor one that fills its stderr pipe can hold the
 * caller past the deadline; at the deadline the child and everything it started are killed.
 */
public final class Commands {

  private static final int MAX_OUTPUT = 32 * 1024 * 1024;
  private static final int MAX_ERROR_KEPT = 4096;
  private static final Logger LOG = LoggerFactory.getLogger(Commands.class);

  private Commands() {
  }

  /**
   * Runs {@code command} and returns its standard output.
   *
   * @throws IOException naming the command when it cannot start, runs past {@code timeout}, prints more than 32 MiB
   *                     or exits non-zero (with the start of its standard error)
   */
  public static byte[] run(List<String> command, Duration timeout) throws IOException, InterruptedException {
    String name = String.join(" ", command);
    long deadline = System.nanoTime() + timeout.toNanos();
    Process p = new ProcessBuilder(command).start();
    try {
      Drain out = Drain.start(p.getInputStream(), MAX_OUTPUT, name);
      Drain err = Drain.start(p.getErrorStream(), MAX_ERROR_KEPT, name);
      if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
          || !out.await(deadline) || !err.await(deadline)) {
        // still running, or exited leaving a child of its own that holds the pipes
        throw new IOException(name + " did not finish within " + timeout);
      }
      if (p.exitValue() != 0) {
        throw new IOException(name + " exited " + p.exitValue() + ": "
            + InputParseException.quote(new String(err.bytes(), StandardCharsets.UTF_8).strip(), 300));
      }
      if (out.total() > MAX_OUTPUT) {
        throw new IOException(name + " printed " + out.total() + " bytes, more than " + MAX_OUTPUT);
      }
      return out.bytes();
    } finally {
      kill(p);
    }
  }

  /** How long {@link #kill} waits for what it killed to be gone. */
  static final Duration KILL_WAIT = Duration.ofSeconds(5);

  /**
   * Kills {@code p} and everything it started, and waits until they are gone, at most {@link #KILL_WAIT}: a signal
   * is delivered, and a process ends, when the kernel gets to it, which on a busy host is not at once. Nothing when
   * they are gone already; one that will not die in time (stuck in the kernel) is left and said.
   */
  public static void kill(Process p) {
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly();
    all.add(p.toHandle());
    long deadline = System.nanoTime() + KILL_WAIT.toNanos();
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        LOG.warn("process {} ({}) still there {} s after it was killed", h.pid(),
            h.info().command().orElse("?"), KILL_WAIT.toSeconds());
      } catch (ExecutionException e) {
        // onExit does not fail; nothing to wait for
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Reads a stream to its end on a thread of its own, keeping its first bytes. */
  private static final class Drain {
    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
    private final CountDownLatch done = new CountDownLatch(1);
    private final int keep;
    private long total;

    private Drain(int keep) {
      this.keep = keep;
    }

    static Drain start(InputStream in, int keep, String name) {
      Drain d = new Drain(keep);
      Thread t = new Thread(() -> {
        byte[] buf = new byte[64 * 1024];
        try (in) {
          int n;
          while ((n = in.read(buf)) >= 0) {
            synchronized (d) {
              int room = (int) Math.max(0, Math.min(n, keep - d.total));
              d.kept.write(buf, 0, room);
              d.total += n;
            }
          }
        } catch (IOException e) {
          // the child was killed: what was read is what there is
        } finally {
          d.done.countDown();
        }
      }, "stunwatch-drain-" + name);
      t.setDaemon(true);
      t.start();
      return d;
    }

    boolean await(long deadline) throws InterruptedException {
      return done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    synchronized byte[] bytes() {
      return kept.toByteArray();
    }

    synchronized long total() {
      return total;
    }
  }
}
