package io.stunwatch.collectors.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import io.stunwatch.metrics.Meters;
import io.stunwatch.metrics.ScrapeFailure;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/** The collector's self-metrics, registered once per input so every series exists from the start (0, not absent). */
public final class CollectorMetrics {

  private final Map<CollectorInput, Counter> read = new EnumMap<>(CollectorInput.class);
  private final Map<CollectorInput, Counter> sent = new EnumMap<>(CollectorInput.class);
  private final Map<CollectorInput, Counter> parseErrors = new EnumMap<>(CollectorInput.class);
  private final Map<CollectorInput, Counter> restarts = new EnumMap<>(CollectorInput.class);
  private final Map<CollectorInput, Map<DropReason, Counter>> dropped = new EnumMap<>(CollectorInput.class);
  private final Map<CollectorInput, AtomicReference<Instant>> lastSample = new EnumMap<>(CollectorInput.class);
  private final MeterRegistry registry;
  private final Map<ScrapeFailure, Counter> scrapeFailures = new EnumMap<>(ScrapeFailure.class);

  public CollectorMetrics(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    for (CollectorInput input : CollectorInput.values()) {
      String tag = input.tag();
      read.put(input, Counter.builder(Meters.COLLECTOR_SAMPLES_READ).tag(Meters.TAG_INPUT, tag)
          .description("Samples read and parsed").register(registry));
      sent.put(input, Counter.builder(Meters.COLLECTOR_SAMPLES_SENT).tag(Meters.TAG_INPUT, tag)
          .description("Samples acknowledged by Kafka").register(registry));
      parseErrors.put(input, Counter.builder(Meters.COLLECTOR_PARSE_ERRORS).tag(Meters.TAG_INPUT, tag)
          .description("Lines or files that could not be parsed").register(registry));
      restarts.put(input, Counter.builder(Meters.COLLECTOR_CHILD_RESTARTS).tag(Meters.TAG_INPUT, tag)
          .description("Restarts of the input's child process").register(registry));
      Map<DropReason, Counter> byReason = new EnumMap<>(DropReason.class);
      for (DropReason reason : DropReason.values()) {
        byReason.put(reason, Counter.builder(Meters.COLLECTOR_SAMPLES_DROPPED).tag(Meters.TAG_INPUT, tag)
            .tag(Meters.TAG_REASON, reason.tag()).description("Samples given up on").register(registry));
      }
      dropped.put(input, byReason);
      AtomicReference<Instant> last = new AtomicReference<>();
      lastSample.put(input, last);
      Gauge.builder(Meters.COLLECTOR_LAST_SAMPLE_AGE, last,
              ref -> ref.get() == null ? Double.NaN : (clock.millis() - ref.get().toEpochMilli()) / 1000.0)
          .tag(Meters.TAG_INPUT, tag).baseUnit("seconds").description("Age of the newest sample")
          .register(registry);
    }
    for (ScrapeFailure reason : ScrapeFailure.values()) {
      scrapeFailures.put(reason, Counter.builder(Meters.COLLECTOR_SCRAPE_FAILURES).tag(Meters.TAG_REASON, reason.tag())
          .description("Exporter scrapes that gave no page").register(registry));
    }
  }

  /** A scrape of an exporter gave no page. */
  public void scrapeFailure(ScrapeFailure reason) {
    scrapeFailures.get(reason).increment();
  }

  public long scrapeFailureCount(ScrapeFailure reason) {
    return (long) scrapeFailures.get(reason).count();
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** A sample was read; {@code at} is its event time. */
  public void read(CollectorInput input, Instant at) {
    read.get(input).increment();
    lastSample.get(input).accumulateAndGet(at, (a, b) -> a == null || b.isAfter(a) ? b : a);
  }

  public void sent(CollectorInput input) {
    sent.get(input).increment();
  }

  public void parseError(CollectorInput input) {
    parseErrors.get(input).increment();
  }

  public void restart(CollectorInput input) {
    restarts.get(input).increment();
  }

  public void dropped(CollectorInput input, DropReason reason) {
    dropped.get(input).get(reason).increment();
  }

  public long readCount(CollectorInput input) {
    return (long) read.get(input).count();
  }

  public long sentCount(CollectorInput input) {
    return (long) sent.get(input).count();
  }

  public long parseErrorCount(CollectorInput input) {
    return (long) parseErrors.get(input).count();
  }

  public long restartCount(CollectorInput input) {
    return (long) restarts.get(input).count();
  }

  public long droppedCount(CollectorInput input, DropReason reason) {
    return (long) dropped.get(input).get(reason).count();
  }
}
