package io.stunwatch.processor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.state.RocksDbSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class StreamsProcessorTest {

  private static Properties properties(Map<String, String> settings) {
    return StreamsProcessor.properties(ProcessorConfig.from(ConfigSource.of(settings)),
        new KafkaClientConfig("localhost:9092"));
  }

  @Test
  void processesExactlyOnceWithLz4AndNoJmxReporterByDefault() {
    Properties p = properties(Map.of());
    assertThat(p.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
    assertThat(p.get(StreamsConfig.producerPrefix("compression.type"))).isEqualTo("lz4");
    assertThat(p.get(StreamsConfig.METRIC_REPORTER_CLASSES_CONFIG)).isEqualTo("");
    // The empty list must be what Streams then runs with: no reporter at all, not Kafka's default.
    assertThat(new StreamsConfig(p).getList(StreamsConfig.METRIC_REPORTER_CLASSES_CONFIG)).isEmpty();
  }

  @Test
  void aRecordTheGlobalStoresFailOnIsADeadLetterAsAnywhereElse() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    assertThat(c.getClass(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG).getSimpleName())
        .isEqualTo("DeadLetterProcessingExceptionHandler");
    assertThat(c.getBoolean(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG)).isTrue();
    // the partition assignor's own copy of the settings, made from the main consumer's, says so too
    assertThat(c.getMainConsumerConfigs("g", "c", 0))
        .containsEntry(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
  }

  /**
   * A crashed instance keeps its stores: under exactly-once, writes since the last commit stay out of them, so Streams
   * restores only what came after that commit rather than wiping the stores and reading every changelog whole.
   */
  @Test
  void storesAreTransactionalSoACrashKeepsThemAndStandbysAreTheOperatorsChoice() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    assertThat(c.getBoolean(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG)).isTrue();
    assertThat(c.getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isZero();
    assertThat(new StreamsConfig(properties(Map.of("process.standby-replicas", "1")))
        .getInt(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG)).isEqualTo(1);
    assertThatThrownBy(() -> properties(Map.of("process.standby-replicas", "-1")))
        .hasMessageContaining("process.standby-replicas");
  }

  /**
   * A batch in flight behind one that the broker turned away (the last commit's markers still being written) could
   * be appended out of sequence, which the broker logs as an ERROR. Streams must take the setting
   * under exactly-once, not override it.
   */
  @Test
  void theProducerSendsOneRequestAtATimeSoNoBatchOvertakesOneTurnedAway() {
    Map<String, Object> producer = new StreamsConfig(properties(Map.of())).getProducerConfigs("stunwatch-producer");
    assertThat(producer.get(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)).isEqualTo(1);
    // and a commit's batches leave in few requests, each still small beside the broker's 100 MiB request limit
    assertThat((Integer) producer.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)).isGreaterThan(1024 * 1024)
        .isLessThanOrEqualTo(16 * 1024 * 1024);
  }

  /**
   * A restore reads a changelog whole. A window store's changelog keeps the store's retention plus Streams' extra
   * (a day by default), and its newest segment is neither deleted nor compacted until it rolls (a week or 1 GiB by
   * default): the per-second history, an hour of it, had a changelog of up to a day and more to restore.
   */
  @Test
  void changelogsKeepLittleMoreThanTheirStoresHoldSoThatARestoreReadsLittleMore() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    // the ten-minute segments are held with the other topic settings below
    assertThat(c.getLong(StreamsConfig.WINDOW_STORE_CHANGE_LOG_ADDITIONAL_RETENTION_MS_CONFIG))
        .isLessThanOrEqualTo(Duration.ofMinutes(10).toMillis());
  }

  @Test
  void everyStoreGetsTheApplicationsRocksDbSettings() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    assertThat(c.getClass(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)).isEqualTo(RocksDbSettings.class);
  }

  @Test
  void jmxMetricsOnKeepsKafkasDefaultReporter() {
    Properties p = properties(Map.of("process.jmx-metrics", "true"));
    assertThat(p).doesNotContainKey(StreamsConfig.METRIC_REPORTER_CLASSES_CONFIG);
    assertThat(new StreamsConfig(p).getList(StreamsConfig.METRIC_REPORTER_CLASSES_CONFIG))
        .containsExactly("org.apache.kafka.common.metrics.JmxReporter");
  }

  @Test
  void theInternalTopicsStreamsCreatesGetASparseIndexTenMinuteSegmentsAndNoOtherTopicConfig() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    // Streams hands every "topic."-prefixed setting to the changelog and repartition topics it creates, and only to
    // them: the catalog's topics are created by the platform with their own settings.
    assertThat(c.originalsWithPrefix(StreamsConfig.TOPIC_PREFIX)).containsOnly(
        Map.entry("index.interval.bytes", 1024 * 1024), Map.entry("segment.ms", 600_000L));
  }

  @Test
  void theMainConsumerFetchesLessThanOnePollHandsOverAndTheOtherConsumersKeepKafkasDefaults() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    Map<String, Object> main = c.getMainConsumerConfigs("g", "c", 0);
    assertThat(main).containsEntry("max.partition.fetch.bytes", 64 * 1024).containsEntry("max.poll.records", 20_000)
        .containsEntry("heartbeat.interval.ms", 500);
    Map<String, Object> restore = c.getRestoreConsumerConfigs("c");
    assertThat(restore.get("max.partition.fetch.bytes")).as("a restore reads a changelog in bulk").isNull();
    assertThat(c.getGlobalConsumerConfigs("c").get("max.partition.fetch.bytes")).isNull();
  }

  /**
   * A restore reads the global stores' partitions one after the other, and the first fetch of each waited for the
   * one already sent at the end of the last: 500 ms a partition at Kafka's default, 5.5 s of a restart.
   */
  @Test
  void theGlobalAndRestoreConsumersWaitLittleAtAPartitionsEndAndTheMainOneKeepsKafkasWait() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    assertThat(c.getGlobalConsumerConfigs("c")).containsEntry("fetch.max.wait.ms", 50);
    assertThat(c.getRestoreConsumerConfigs("c")).containsEntry("fetch.max.wait.ms", 50);
    assertThat(c.getMainConsumerConfigs("g", "c", 0).get("fetch.max.wait.ms")).isNull();
  }

  @Test
  void theCommitIntervalIsTheConfiguredOneAndALongOneStillFitsInATransaction() {
    StreamsConfig c = new StreamsConfig(properties(Map.of()));
    assertThat(c.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(1000L);
    // Streams refuses a commit interval longer than the producer's transaction timeout (10 s under exactly-once).
    Properties longer = properties(Map.of("process.commit-interval", "45s"));
    StreamsConfig l = new StreamsConfig(longer);
    assertThat(l.getLong(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo(45_000L);
    assertThat(l.getProducerConfigs("c").get("transaction.timeout.ms")).isEqualTo(90_000);
    assertThat(new StreamsConfig(properties(Map.of("process.commit-interval", "2s"))).getProducerConfigs("c")
        .get("transaction.timeout.ms")).as("Streams' own default while it covers two intervals").isEqualTo(10_000);
  }

  @Test
  void thePerSecondHistoryIsOnTheHeapByDefaultInRocksDbWhenSetAndAnyOtherPlaceIsRefusedByName() {
    assertThat(ProcessorConfig.from(ConfigSource.of(Map.of())).sampleStore())
        .isEqualTo(ProcessorConfig.SampleStore.MEMORY);
    assertThat(ProcessorConfig.from(ConfigSource.of(Map.of("process.sample-store", "rocksdb"))).sampleStore())
        .isEqualTo(ProcessorConfig.SampleStore.ROCKSDB);
    assertThatThrownBy(() -> ProcessorConfig.from(ConfigSource.of(Map.of("process.sample-store", "disk"))))
        .hasMessageContaining("process.sample-store").hasMessageContaining("one of memory, rocksdb");
  }
}
