package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the nvidia-smi input.
 *
 * @param enabled          whether the input runs
 * @param executable       the nvidia-smi program
 * @param interval         sampling interval of the streaming child ({@code -lms})
 * @param snapshotInterval interval of {@code nvidia-smi -q -x} snapshots; zero turns them off
 * @param restartBackoffMax longest wait between restarts of a child that keeps exiting
 */
public record NvidiaSmiConfig(boolean enabled, String executable, Duration interval, Duration snapshotInterval,
    Duration restartBackoffMax) {

  public static final ConfigKey<Boolean> ENABLED = ConfigKeys.bool("nvidia-smi.enabled", true,
      "Run the nvidia-smi input (GPU samples and -q -x snapshots).");
  public static final ConfigKey<String> EXECUTABLE = ConfigKeys.string("nvidia-smi.executable", "nvidia-smi",
      "The nvidia-smi program: a name looked up on PATH, or a path.");
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("nvidia-smi.interval",
      Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofMinutes(10),
      "Sampling interval of the one long-running nvidia-smi child (its -lms).");
  public static final ConfigKey<Duration> SNAPSHOT_INTERVAL = ConfigKeys.duration("nvidia-smi.snapshot-interval",
      Duration.ofSeconds(60), Duration.ZERO, Duration.ofDays(1),
      "Interval of nvidia-smi -q -x snapshots (processes, MIG devices, virtualization mode); 0s turns them off.");
  public static final ConfigKey<Duration> RESTART_BACKOFF_MAX = ConfigKeys.duration(
      "nvidia-smi.restart-backoff-max", Duration.ofSeconds(60), Duration.ofMillis(10), Duration.ofHours(1),
      "Longest wait between restarts of an nvidia-smi child that keeps exiting (backoff doubles from 1s).");

  public static final List<ConfigKey<?>> KEYS = List.of(ENABLED, EXECUTABLE, INTERVAL, SNAPSHOT_INTERVAL,
      RESTART_BACKOFF_MAX);

  public static NvidiaSmiConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    NvidiaSmiConfig c = new NvidiaSmiConfig(r.get(ENABLED), r.get(EXECUTABLE), r.get(INTERVAL),
        r.get(SNAPSHOT_INTERVAL), r.get(RESTART_BACKOFF_MAX));
    r.done();
    return c;
  }
}
