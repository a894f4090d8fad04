package io.stunwatch.launcher;

import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.TypedProducer;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.ProducerConfig;

/** The processor ITs' way of feeding a simulated fleet to a broker, and of knowing which migrations must settle. */
final class ScenarioReplay {

  /**
   * Seconds after a migration's end by which its impact is due: the 120 s settle window plus the processor's 30 s
   * close margin (both defaults).
   */
  static final long SETTLES_AFTER_SECONDS = 150;

  private ScenarioReplay() {
  }

  /** Sends the whole scenario as fast as the producer goes. */
  static void replay(String bootstrap, FleetScenario scenario) {
    replay(bootstrap, scenario, 0, new AtomicLong());
  }

  /**
   * Sends the scenario; {@code perSecond} > 0 paces it, and {@code sent} counts what has gone.
   *
   * <p>The producer is flushed at each new simulated second. Without that, the busy sample partitions queue up in
   * the producer (one batch per partition per request) while the sparse vCenter events go out at once: the broker
   * would hold events minutes of event time ahead of the samples, which no real site does, and the processor would
   * close impacts before their after-samples arrived.
   */
  static void replay(String bootstrap, FleetScenario scenario, int perSecond, AtomicLong sent) {
    long begin = System.nanoTime();
    long[] second = {Long.MIN_VALUE};
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 20))) {
      scenario.run(new FleetScenario.Sink() {
        @Override
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          if (at.getEpochSecond() != second[0]) {
            p.flush();
            second[0] = at.getEpochSecond();
          }
          p.send(topic, key, value, at);
          long n = sent.incrementAndGet();
          if (perSecond > 0 && n % 500 == 0) {
            p.flush();
            long ahead = n * 1_000_000_000L / perSecond - (System.nanoTime() - begin);
            if (ahead > 0) {
              LockSupport.parkNanos(ahead);
            }
          }
        }
      });
      p.flush();
    }
  }

  /** The ids of the migrations whose impacts are due by {@code last}, the scenario's last second. */
  static Set<String> settledBy(FleetScenario scenario, Instant last) {
    return scenario.plans().stream().filter(p -> !p.end().plusSeconds(SETTLES_AFTER_SECONDS).isAfter(last))
        .map(FleetScenario.Plan::migrationId).collect(Collectors.toSet());
  }
}
