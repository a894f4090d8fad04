package io.stunwatch.metrics;

/**
 * Every meter name Stunwatch exposes, in one place: dashboards and alert rules query exactly these names (with
 * Prometheus' {@code _total}, {@code _seconds} suffixes and dots turned into underscores). Tag values are the
 * enums beside this class, so label cardinality stays bounded.
 */
public final class Meters {

  /** Tag: which collector input, values from {@link CollectorInput}. */
  public static final String TAG_INPUT = "input";
  /** Tag: why a sample was dropped, values from {@link DropReason}. */
  public static final String TAG_REASON = "reason";

  /** Counter: samples an input read and parsed. */
  public static final String COLLECTOR_SAMPLES_READ = "stunwatch.collector.samples.read";
  /** Counter: samples acknowledged by Kafka. */
  public static final String COLLECTOR_SAMPLES_SENT = "stunwatch.collector.samples.sent";
  /** Counter: samples given up on, by input and reason. Never silent: each kind is also logged once per minute. */
  public static final String COLLECTOR_SAMPLES_DROPPED = "stunwatch.collector.samples.dropped";
  /** Counter: lines or files an input could not parse. */
  public static final String COLLECTOR_PARSE_ERRORS = "stunwatch.collector.parse.errors";
  /** Counter: restarts of an input's child process (nvidia-smi). */
  public static final String COLLECTOR_CHILD_RESTARTS = "stunwatch.collector.child.restarts";
  /** Gauge, seconds: age of the newest sample an input produced; NaN before the first. */
  public static final String COLLECTOR_LAST_SAMPLE_AGE = "stunwatch.collector.last.sample.age";
  /** Gauge: samples waiting to be sent (queued in the collector or in flight in the producer). */
  public static final String COLLECTOR_BUFFERED = "stunwatch.collector.buffered";

  /** Tag: an API route's path template (never a raw path, so never an id). */
  public static final String TAG_ROUTE = "route";
  /** Tag: an HTTP status class, {@code 2xx}..{@code 5xx}. */
  public static final String TAG_STATUS = "status";

  /** Timer: API requests by route and status class. */
  public static final String API_REQUESTS = "stunwatch.api.requests";

  private Meters() {
  }
}
