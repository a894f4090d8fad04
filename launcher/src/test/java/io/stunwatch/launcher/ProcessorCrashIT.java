package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.TopicContents;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exactly once under crashes: a 100k-record replay of a simulated fleet is processed twice by the real
 * {@code stunwatch process}, once without interruption and once with the JVM killed (SIGKILL: no shutdown hook, no
 * flush, a transaction possibly open) five times at random points during the replay. The output topics, read with
 * read_committed, must hold the same records per key in the same order.
 */
class ProcessorCrashIT {

  private static final Logger LOG = LoggerFactory.getLogger(ProcessorCrashIT.class);

  @RegisterExtension
  static final KafkaBrokerExtension REFERENCE = KafkaBrokerExtension.perClass();
  @RegisterExtension
  static final KafkaBrokerExtension CRASHED = KafkaBrokerExtension.perClass();

  static final List<Topic<String, ?>> OUTPUTS = List.of(Topics.MIGRATIONS, Topics.MIGRATION_ALERTS,
      Topics.MIGRATION_IMPACTS, Topics.STUN_MODEL, Topics.DEAD_LETTERS);

  @TempDir
  Path dir;

  @Test
  void outputsAfterFiveKillsEqualThoseOfAnUninterruptedRun() throws Exception {
    // Event time starts now: the wall-clock fallback (settle window past event time) never fires during the test,
    // so only event time decides, as it must for two runs to be comparable.
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(42, 24, 6, start, Duration.ofMinutes(31),
        Duration.ofSeconds(15)));
    long records = scenario.count();
    assertThat(records).isBetween(95_000L, 110_000L);

    // 1. the uninterrupted run
    replay(REFERENCE.bootstrapServers(), scenario, 0, new AtomicLong());
    try (StunwatchProcess p = process(REFERENCE.bootstrapServers(), "reference")) {
      awaitQuiet(REFERENCE.bootstrapServers(), p);
    }
    Map<String, Map<String, List<String>>> expected = outputs(REFERENCE.bootstrapServers());
    assertThat(expected.get(Topics.MIGRATION_IMPACTS.name())).hasSizeGreaterThan(50);
    assertThat(expected.get(Topics.MIGRATION_ALERTS.name())).isNotEmpty();

    // 2. the same replay, with the processor killed five times while it runs
    AtomicLong sent = new AtomicLong();
    Thread producer = new Thread(() -> replay(CRASHED.bootstrapServers(), scenario, 2_500, sent), "replay");
    producer.start();
    Random random = new Random(20261121);
    int kills = 0;
    while (kills < 5) {
      try (StunwatchProcess p = process(CRASHED.bootstrapServers(), "crashed")) {
        p.awaitStdout("started", Duration.ofSeconds(60));
        long killAt = sent.get() + 4_000 + random.nextInt(12_000);
        Await.until(Duration.ofSeconds(120), () -> sent.get() >= killAt || !producer.isAlive(),
            "the replay to reach record " + killAt);
        p.kill();
        kills++;
        LOG.info("killed the processor ({} of 5) after {} of {} records were sent", kills, sent.get(), records);
      }
    }
    assertThat(producer.isAlive()).as("all five kills happened during the replay").isTrue();
    producer.join();
    try (StunwatchProcess p = process(CRASHED.bootstrapServers(), "crashed")) {
      awaitQuiet(CRASHED.bootstrapServers(), p);
    }
    Map<String, Map<String, List<String>>> actual = outputs(CRASHED.bootstrapServers());

    for (Topic<String, ?> t : OUTPUTS) {
      assertThat(actual.get(t.name())).as(t.name()).isEqualTo(expected.get(t.name()));
    }
  }

  private StunwatchProcess process(String bootstrap, String name) {
    return StunwatchProcess.start(Map.of(
        "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve(name).toString()), "process");
  }

  /** Sends the scenario; {@code perSecond} > 0 paces it, so the kills fall during the replay. */
  static void replay(String bootstrap, FleetScenario scenario, int perSecond, AtomicLong sent) {
    long begin = System.nanoTime();
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.LINGER_MS_CONFIG, 20))) {
      scenario.run(new FleetScenario.Sink() {
        @Override
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          p.send(topic, key, value, at);
          long n = sent.incrementAndGet();
          if (perSecond > 0 && n % 500 == 0) {
            p.flush();
            long ahead = n * 1_000_000_000L / perSecond - (System.nanoTime() - begin);
            if (ahead > 0) {
              java.util.concurrent.locks.LockSupport.parkNanos(ahead);
            }
          }
        }
      });
      p.flush();
    }
  }

  /**
   * Waits until the processor has caught up: its group's committed offsets reach the end of every input and
   * repartition topic, and the output topics stop growing.
   */
  private static void awaitQuiet(String bootstrap, StunwatchProcess p) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      long[] last = {-1};
      long[] stableSince = {System.nanoTime()};
      Await.until(Duration.ofMinutes(5), () -> {
        if (!p.isAlive()) {
          throw new AssertionError("the processor exited: " + p.stderr());
        }
        long out = outputEnd(admin);
        if (out != last[0] || lag(admin) > 0) {
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

  /** Records of the group's input partitions not yet committed as processed (read_committed ends). */
  private static long lag(Admin admin) {
    try {
      var committed = admin.listConsumerGroupOffsets("stunwatch-processor").partitionsToOffsetAndMetadata().get();
      if (committed.isEmpty()) {
        return Long.MAX_VALUE;
      }
      Map<TopicPartition, OffsetSpec> spec = new HashMap<>();
      committed.keySet().forEach(tp -> spec.put(tp, OffsetSpec.latest()));
      var ends = admin.listOffsets(spec, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
      long lag = 0;
      for (var e : committed.entrySet()) {
        // A transaction marker follows the last record of a repartition topic: one offset of "lag" is none.
        lag += Math.max(0, ends.get(e.getKey()).offset() - e.getValue().offset() - 1);
      }
      return lag;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Per output topic: each key's values in order, as JSON. */
  private static Map<String, Map<String, List<String>>> outputs(String bootstrap) {
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
          new String(t.valueSerde().serializer().serialize(t.name(), r.value()),
              java.nio.charset.StandardCharsets.UTF_8));
    }
    return new java.util.TreeMap<>(m);
  }
}
