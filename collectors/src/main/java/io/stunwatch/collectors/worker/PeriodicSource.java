package io.stunwatch.collectors.worker;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source that polls at a fixed delay on its own thread. A failing poll is logged and the next one runs on time:
 * one bad read never stops an input.
 */
public abstract class PeriodicSource implements CollectorSource {

  private static final Logger LOG = LoggerFactory.getLogger(PeriodicSource.class);

  private final String name;
  private final Duration interval;
  private ScheduledExecutorService executor;

  protected PeriodicSource(String name, Duration interval) {
    this.name = name;
    this.interval = interval;
  }

  @Override
  public String name() {
    return name;
  }

  /** One read; exceptions are logged by the caller and the schedule goes on. */
  protected abstract void poll() throws Exception;

  @Override
  public synchronized void start() {
    executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "stunwatch-" + name);
      t.setDaemon(true);
      return t;
    });
    executor.scheduleWithFixedDelay(this::safePoll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void safePoll() {
    try {
      poll();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.warn("{} input: {}", name, e.getMessage());
    }
  }

  @Override
  public synchronized void close() {
    stop(executor);
  }

  /** Interrupts a poller's threads and waits up to 5 s for them; null is nothing to stop. */
  public static void stop(ExecutorService executor) {
    if (executor != null) {
      executor.shutdownNow();
      try {
        executor.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
