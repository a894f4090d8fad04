package io.stunwatch.processor;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the stream processor.
 *
 * @param applicationId     Kafka Streams application id (consumer group, internal topic prefix)
 * @param stateDir          where the state stores live on disk
 * @param alertGpuPct       "under load" when GPU utilization averaged over {@code alertWindow} is at least this
 * @param alertWindow       the look-back of that average
 * @param alertFbUsedPct    "under load" when framebuffer used is at least this percent
 * @param alertRdmaGbps     "under load" when RDMA traffic is at least this many Gbit/s
 * @param sampleRetention   how long a VM's load history is kept for alerts and impact timelines
 * @param beforeWindow      the "before" phase of an impact record
 * @param settleWindow      the "after" phase: how long after its end a migration's impact is closed
 * @param migrationTimeout  a migration without an end after this long is closed as UNKNOWN
 */
public record ProcessorConfig(String applicationId, Path stateDir, double alertGpuPct, Duration alertWindow,
    double alertFbUsedPct, double alertRdmaGbps, Duration sampleRetention, Duration beforeWindow,
    Duration settleWindow, Duration migrationTimeout) {

  public static final ConfigKey<String> APPLICATION_ID = ConfigKeys.string("process.application-id",
      "stunwatch-processor", "Kafka Streams application id; instances with the same id share the work.");
  public static final ConfigKey<Path> STATE_DIR = ConfigKeys.path("process.state-dir",
      Path.of("stunwatch-data", "streams"), "Directory of the processor's state stores.");
  public static final ConfigKey<Integer> ALERT_GPU_PCT = ConfigKeys.integer("process.alert.gpu-utilization-pct", 50,
      0, 100, "A migration starts under load when the VM's GPU utilization over the alert window is at least this.");
  public static final ConfigKey<Duration> ALERT_WINDOW = ConfigKeys.duration("process.alert.window",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1),
      "Look-back of the GPU utilization average an alert compares.");
  public static final ConfigKey<Integer> ALERT_FB_PCT = ConfigKeys.integer("process.alert.fb-used-pct", 80, 0, 100,
      "A migration starts under load when the VM's framebuffer use is at least this percent of its size.");
  public static final ConfigKey<Integer> ALERT_RDMA_MBPS = ConfigKeys.integer("process.alert.rdma-mbps", 1000, 0,
      10_000_000, "A migration starts under load when the VM's RDMA traffic is at least this many Mbit/s.");
  public static final ConfigKey<Duration> SAMPLE_RETENTION = ConfigKeys.duration("process.sample-retention",
      Duration.ofMinutes(15), Duration.ofMinutes(1), Duration.ofHours(24),
      "How long each VM's per-second load history is kept (alerts, impact timelines).");

  public static final ConfigKey<Duration> BEFORE_WINDOW = ConfigKeys.duration("process.before-window",
      Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofHours(1),
      "The 'before' phase an impact record compares against.");
  public static final ConfigKey<Duration> SETTLE_WINDOW = ConfigKeys.duration("process.settle-window",
      Duration.ofSeconds(120), Duration.ofSeconds(1), Duration.ofHours(1),
      "After-samples collected past a migration's end before its impact record is emitted.");
  public static final ConfigKey<Duration> MIGRATION_TIMEOUT = ConfigKeys.duration("process.migration-timeout",
      Duration.ofMinutes(30), Duration.ofMinutes(1), Duration.ofDays(1),
      "A migration that has not ended after this long is closed with result UNKNOWN.");

  public static final List<ConfigKey<?>> KEYS = List.of(APPLICATION_ID, STATE_DIR, ALERT_GPU_PCT, ALERT_WINDOW,
      ALERT_FB_PCT, ALERT_RDMA_MBPS, SAMPLE_RETENTION, BEFORE_WINDOW, SETTLE_WINDOW, MIGRATION_TIMEOUT);

  public static ProcessorConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    ProcessorConfig c = new ProcessorConfig(r.get(APPLICATION_ID), r.get(STATE_DIR), r.get(ALERT_GPU_PCT),
        r.get(ALERT_WINDOW), r.get(ALERT_FB_PCT), r.get(ALERT_RDMA_MBPS) / 1000.0, r.get(SAMPLE_RETENTION),
        r.get(BEFORE_WINDOW), r.get(SETTLE_WINDOW), r.get(MIGRATION_TIMEOUT));
    r.check(c.sampleRetention().compareTo(c.beforeWindow().plus(c.settleWindow())) > 0, SAMPLE_RETENTION,
        "must be longer than process.before-window plus process.settle-window, or impact timelines are cut");
    r.done();
    return c;
  }

  /** Defaults, for tests and embedding. */
  public static ProcessorConfig defaults() {
    return new ProcessorConfig("stunwatch-processor", Path.of("stunwatch-data", "streams"), 50, Duration.ofSeconds(60),
        80, 1.0, Duration.ofMinutes(15), Duration.ofMinutes(5), Duration.ofSeconds(120), Duration.ofMinutes(30));
  }
}
