package io.stunwatch.collectors.hosts;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stunwatch.metrics.HostFailure;
import io.stunwatch.metrics.HostState;
import io.stunwatch.metrics.Meters;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The hosts collector's own meters: hosts by state, and for each followed host its failures by reason and the age
 * of its newest reading. A host's series exist (at 0, or NaN for the age) from when it is followed, and go when it
 * is no longer followed.
 */
final class HostMetrics {

  private final MeterRegistry registry;
  private final Map<String, Map<HostFailure, Counter>> failures = new ConcurrentHashMap<>();
  private final Map<String, List<Meter>> meters = new ConcurrentHashMap<>();
  private final Counter listErrors;

  HostMetrics(MeterRegistry registry, Function<HostState, Long> hostsIn) {
    this.registry = registry;
    for (HostState state : HostState.values()) {
      Gauge.builder(Meters.HOSTS, () -> hostsIn.apply(state)).tag(Meters.TAG_STATE, state.tag())
          .description("Hosts followed, by where the collector stands with each").register(registry);
    }
    listErrors = Counter.builder(Meters.HOST_LIST_ERRORS)
        .description("Host-list entries skipped as bad, logged with file and line").register(registry);
  }

  /** Registers a followed host's series; {@code age} gives its newest reading's age in seconds, or NaN. */
  <T> void follow(String host, T session, ToDoubleFunction<T> age) {
    Map<HostFailure, Counter> byReason = new EnumMap<>(HostFailure.class);
    List<Meter> all = new ArrayList<>();
    for (HostFailure reason : HostFailure.values()) {
      Counter c = Counter.builder(Meters.HOST_FAILURES).tag(Meters.TAG_HOST, host).tag(Meters.TAG_REASON, reason.tag())
          .description("Streams lost or refused, by host and reason").register(registry);
      byReason.put(reason, c);
      all.add(c);
    }
    all.add(Gauge.builder(Meters.HOST_READING_AGE, session, age).tag(Meters.TAG_HOST, host).baseUnit("seconds")
        .description("Age of the host's newest reading").register(registry));
    failures.put(host, byReason);
    meters.put(host, all);
  }

  /** Removes a host's series. */
  void unfollow(String host) {
    failures.remove(host);
    List<Meter> all = meters.remove(host);
    if (all != null) {
      all.forEach(registry::remove);
    }
  }

  void failure(String host, HostFailure reason) {
    Map<HostFailure, Counter> byReason = failures.get(host);
    if (byReason != null) {
      byReason.get(reason).increment();
    }
  }

  long failureCount(String host, HostFailure reason) {
    Map<HostFailure, Counter> byReason = failures.get(host);
    return byReason == null ? 0 : (long) byReason.get(reason).count();
  }

  void listError() {
    listErrors.increment();
  }
}
