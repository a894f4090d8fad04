package io.stunwatch.launcher;

import io.stunwatch.api.ApiConfig;
import io.stunwatch.api.notify.WebhookConfig;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.collectors.vcenter.GuardApplyConfig;
import io.stunwatch.collectors.vcenter.VcenterConfig;
import io.stunwatch.collectors.hosts.HostsConfig;
import io.stunwatch.collectors.prometheus.ExporterConfig;
import io.stunwatch.collectors.worker.WorkerCollector;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Every configuration key of every component in this build: the source of {@code docs/configuration.md} and of the
 * unknown-key check. A component's keys are declared next to the config record that reads them and listed here.
 */
public final class ConfigCatalog {

  /** Every key, grouped by component, in documentation order. */
  public static final List<ConfigKey<?>> ALL = all();

  private ConfigCatalog() {
  }

  private static List<ConfigKey<?>> all() {
    List<ConfigKey<?>> keys = new ArrayList<>();
    keys.addAll(LoggingConfig.KEYS);
    keys.addAll(KafkaClientConfig.KEYS);
    keys.addAll(BrokerConfig.KEYS);
    keys.addAll(WorkerCollector.KEYS);
    keys.addAll(HostsConfig.KEYS);
    keys.addAll(ExporterConfig.KEYS);
    keys.addAll(VcenterConfig.KEYS);
    keys.addAll(GuardApplyConfig.KEYS);
    keys.addAll(ProcessorConfig.KEYS);
    keys.addAll(GuardConfig.KEYS);
    keys.addAll(ApiConfig.KEYS);
    keys.addAll(WebhookConfig.KEYS);
    long distinct = keys.stream().map(ConfigKey::name).distinct().count();
    if (distinct != keys.size()) {
      throw new IllegalStateException("a config key is declared twice");
    }
    return List.copyOf(keys);
  }
}
