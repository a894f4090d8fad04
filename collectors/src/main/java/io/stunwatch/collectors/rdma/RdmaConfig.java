package io.stunwatch.collectors.rdma;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the RDMA input.
 *
 * @param enabled  whether it runs
 * @param root     the sysfs directory of RDMA devices
 * @param interval how often the counters are read
 */
public record RdmaConfig(boolean enabled, Path root, Duration interval) {

  public static final ConfigKey<Boolean> ENABLED = ConfigKeys.bool("rdma.enabled", true,
      "Run the RDMA counters input. A machine without RDMA devices publishes nothing.");
  public static final ConfigKey<Path> ROOT = ConfigKeys.path("rdma.root", Path.of("/sys/class/infiniband"),
      "Directory of RDMA devices (each with ports/<n>/counters, hw_counters).");
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("rdma.interval", Duration.ofSeconds(1),
      Duration.ofMillis(100), Duration.ofHours(1), "How often the RDMA counters are read.");

  public static final List<ConfigKey<?>> KEYS = List.of(ENABLED, ROOT, INTERVAL);

  public static RdmaConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    RdmaConfig c = new RdmaConfig(r.get(ENABLED), r.get(ROOT), r.get(INTERVAL));
    r.done();
    return c;
  }
}
