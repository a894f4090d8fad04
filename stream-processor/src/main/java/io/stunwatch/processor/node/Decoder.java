package io.stunwatch.processor.node;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topic;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
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
public final class Decoder<V> implements Processor<String, byte[], String, Object> {
  private final Topic<String, V> topic;
  private final Clock clock;
  private final String deadLetters;
  /** Each key this task has decoded, as the instance first seen: see {@link #canonical}. */
  private final Map<String, String> keys = new HashMap<>();
  private final int maxKeys;
  private ProcessorContext<String, Object> context;

  /**
   * More distinct keys than this in one task and {@link #keys} starts over: a task's keys are its VMs, and this bounds
   * what a producer keying by something else could make it hold.
   */
  static final int MAX_KEYS = 100_000;

  /**
   * @param deadLetters the name of the child that takes the dead letters
   */
  public Decoder(Topic<String, V> topic, Clock clock, String deadLetters) {
    this(topic, clock, deadLetters, MAX_KEYS);
  }

  /** With {@code maxKeys} distinct keys held at most (see {@link #canonical}). */
  public Decoder(Topic<String, V> topic, Clock clock, String deadLetters, int maxKeys) {
    this.topic = topic;
    this.clock = clock;
    this.deadLetters = deadLetters;
    this.maxKeys = maxKeys;
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
      context.forward(new Record<>(canonical(record.key()), v, record.timestamp(), record.headers()));
    }
  }

  /**
   * The instance of {@code key} this task saw first. Why: the key is a VM id, and a sample is looked up by it in a
   * dozen maps on its way (each processor's held state, each deferred store's pending writes); the source makes a new
   * string of it for every record, whose every lookup would then compare it byte by byte with the map's own
   * instance. One lookup here makes the others identity checks, with the hash cached.
   */
  String canonical(String key) {
    if (key == null) {
      return null;
    }
    String seen = keys.putIfAbsent(key, key);
    if (seen != null) {
      return seen;
    }
    if (keys.size() > maxKeys) {
      keys.clear();
      keys.put(key, key);
    }
    return key;
  }
}
