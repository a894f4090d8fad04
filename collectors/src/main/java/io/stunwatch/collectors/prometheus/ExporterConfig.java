package io.stunwatch.collectors.prometheus;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of {@code stunwatch collect prometheus}.
 *
 * @param targets       the exporters to scrape
 * @param interval      how often each is scraped
 * @param timeout       how long a scrape may take, connection included
 * @param vmLabel       the label that names the VM (UUID or name), or null
 * @param hostnameLabel the label holding the guest's host name
 * @param metricsPort   port of the collector's own /metrics page; 0 turns it off
 * @param metricsHost   interface of that page
 */
public record ExporterConfig(List<ScrapeTarget> targets, Duration interval, Duration timeout, String vmLabel,
    String hostnameLabel, int metricsPort, String metricsHost) {

  public static final ConfigKey<List<ScrapeTarget>> TARGETS = ConfigKeys.custom("prometheus.targets", "targets",
      "comma-separated URL or VM=URL", List.of(),
      "The exporters to scrape, e.g. http://trainer-3:9400/metrics (dcgm-exporter) or "
          + "train-01=http://10.0.0.5:9835/metrics (nvidia_gpu_exporter, mapped to the VM named train-01; a VM's "
          + "config.uuid works too).", ExporterConfig::targets);
  public static final ConfigKey<Duration> INTERVAL = ConfigKeys.duration("prometheus.interval",
      Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofMinutes(10),
      "How often each exporter is scraped. An impact has a point per reading: 5 s keeps its timeline useful.");
  public static final ConfigKey<Duration> TIMEOUT = ConfigKeys.duration("prometheus.timeout",
      Duration.ofSeconds(4), Duration.ofMillis(100), Duration.ofMinutes(1),
      "How long one scrape may take, connecting included; a slower one counts as a timeout.");
  public static final ConfigKey<String> VM_LABEL = ConfigKeys.optionalString("prometheus.vm-label",
      "A label whose value names the VM: its config.uuid, or its name in vCenter (set by a relabeling or the "
          + "exporter's own configuration).");
  public static final ConfigKey<String> HOSTNAME_LABEL = ConfigKeys.string("prometheus.hostname-label", "Hostname",
      "The label holding the guest's host name (dcgm-exporter's Hostname), matched to guest.hostName in the "
          + "inventory; without it, the host of the instance label or of the target's URL.");
  public static final ConfigKey<Integer> METRICS_PORT = ConfigKeys.port("prometheus.metrics-port", 0,
      "Port of the collector's Prometheus /metrics page; 0 turns it off.");
  public static final ConfigKey<String> METRICS_HOST = ConfigKeys.string("prometheus.metrics-host", "localhost",
      "Interface of the /metrics page. Loopback by default; 0.0.0.0 lets a remote Prometheus scrape it.");

  public static final List<ConfigKey<?>> KEYS = List.of(TARGETS, INTERVAL, TIMEOUT, VM_LABEL, HOSTNAME_LABEL,
      METRICS_PORT, METRICS_HOST);

  public ExporterConfig {
    targets = List.copyOf(targets);
  }

  public static ExporterConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    ExporterConfig c = new ExporterConfig(r.get(TARGETS), r.get(INTERVAL), r.get(TIMEOUT), r.get(VM_LABEL),
        r.get(HOSTNAME_LABEL), r.get(METRICS_PORT), r.get(METRICS_HOST));
    r.done();
    return c;
  }

  /** The mapping these settings give. */
  public ExporterMapping mapping() {
    return new ExporterMapping(vmLabel, hostnameLabel);
  }

  private static List<ScrapeTarget> targets(String raw) {
    List<ScrapeTarget> out = new ArrayList<>();
    for (String t : raw.split(",")) {
      if (!t.isBlank()) {
        out.add(ScrapeTarget.parse(t));
      }
    }
    return out;
  }
}
