package io.stunwatch.collectors.vcenter;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.URL;
import java.time.Clock;
import io.stunwatch.model.GuardAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The vCenter collectors of one process: one {@link VcenterCollector} per URL of {@code vcenter.urls}, each with its
 * own login, trust, session, transactional producer and checkpoint. One vCenter down or refusing its login leaves
 * the others collecting.
 */
public final class VcenterCollectors implements AutoCloseable {

  private final List<VcenterCollector> collectors;
  private final CompletableFuture<String> fatal = new CompletableFuture<>();

  private VcenterCollectors(List<VcenterCollector> collectors) {
    this.collectors = collectors;
    collectors.forEach(c -> c.fatal().thenAccept(fatal::complete));
  }

  /** Starts collecting every vCenter of {@code config}. */
  public static VcenterCollectors start(VcenterConfig config, Map<String, Object> kafkaProperties, Clock clock,
      MeterRegistry registry) throws IOException {
    List<VcenterCollector> out = new ArrayList<>();
    for (URL url : config.urls()) {
      String password = config.passwordFor(url);
      VcenterConnector connector = new YavijavaVcenterConnector(url, config.usernameFor(url),
          password == null ? new char[0] : password.toCharArray(), config.trustFor(url));
      out.add(new VcenterCollector(connector, config, kafkaProperties, clock, registry));
    }
    VcenterCollectors all = new VcenterCollectors(List.copyOf(out));
    all.collectors.forEach(VcenterCollector::start);
    return all;
  }

  /**
   * Releases every DRS override the guard set in every vCenter of {@code config} ({@code stunwatch guard release
   * --all}); a collector of those vCenters that still runs is fenced and stops.
   *
   * @return the audit records, vCenter by vCenter
   */
  public static List<GuardAction> releaseAllGuards(VcenterConfig config, Map<String, Object> kafkaProperties,
      Clock clock) throws IOException {
    List<GuardAction> out = new ArrayList<>();
    for (URL url : config.urls()) {
      String password = config.passwordFor(url);
      VcenterConnector connector = new YavijavaVcenterConnector(url, config.usernameFor(url),
          password == null ? new char[0] : password.toCharArray(), config.trustFor(url));
      out.addAll(new VcenterCollector(connector, config, kafkaProperties, clock).releaseGuards());
    }
    return out;
  }

  /** The collectors, in the order of {@code vcenter.urls}. */
  public List<VcenterCollector> collectors() {
    return collectors;
  }

  /** Completes with the reason when any collector stops for good (see {@link VcenterCollector#fatal()}). */
  public CompletionStage<String> fatal() {
    return fatal;
  }

  @Override
  public void close() {
    collectors.forEach(VcenterCollector::close);
  }
}
