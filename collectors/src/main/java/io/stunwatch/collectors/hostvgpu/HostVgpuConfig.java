package io.stunwatch.collectors.hostvgpu;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Settings of the host vGPU input.
 *
 * @param enabled  whether it runs (only on a hypervisor host, or with a command that reaches one)
 * @param command  the command and its arguments
 * @param interval how often it runs
 */
public record HostVgpuConfig(boolean enabled, List<String> command, Duration interval) {

  public static final ConfigKey<Boolean> ENABLED = ConfigKeys.bool("host-vgpu.enabled", false,
      "Run the host vGPU input (nvidia-smi vgpu -q). Only useful on a hypervisor host.");
  public static final ConfigKey<List<String>> COMMAND = ConfigKeys.custom("host-vgpu.command", "command",
      "a command line, words separated by spaces", List.of("nvidia-smi", "vgpu", "-q"),
      "The command that prints nvidia-smi vgpu -q output, e.g. 'ssh esx01 nvidia-smi vgpu -q' from a jump host.",
      raw -> Arrays.asList(raw.trim().split("\\s+")));
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("host-vgpu.interval",
      Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofHours(1), "How often the host vGPU command runs.");

  public static final List<ConfigKey<?>> KEYS = List.of(ENABLED, COMMAND, INTERVAL);

  public static HostVgpuConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    HostVgpuConfig c = new HostVgpuConfig(r.get(ENABLED), r.get(COMMAND), r.get(INTERVAL));
    r.done();
    return c;
  }
}
