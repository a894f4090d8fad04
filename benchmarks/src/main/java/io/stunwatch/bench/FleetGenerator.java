package io.stunwatch.bench;

import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.TypedProducer;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Sends the fleet in real time: each second's records when that second comes, as collectors would. Counts what
 * it sent, and how far it fell behind.
 */
final class FleetGenerator implements Runnable {
  private final FleetScenario fleet;
  private final String bootstrap;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile long behindMillis;
  private volatile Throwable failed;
  private Thread thread;

  FleetGenerator(FleetScenario fleet, String bootstrap) {
    this.fleet = fleet;
    this.bootstrap = bootstrap;
  }

  void start() {
    thread = new Thread(this, "fleet-generator");
    thread.setDaemon(true);
    thread.start();
  }

  /** Records sent so far. */
  long sent() {
    return sent.get();
  }

  /** The most the generator has fallen behind the fleet's clock, ms. */
  long behindMillis() {
    return behindMillis;
  }

  /** What ended the generator's pass, or null. */
  Throwable failed() {
    return failed;
  }

  /** Sleeps until {@code nanos} ({@link System#nanoTime}); fails at once if the generator has failed. */
  void awaitUntil(long nanos) throws InterruptedException {
    while (System.nanoTime() < nanos) {
      if (failed != null) {
        throw new IllegalStateException("the fleet generator failed", failed);
      }
      Thread.sleep(Math.min(1000, Math.max(1, (nanos - System.nanoTime()) / 1_000_000)));
    }
  }

  void stop() throws InterruptedException {
    stop.set(true);
    if (thread != null) {
      thread.join(30_000);
    }
  }

  @Override
  public void run() {
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
      fleet.run(new FleetScenario.Sink() {
        long second = Long.MIN_VALUE;

        @Override
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          if (stop.get()) {
            throw new Stopped();
          }
          long s = at.getEpochSecond();
          if (s != second) {
            second = s;
            long wait = at.toEpochMilli() - System.currentTimeMillis();
            if (wait > 0) {
              sleep(wait);
            } else {
              behindMillis = Math.max(behindMillis, -wait);
            }
          }
          p.send(topic, key, value, at);
          sent.incrementAndGet();
        }
      });
    } catch (Stopped e) {
      // asked to stop
    } catch (RuntimeException e) {
      failed = e;
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Stopped();
    }
  }

  /** Ends the generator's pass through the scenario. */
  private static final class Stopped extends RuntimeException {
    Stopped() {
      super(null, null, false, false);
    }
  }
}
