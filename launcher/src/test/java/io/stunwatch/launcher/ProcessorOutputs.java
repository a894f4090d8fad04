package io.stunwatch.launcher;

import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.TopicContents;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** What a processor under test wrote, read as a site's readers read it (read_committed), and when it is done. */
final class ProcessorOutputs {

  static final List<Topic<String, ?>> OUTPUTS = List.of(Topics.MIGRATIONS, Topics.MIGRATION_ALERTS,
      Topics.MIGRATION_IMPACTS, Topics.STUN_MODEL, Topics.DEAD_LETTERS);

  private ProcessorOutputs() {
  }

  /**
   * Waits until the processor group {@code group} has caught up: its committed offsets reach the end of every input
   * and repartition topic, and the output topics stop growing for five seconds.
   *
   * @param failure a reason to fail at once (the processor exited), or null while it runs
   */
  static void awaitQuiet(String bootstrap, String group, Supplier<String> failure) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      long[] last = {-1};
      long[] stableSince = {System.nanoTime()};
      Await.until(Duration.ofMinutes(5), () -> {
        String failed = failure.get();
        if (failed != null) {
          throw new AssertionError(failed);
        }
        long out = outputEnd(admin);
        if (out != last[0] || lag(admin, group) > 0) {
          last[0] = out;
          stableSince[0] = System.nanoTime();
          return false;
        }
        return System.nanoTime() - stableSince[0] > Duration.ofSeconds(5).toNanos();
      }, "the processor to catch up", () -> "output end " + last[0]);
    }
  }

  private static long outputEnd(Admin admin) {
    try {
      Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
      for (Topic<String, ?> t : OUTPUTS) {
        admin.describeTopics(List.of(t.name())).allTopicNames().get().get(t.name()).partitions()
            .forEach(pi -> spec.put(new TopicPartition(t.name(), pi.partition()), OffsetSpec.latest()));
      }
      return admin.listOffsets(spec, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get().values()
          .stream().mapToLong(i -> i.offset()).sum();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Records of the group's input partitions not yet committed as processed (read_committed ends). A partition a
   * member is assigned and has never committed counts whole: a task that has not begun on it is behind, not done.
   */
  private static long lag(Admin admin, String group) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>(
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get());
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      Set<TopicPartition> assigned = new HashSet<>();
      d.members().forEach(m -> assigned.addAll(m.assignment().topicPartitions()));
      if (committed.isEmpty() || assigned.isEmpty()) {
        return Long.MAX_VALUE; // nothing processed yet, or a rebalance under way
      }
      Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
      committed.keySet().forEach(tp -> spec.put(tp, OffsetSpec.latest()));
      assigned.forEach(tp -> spec.put(tp, OffsetSpec.latest()));
      var ends = admin.listOffsets(spec, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
      long lag = 0;
      for (var e : ends.entrySet()) {
        OffsetAndMetadata done = committed.get(e.getKey());
        long end = e.getValue().offset();
        // A transaction marker follows the last record of a repartition topic: one offset of "lag" is none.
        lag += done == null ? end : Math.max(0, end - done.offset() - 1);
      }
      return lag;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Per output topic: each key's values in order, as JSON. */
  static Map<String, Map<String, List<String>>> outputs(String bootstrap) {
    Map<String, Map<String, List<String>>> all = new LinkedHashMap<>();
    for (Topic<String, ?> t : OUTPUTS) {
      all.put(t.name(), perKey(bootstrap, t));
    }
    return all;
  }

  private static <V> Map<String, List<String>> perKey(String bootstrap, Topic<String, V> t) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (TypedRecord<String, V> r : TopicContents.readAll(bootstrap, t)) {
      m.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(
          new String(t.valueSerde().serializer().serialize(t.name(), r.value()), StandardCharsets.UTF_8));
    }
    return new TreeMap<>(m);
  }
}
