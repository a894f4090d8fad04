package io.stunwatch.testsupport;

import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/** What a topic holds now, for assertions: every committed record, read to the end offsets, undecodable = failure. */
public final class TopicContents {

  private TopicContents() {
  }

  /** Every committed record of {@code topic}, in partition order. */
  public static <K, V> List<TypedRecord<K, V>> readAll(String bootstrapServers, Topic<K, V> topic) {
    List<TypedRecord<K, V>> out = new ArrayList<>();
    try (TypedConsumer<K, V> c = TypedConsumer.create(topic, Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), (raw, e) -> {
          throw e;
        })) {
      c.assignAllFromBeginning(Duration.ofSeconds(10));
      var parts = List.copyOf(c.raw().assignment());
      var end = c.raw().endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (parts.stream().anyMatch(p -> c.raw().position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic.name() + " to its end within 10 s");
        }
        out.addAll(c.poll(Duration.ofMillis(100)));
      }
    }
    return out;
  }
}
