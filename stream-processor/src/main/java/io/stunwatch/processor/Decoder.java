package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topic;
import java.time.Clock;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Decodes the bytes of one catalog topic. Sources are read as bytes and decoded here, so a bad record turns into a
 * dead letter in the same transaction as everything else, instead of an exception that would stop the application.
 *
 * <p>A decoded value goes to every child. A dead letter, keyed by the topic's name, goes only to the child named
 * {@code deadLetters}, which must let nothing else through: every child sees the values, and it is one node a
 * record rather than the three (two filters and an unwrapping map) that splitting the two kinds in the DSL took.
 *
 * @param <V> the topic's value type
 */
final class Decoder<V> implements Processor<String, byte[], String, Object> {
  private final Topic<String, V> topic;
  private final Clock clock;
  private final String deadLetters;
  private ProcessorContext<String, Object> context;

  /**
   * @param deadLetters the name of the child that takes the dead letters
   */
  Decoder(Topic<String, V> topic, Clock clock, String deadLetters) {
    this.topic = topic;
    this.clock = clock;
    this.deadLetters = deadLetters;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, byte[]> record) {
    V v;
    try {
      v = topic.valueSerde().decode(record.value());
    } catch (SchemaException e) {
      var meta = context.recordMetadata();
      DeadLetter d = DeadLetter.of(topic.name(), meta.map(m -> m.partition()).orElse(-1),
          meta.map(m -> m.offset()).orElse(-1L), Instant.ofEpochMilli(record.timestamp()),
          record.key() == null ? null : topic.encodeKey(record.key()), record.value(),
          DeadLetter.Stage.DESERIALIZATION, "value: " + e.reason(), "stream-processor", clock.instant());
      context.forward(new Record<String, Object>(topic.name(), d, record.timestamp(), record.headers()),
          deadLetters);
      return;
    }
    if (v != null) {
      context.forward(record.withValue(v));
    }
  }
}
