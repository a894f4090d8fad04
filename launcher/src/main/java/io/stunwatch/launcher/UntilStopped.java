package io.stunwatch.launcher;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.LoggerFactory;

/**
 * Runs a started component until the process is asked to stop (Ctrl-C, SIGTERM from systemd or Docker), then
 * closes it before the JVM exits. The JVM halts as soon as its shutdown hooks return, so the hook waits for the
 * close (at most {@code grace}) to let a broker flush its logs or a collector send what it buffered.
 */
final class UntilStopped {

  private UntilStopped() {
  }

  /** Blocks until stopped, then closes {@code component}. */
  static void await(AutoCloseable component, Duration grace) throws Exception {
    await(component, grace, null);
  }

  /**
   * Blocks until stopped or until {@code runFor} has passed (null: no limit), then closes {@code component}.
   *
   * @return whether it was stopped by a signal rather than by the time limit
   */
  static boolean await(AutoCloseable component, Duration grace, Duration runFor) throws Exception {
    return await(component, grace, runFor, new CompletableFuture<>()) == null;
  }

  /**
   * Blocks until stopped or until {@code failure} completes, then closes {@code component}.
   *
   * @return the failure's reason, or null when stopped by a signal
   */
  static String awaitOrFailure(AutoCloseable component, Duration grace,
      CompletionStage<String> failure) throws Exception {
    return await(component, grace, null, failure);
  }

  /** @return the failure's reason; null when stopped by a signal; "" when {@code runFor} ran out */
  private static String await(AutoCloseable component, Duration grace, Duration runFor,
      CompletionStage<String> failure) throws Exception {
    CountDownLatch stop = new CountDownLatch(1);
    AtomicReference<String> failed = new AtomicReference<>();
    failure.thenAccept(why -> {
      failed.set(why);
      stop.countDown();
    });
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.countDown();
      try {
        closed.await(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "stunwatch-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    String outcome = null;
    try {
      if (runFor == null) {
        stop.await();
      } else if (!stop.await(runFor.toMillis(), TimeUnit.MILLISECONDS)) {
        outcome = "";
      }
      if (failed.get() != null) {
        outcome = failed.get();
      }
      if (outcome != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook); // the JVM exits normally; nothing to wait for
        } catch (IllegalStateException shuttingDown) {
          outcome = null; // a signal came at the same time: the hook waits for the close below
        }
      }
    } finally {
      try {
        component.close();
      } catch (Exception | Error e) {
        LoggerFactory.getLogger(UntilStopped.class).error("Did not shut down cleanly", e);
        throw e;
      } finally {
        closed.countDown();
      }
    }
    return outcome;
  }
}
