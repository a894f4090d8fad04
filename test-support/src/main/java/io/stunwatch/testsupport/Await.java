package io.stunwatch.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition with a deadline, polling: the alternative to sleep-and-hope in tests. */
public final class Await {

  private Await() {
  }

  /**
   * Returns as soon as {@code condition} holds.
   *
   * @param state what the system under test shows when the wait fails: the values the condition compares, which
   *              of the awaited things are missing and why, not a constant
   * @throws AssertionError with {@code what} and the last {@code state} when it does not hold within {@code timeout}
   */
  public static void until(Duration timeout, BooleanSupplier condition, String what, Supplier<?> state) {
    until(timeout, Duration.ofMillis(20), condition, what, state);
  }

  /**
   * {@link #until(Duration, BooleanSupplier, String, Supplier)}, asking {@code condition} every {@code poll}: for a
   * condition that costs the system under test real work (a scrape of its metrics), so that asking does not slow
   * down what is waited for.
   */
  public static void until(Duration timeout, Duration poll, BooleanSupplier condition, String what,
      Supplier<?> state) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + timeout + ": " + what + " (state: " + state.get() + ")");
      }
      try {
        Thread.sleep(poll.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting for " + what, e);
      }
    }
  }
}
