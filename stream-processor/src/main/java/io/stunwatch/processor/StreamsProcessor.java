package io.stunwatch.processor;

import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.support.DeadLetterDeserializationExceptionHandler;
import io.stunwatch.processor.processors.LiveCommits;
import io.stunwatch.processor.state.RocksDbSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code stunwatch process}: runs {@link StunwatchTopology} with exactly-once processing. Instances with the same
 * {@link ProcessorConfig#applicationId()} share the partitions, so adding one scales out.
 */
public final class StreamsProcessor implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StreamsProcessor.class);

  private final KafkaStreams streams;
  private final RestoreCounts restores;

  private StreamsProcessor(KafkaStreams streams, RestoreCounts restores) {
    this.streams = streams;
    this.restores = restores;
  }

  /** The Streams producer's back-off before it retries a request the broker turned away. */
  static final int RETRY_BACKOFF_MS = 20;

  /** The Streams producer's {@code max.in.flight.requests.per.connection}: see {@link #properties}. */
  static final int MAX_IN_FLIGHT_REQUESTS = 1;

  /** The Streams producer's {@code max.request.size}: see {@link #properties}. */
  static final int MAX_REQUEST_BYTES = 8 * 1024 * 1024;

  /** The Streams producer's batch size, per partition: a few dozen partitions' batches fit its 32 MB buffer. */
  static final int BATCH_BYTES = 256 * 1024;

  /**
   * {@code index.interval.bytes} of the internal topics Streams creates for this application (changelogs and
   * repartition topics): how many bytes the broker appends to a partition between two entries of its offset and time
   * indexes. The broker's default is 4 KiB.
   */
  static final int INTERNAL_TOPIC_INDEX_INTERVAL_BYTES = 1024 * 1024;

  /**
   * How much longer than its store a window store's changelog keeps records, and how long a segment of an internal
   * topic stays the active one (which retention and compaction leave alone).
   */
  static final Duration CHANGELOG_SLACK = Duration.ofMinutes(10);

  /**
   * The main consumer's {@code max.partition.fetch.bytes}: a fetch of every partition of a stream thread's tasks
   * then holds fewer records than {@link #MAIN_MAX_POLL_RECORDS}, so one poll hands it all to the thread.
   */
  static final int MAIN_PARTITION_FETCH_BYTES = 64 * 1024;

  /**
   * The main consumer's {@code heartbeat.interval.ms}: a member learns that its group is rebalancing at its next
   * heartbeat, and the members that rejoined first wait for it, their tasks stopped.
   */
  static final int MAIN_HEARTBEAT_INTERVAL_MS = 500;

  /** Kafka Streams' own {@code transaction.timeout.ms} under exactly-once. */
  static final int STREAMS_TRANSACTION_TIMEOUT_MS = 10_000;

  /**
   * The global and restore consumers' {@code fetch.max.wait.ms}, where Kafka's default is 500 ms: how long the broker
   * holds a fetch at a partition's end. A restore reads a global store's partitions one after the other; after the
   * poll that reaches one's end the consumer has already sent the next fetch, at that end, and the next partition's
   * first fetch waits until the broker answers it. At Kafka's default a restart spent 500 ms on every partition after
   * a non-empty one: 5.5 s of the 6 s the inventory and stun-model stores took to read back at 10,000 VMs, with 6
   * partitions a topic. Idle, each consumer sends a fetch this often instead of twice a second.
   */
  static final int RESTORE_FETCH_MAX_WAIT_MS = 50;

  /** The main consumer's {@code max.poll.records}: more than a whole fetch holds (see above). */
  static final int MAIN_MAX_POLL_RECORDS = 20_000;

  /** The Streams settings: exactly_once_v2, lz4 on the producer (26-49 % more throughput here, see NOTES). */
  public static Properties properties(ProcessorConfig config, KafkaClientConfig kafka) {
    Properties p = new Properties();
    p.putAll(kafka.clientProperties());
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toAbsolutePath().toString());
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, config.threads());
    // Under exactly-once a store's writes since the last commit stay out of the store itself (KIP-892), so a task
    // that was not closed cleanly (kill -9, an OOM, a fenced producer) keeps its local stores: at the next start
    // Streams restores only what came after their last commit, rather than wiping them and every changelog whole.
    p.put(StreamsConfig.TRANSACTIONAL_STATE_STORES_CONFIG, true);
    p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, config.standbyReplicas());
    p.put(StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG), "lz4");
    // A transaction's first writes often reach the broker while the last one's commit markers are still being written
    // (Kafka 4's transactions, KIP-890), and are turned away as CONCURRENT_TRANSACTIONS; at the default back-off of
    // 100 ms the commit that flushes them then waits most of that; 20 ms is the back-off the Java producer gives this
    // case without KIP-890 (KAFKA-5477).
    p.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), RETRY_BACKOFF_MS);
    // One request in flight per broker. The broker checks a transaction's first write to a partition with the
    // coordinator (KIP-890), and while the last commit's markers are still being written it turns that write away. A
    // second batch for the same partition, in flight behind the first, could reach the broker after the markers were
    // done, pass the check, and find the partition expecting sequence 0: the broker logs that append as an ERROR
    // (OutOfOrderSequenceException "... with no existing state", KAFKA-18202) and the producer sends both again. One
    // request at a time lets the second batch leave only once the first is in. Requests of up to 8 MiB carry a
    // commit's batches for every partition in one or two requests rather than eight of Kafka's default 1 MiB, which
    // more than pays for the lost pipelining (docs/performance.md). A batch stays at most BATCH_BYTES unless a single
    // record is larger, so the broker's own per-batch limit is unchanged.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION), MAX_IN_FLIGHT_REQUESTS);
    p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), MAX_REQUEST_BYTES);
    // Batches that a commit interval's output does not fill, so that they wait for the commit's flush (Streams' linger
    // is as long as its commit interval) rather than race the last commit's markers: an impact alone (about 100 KB)
    // filled a default 16 KB batch and was sent at once. Records become visible at the commit all the same.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), BATCH_BYTES);
    // A commit ends with a marker on every partition it wrote: in a catch-up, most partitions of twenty changelog and
    // repartition topics. Appending a marker also appends an entry to the partition's offset and time indexes when
    // 4 KiB came since the last one, which after any commit of this topology is nearly always. The indexes are
    // memory-mapped files, and each of those writes can stall on a page fault: on the benchmark's VM disk the broker
    // took 47-59 ms to write a commit's markers, during which the next transaction's writes were turned away and
    // retried, against 2-3 ms with this interval (docs/performance.md). These topics are read only from a position
    // onwards (a restore from its checkpoint, the main consumer from its offset), so a sparser index costs a fetch
    // at most a scan over 1 MiB of batch headers. Streams applies it when it creates a topic; an existing one keeps
    // its own (docs/upgrading.md).
    p.put(StreamsConfig.topicPrefix(TopicConfig.INDEX_INTERVAL_BYTES_CONFIG), INTERNAL_TOPIC_INDEX_INTERVAL_BYTES);
    // A restore reads a changelog from the store's last checkpoint, and a new instance, a lost state directory or
    // a moved task without a standby reads it whole. A window store's changelog keeps the store's retention plus
    // Streams' extra, a day by default: for the per-second history (an hour, rewritten block by block at every
    // commit) that would be 25 hours of blocks to read back. And the newest segment of a topic is neither deleted nor compacted before it rolls, after a week
    // or 1 GiB by default: segments of ten minutes let retention and compaction keep each changelog near what its
    // store holds. Streams applies both when it creates a topic; an existing one keeps its own (docs/upgrading.md).
    p.put(StreamsConfig.WINDOW_STORE_CHANGE_LOG_ADDITIONAL_RETENTION_MS_CONFIG, CHANGELOG_SLACK.toMillis());
    p.put(StreamsConfig.topicPrefix(TopicConfig.SEGMENT_MS_CONFIG), CHANGELOG_SLACK.toMillis());
    // The consumer sends no fetch to a broker while an unpaused partition led by it has records the consumer holds
    // but has not handed over yet (at Kafka's defaults, 1 MiB a partition fetched and 1,000 records a poll handed
    // over), and a task waits while one of its partitions is empty on this side but not on the broker: in a catch-up
    // a stream thread then sat in poll, its CPU idle, for a fetch it could not send. With fetches smaller than one
    // poll, each poll empties the consumer's buffer and the next fetch goes out at once (docs/performance.md).
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig
        .MAX_PARTITION_FETCH_BYTES_CONFIG), MAIN_PARTITION_FETCH_BYTES);
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG),
        MAIN_MAX_POLL_RECORDS);
    // Fewer, larger transactions in a catch-up; what a live alert waits on is committed at once (LiveCommits).
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, config.commitInterval().toMillis());
    // Streams refuses a commit interval longer than the transaction timeout (its own default, 10 s, under
    // exactly-once): a transaction opened just after a commit must not be aborted before the next one.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG),
        (int) Math.max(STREAMS_TRANSACTION_TIMEOUT_MS, 2 * config.commitInterval().toMillis()));
    // A member learns of a rebalance at its next heartbeat (Kafka's default: every 3 s), and the members that rejoined
    // first wait for it with their tasks stopped. On a first start the group leader rejoins at once, as creating the
    // internal topics changed the metadata it assigned from, and its stream thread stood still for 2.3-2.8 s while
    // the other one worked: every second pass of the benchmark, a fresh application each, timed one thread alone.
    // Scaling out (a new instance or thread) waits the same way. Two small requests a second a thread cost nothing.
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig
        .HEARTBEAT_INTERVAL_MS_CONFIG), MAIN_HEARTBEAT_INTERVAL_MS);
    p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG),
        (int) config.sessionTimeout().toMillis());
    p.put(StreamsConfig.globalConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), RESTORE_FETCH_MAX_WAIT_MS);
    p.put(StreamsConfig.restoreConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), RESTORE_FETCH_MAX_WAIT_MS);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, config.cacheMib() * 1024L * 1024L);
    // Each new window segment is a RocksDB open on the stream thread; see RocksDbSettings for what that cost.
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, RocksDbSettings.class);
    if (!config.jmxMetrics()) {
      // Kafka's default reporter; the meters stay in the clients' registries, which /metrics reads.
      p.put(StreamsConfig.METRIC_REPORTER_CLASSES_CONFIG, "");
    }
    // A value that does not decode, and a processor's failure, become dead letters and processing goes on.
    StunwatchTopology.errorHandling(p, Clock.systemUTC());
    // The global stores (inventory, stun model) too: a record their processors fail on becomes a dead letter, as
    // anywhere else, instead of stopping the global thread and with it the whole instance. The handler writes with
    // a producer of its own, so it needs nothing of the global thread's.
    p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG, true);
    // Streams 4.4 builds another StreamsConfig for its partition assignor from the main consumer's settings only,
    // and warns at every start that the setting is off unless it is among them too.
    p.put(StreamsConfig.mainConsumerPrefix(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG), true);
    if (!config.instanceId().isBlank()) {
      // Streams appends each thread's index to it.
      p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG),
          config.instanceId());
    }
    return p;
  }

  /** Starts processing; returns at once (see {@link #awaitRunning}). */
  public static StreamsProcessor start(ProcessorConfig config, KafkaClientConfig kafka, Clock clock) {
    return start(config, kafka, clock, null);
  }

  /**
   * Starts processing with {@code applicationServer} ({@code host:port}) advertised to the other instances, so
   * that their interactive queries can find this one's stores.
   */
  public static StreamsProcessor start(ProcessorConfig config, KafkaClientConfig kafka, Clock clock,
      String applicationServer) {
    return start(properties(config, kafka), config, clock, applicationServer);
  }

  /**
   * Starts processing with {@code props} as the Streams settings: {@link #properties} with a benchmark's
   * experimental settings over them. The processor itself never runs with anything but {@link #properties}.
   */
  public static StreamsProcessor start(Properties props, ProcessorConfig config, Clock clock,
      String applicationServer) {
    if (applicationServer != null) {
      props.put(StreamsConfig.APPLICATION_SERVER_CONFIG, applicationServer);
    }
    props.put(DeadLetterDeserializationExceptionHandler.CLOCK_CONFIG, clock);
    KafkaStreams streams = new KafkaStreams(StunwatchTopology.build(config, clock), props);
    streams.setUncaughtExceptionHandler(e -> {
      LOG.error("Stream thread failed; replacing it", e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    StartupTimeline timeline = new StartupTimeline();
    streams.setStateListener((now, before) -> {
      LOG.info("Stream processor {} -> {}", before, now);
      timeline.stateChanged(now);
    });
    RestoreCounts restores = new RestoreCounts(timeline);
    streams.setGlobalStateRestoreListener(restores);
    streams.setStandbyUpdateListener(restores);
    timeline.processorStarting();
    streams.start();
    return new StreamsProcessor(streams, restores);
  }

  /** Waits until the processor is RUNNING. */
  public boolean awaitRunning(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      if (System.nanoTime() > deadline || streams.state() == KafkaStreams.State.ERROR) {
        return false;
      }
      Thread.sleep(50);
    }
    return true;
  }

  /** The running application, for interactive queries and metrics. */
  public KafkaStreams streams() {
    return streams;
  }

  /** The changelog records this instance has read back into its stores since it started. */
  public RestoreCounts restores() {
    return restores;
  }

  @Override
  public void close() {
    streams.close(Duration.ofSeconds(30));
  }
}
