package io.stunwatch.collectors.worker;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.topic.Topic;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every input does with a sample or a parse error, live or replayed: count it, publish it, or log it
 * (rate-limited). Replay goes through here too, so it gives exactly what live collection would.
 */
public final class Inputs {

  private static final Logger LOG = LoggerFactory.getLogger(Inputs.class);

  private final WorkerIdentity identity;
  private final SampleSink sink;
  private final CollectorMetrics metrics;
  private final Clock clock;
  private final Map<CollectorInput, LogLimiter> errorLogs = new EnumMap<>(CollectorInput.class);
  /** The first problem since it was last taken: a replay names it in its summary. */
  private final AtomicReference<InputParseException> firstError = new AtomicReference<>();

  public Inputs(WorkerIdentity identity, SampleSink sink, CollectorMetrics metrics, Clock clock) {
    this.identity = identity;
    this.sink = sink;
    this.metrics = metrics;
    this.clock = clock;
    for (CollectorInput input : CollectorInput.values()) {
      errorLogs.put(input, new LogLimiter(10));
    }
  }

  public WorkerIdentity identity() {
    return identity;
  }

  public CollectorMetrics metrics() {
    return metrics;
  }

  public Clock clock() {
    return clock;
  }

  /** Counts and publishes one sample. */
  public <V> void sample(CollectorInput input, Topic<String, V> topic, String key, V value, Instant timestamp) {
    metrics.read(input, timestamp);
    sink.publish(input, topic, key, value, timestamp);
  }

  /** The first thing that did not parse since the last call, or null; clears it. */
  public InputParseException takeFirstError() {
    return firstError.getAndSet(null);
  }

  /** Counts and logs (at most 10 lines a minute per input) one thing that did not parse. */
  public void parseError(CollectorInput input, InputParseException e) {
    metrics.parseError(input);
    firstError.compareAndSet(null, e);
    String suffix = errorLogs.get(input).admit();
    if (suffix != null) {
      LOG.warn("{}: skipped: {}{}", input.tag(), e.getMessage(), suffix);
    }
  }
}
