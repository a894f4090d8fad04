package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topic;
import java.time.Clock;
import java.time.Instant;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;

/**
 * A source record decoded, or the dead letter it became. Sources are read as bytes and decoded by
 * {@link Decoder}, so a bad record turns into a dead letter in the same transaction as everything else, instead of
 * an exception that would stop the application.
 *
 * @param value      the decoded value, or null
 * @param deadLetter why it could not be decoded, or null
 */
record Decoded<V>(V value, DeadLetter deadLetter) {

  boolean ok() {
    return deadLetter == null;
  }

  /** Decodes the bytes of one catalog topic. */
  static final class Decoder<V> implements FixedKeyProcessor<String, byte[], Decoded<V>> {
    private final Topic<String, V> topic;
    private final Clock clock;
    private FixedKeyProcessorContext<String, Decoded<V>> context;

    Decoder(Topic<String, V> topic, Clock clock) {
      this.topic = topic;
      this.clock = clock;
    }

    @Override
    public void init(FixedKeyProcessorContext<String, Decoded<V>> context) {
      this.context = context;
    }

    @Override
    public void process(FixedKeyRecord<String, byte[]> record) {
      try {
        V v = topic.valueSerde().decode(record.value());
        if (v != null) {
          context.forward(record.withValue(new Decoded<>(v, null)));
        }
      } catch (SchemaException e) {
        var meta = context.recordMetadata();
        DeadLetter d = DeadLetter.of(topic.name(), meta.map(m -> m.partition()).orElse(-1),
            meta.map(m -> m.offset()).orElse(-1L), Instant.ofEpochMilli(record.timestamp()),
            record.key() == null ? null : topic.encodeKey(record.key()), record.value(),
            DeadLetter.Stage.DESERIALIZATION, "value: " + e.reason(), "stream-processor", clock.instant());
        context.forward(record.withValue(new Decoded<>(null, d)));
      }
    }
  }
}
