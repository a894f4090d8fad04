package io.stunwatch.collectors.worker;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.time.Duration;
import java.util.List;

/**
 * How the worker collector delivers to Kafka.
 *
 * @param outageBound how long a sample is kept and retried while Kafka is unreachable; older ones are dropped and
 *                    counted
 * @param maxBuffered most samples held in memory waiting for Kafka; beyond it new samples are dropped and counted
 */
public record DeliveryConfig(Duration outageBound, int maxBuffered) {

  public static final ConfigKey<Duration> OUTAGE_BOUND = ConfigKeys.duration("delivery.outage-bound",
      Duration.ofMinutes(5), Duration.ofSeconds(35), Duration.ofHours(24),
      "How long a collector keeps retrying a sample while Kafka is unreachable. A shorter outage loses nothing; "
          + "past it, samples are dropped, counted (stunwatch_collector_samples_dropped_total) and logged.");
  public static final ConfigKey<Integer> MAX_BUFFERED = ConfigKeys.integer("delivery.max-buffered", 100_000, 100,
      10_000_000, "Most samples a collector holds in memory while Kafka is unreachable (about 300 bytes each).");

  public static final List<ConfigKey<?>> KEYS = List.of(OUTAGE_BOUND, MAX_BUFFERED);

  public static DeliveryConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    DeliveryConfig c = new DeliveryConfig(r.get(OUTAGE_BOUND), r.get(MAX_BUFFERED));
    r.done();
    return c;
  }
}
