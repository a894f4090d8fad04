package io.stunwatch.collectors.worker;

import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.topic.Topic;
import java.time.Instant;

/**
 * Where inputs put their samples. Implementations never block the caller: sampling must keep its pace while Kafka
 * is slow or away.
 */
public interface SampleSink {

  /**
   * Accepts one sample for publishing.
   *
   * @param input     the input it came from (for accounting)
   * @param topic     the catalog topic
   * @param key       Kafka key
   * @param value     the sample
   * @param timestamp event time, used as the record timestamp
   */
  <V> void publish(CollectorInput input, Topic<String, V> topic, String key, V value, Instant timestamp);
}
