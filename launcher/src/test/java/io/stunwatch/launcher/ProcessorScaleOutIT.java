package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processor instances with one application id share the partitions: each holds some VMs' migrations in its
 * stores, none holds another's, and together they produce every migration's impact exactly once.
 */
class ProcessorScaleOutIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @TempDir
  Path dir;

  @Test
  void twoInstancesShareTheVmsAndTogetherEmitEveryImpactOnce() throws Exception {
    // Event time starts now, so the wall-clock fallback never closes a migration before its after-samples arrive.
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(7, 12, 4, start, Duration.ofMinutes(12),
        Duration.ofSeconds(20)));
    Instant last = start.plus(Duration.ofMinutes(12)).minusSeconds(1);
    Set<String> settled = ScenarioReplay.settledBy(scenario, last);
    assertThat(settled).hasSizeGreaterThan(10);

    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ProcessorConfig base = ProcessorConfig.defaults();
    try (StreamsProcessor a = StreamsProcessor.start(base.withIdentity("scale-out", dir.resolve("a")), kafka,
        Clock.systemUTC());
        StreamsProcessor b = StreamsProcessor.start(base.withIdentity("scale-out", dir.resolve("b")), kafka,
            Clock.systemUTC())) {
      Await.until(Duration.ofSeconds(90), () -> running(a) && running(b) && !tasks(a).isEmpty()
          && !tasks(b).isEmpty(), "both instances running with tasks of their own",
          () -> "a=" + tasks(a) + " b=" + tasks(b));
      assertThat(tasks(a)).doesNotContainAnyElementsOf(tasks(b));

      ScenarioReplay.replay(KAFKA.bootstrapServers(), scenario);

      Await.until(Duration.ofSeconds(180), () -> impactIds().containsAll(settled),
          "an impact for every settled migration", () -> {
            Set<String> missing = new HashSet<>(settled);
            missing.removeAll(impactIds());
            return "missing " + scenario.plans().stream().filter(p -> missing.contains(p.migrationId())).toList()
                + "; migrations " + TopicContents.readAll(KAFKA.bootstrapServers(), Topics.MIGRATIONS).stream()
                .filter(r -> missing.contains(r.key())).toList();
          });

      List<TypedRecord<String, MigrationImpact>> impacts = TopicContents.readAll(KAFKA.bootstrapServers(),
          Topics.MIGRATION_IMPACTS);
      // A migration may have revisions (a vmware.log figure that came late), but never the same record twice:
      // that would be a record processed by both instances, or twice by one.
      assertThat(impacts.stream().map(r -> r.key() + " " + r.value()).toList())
          .as("no impact record twice").doesNotHaveDuplicates();
      Set<String> inA = migrationIds(a);
      Set<String> inB = migrationIds(b);
      assertThat(inA).as("instance a holds migrations").isNotEmpty();
      assertThat(inB).as("instance b holds migrations").isNotEmpty();
      assertThat(inA).as("no migration in both instances' stores").doesNotContainAnyElementsOf(inB);
      Set<String> both = new HashSet<>(inA);
      both.addAll(inB);
      assertThat(both).containsAll(settled);
    }
  }

  private static boolean running(StreamsProcessor p) {
    return p.streams().state() == KafkaStreams.State.RUNNING;
  }

  private static Set<String> tasks(StreamsProcessor p) {
    return p.streams().metadataForLocalThreads().stream().map(ThreadMetadata::activeTasks)
        .flatMap(Set::stream).map(t -> t.taskId().toString()).collect(Collectors.toSet());
  }

  private static Set<String> impactIds() {
    return TopicContents.readAll(KAFKA.bootstrapServers(), Topics.MIGRATION_IMPACTS).stream()
        .map(TypedRecord::key).collect(Collectors.toSet());
  }

  private static Set<String> migrationIds(StreamsProcessor p) {
    ReadOnlyKeyValueStore<String, Migration> store = p.streams().store(StoreQueryParameters.fromNameAndType(
        StoreNames.MIGRATIONS, QueryableStoreTypes.<String, Migration>keyValueStore()));
    Set<String> ids = new HashSet<>();
    try (KeyValueIterator<String, Migration> it = store.all()) {
      it.forEachRemaining(kv -> ids.add(kv.key));
    }
    return ids;
  }
}
