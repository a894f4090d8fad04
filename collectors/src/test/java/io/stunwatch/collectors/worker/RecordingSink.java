package io.stunwatch.collectors.worker;

import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.topic.Topic;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** A sink that keeps what it is given, for unit tests (ITs use the real Kafka sink). */
public final class RecordingSink implements SampleSink {

  /** One published sample. */
  public record Published(CollectorInput input, String topic, String key, Object value, Instant timestamp) {
  }

  private final List<Published> published = new ArrayList<>();

  @Override
  public synchronized <V> void publish(CollectorInput input, Topic<String, V> topic, String key, V value,
      Instant timestamp) {
    published.add(new Published(input, topic.name(), key, value, timestamp));
    notifyAll();
  }

  public synchronized List<Published> published() {
    return List.copyOf(published);
  }

  @SuppressWarnings("unchecked")
  public synchronized <V> List<V> values(Class<V> type) {
    return (List<V>) published.stream().map(Published::value).filter(type::isInstance).toList();
  }
}
