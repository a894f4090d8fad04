package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiConfig;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiStreamingSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The streaming nvidia-smi input publishing to a real broker that is stopped for 60 s mid-stream and restarted on
 * its data: every sample arrives once, typed, in order per VM.
 */
class WorkerDeliveryIT {

  private static final CollectorInput IN = CollectorInput.NVIDIA_SMI;
  private static final WorkerIdentity ID = new WorkerIdentity("0d1e2f3a-4b5c-6d7e-8f90-a1b2c3d4e5f6", "gpu-it");

  @TempDir
  Path dir;

  @Test
  void aSixtySecondBrokerOutageLosesNothingAndDuplicatesNothing() throws Exception {
    BrokerConfig brokerConfig = new BrokerConfig(dir.resolve("broker"), "localhost", Ports.reserve(), Ports.reserve(), 3,
        true);
    Path fake = dir.resolve("nvidia-smi");
    // Each line carries its sequence number as memory.used, so a gap or a duplicate shows.
    Files.writeString(fake, "#!/bin/bash\n"
        + "if [ \"$1\" = --help-query-gpu ]; then for f in timestamp index uuid name memory.used; do "
        + "printf '\"%s\"\\n\\n' $f; done; exit 0; fi\n"
        + "i=0; while true; do echo \"$(date -u '+%Y/%m/%d %H:%M:%S.%3N'), 0, GPU-it, GRID T4-16C, $i\"; "
        + "i=$((i+1)); sleep 0.05; done\n");
    Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));

    CollectorMetrics metrics = new CollectorMetrics(new SimpleMeterRegistry(), Clock.systemUTC());
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(brokerConfig);
    long read;
    DeliveryConfig delivery = new DeliveryConfig(Duration.ofMinutes(5), 100_000);
    // The sink's own producer settings, on a producer the test holds: if samples stay unacknowledged, the failure
    // shows the producer's view of them (this IT once ended with two in flight two minutes after the restart).
    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(KafkaSampleSink.producerProperties(delivery,
        Map.of("bootstrap.servers", broker.bootstrapServers())));
    try (KafkaSampleSink sink = new KafkaSampleSink(delivery, producer, metrics, Clock.systemUTC())) {
      NvidiaSmiStreamingSource source = new NvidiaSmiStreamingSource(
          new NvidiaSmiConfig(true, fake.toString(), Duration.ofMillis(50), Duration.ZERO, Duration.ofSeconds(5)),
          ZoneOffset.UTC, new Inputs(ID, sink, metrics, Clock.systemUTC()));
      source.start();
      Await.until(Duration.ofSeconds(30), () -> metrics.sentCount(IN) >= 50, "50 samples delivered before the outage",
          () -> metrics.sentCount(IN));

      broker.close();
      long readAtStop = metrics.readCount(IN);
      Thread.sleep(Duration.ofSeconds(60).toMillis()); // the outage itself: a fixed length is the point here
      assertThat(metrics.readCount(IN)).as("sampling went on while Kafka was away").isGreaterThan(readAtStop + 500);
      assertThat(sink.buffered()).as("samples of the outage are held, not dropped").isGreaterThan(500);

      broker = EmbeddedKafkaBroker.start(brokerConfig);
      long readAtRestart = metrics.readCount(IN);
      Await.until(Duration.ofSeconds(60), () -> metrics.readCount(IN) > readAtRestart + 50,
          "sampling after the restart", () -> metrics.readCount(IN));
      source.close();
      read = metrics.readCount(IN);
      Await.until(Duration.ofMinutes(2), () -> metrics.sentCount(IN) == read, "every sample acknowledged",
          () -> metrics.sentCount(IN) + " of " + read + ", buffered " + sink.buffered() + "; producer: "
              + producerState(producer));
    }
    try {
      List<Long> seqs = new ArrayList<>();
      try (TypedConsumer<String, GpuSample> consumer = TypedConsumer.create(Topics.GPU_SAMPLES, Map.of(
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), (raw, e) -> {
            throw e;
          })) {
        consumer.assignAllFromBeginning(Duration.ofSeconds(30));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seqs.size() < read && System.nanoTime() < deadline) {
          for (TypedRecord<String, GpuSample> r : consumer.poll(Duration.ofMillis(500))) {
            assertThat(r.key()).isEqualTo(ID.vmId());
            seqs.add(r.value().memoryUsedMiB());
          }
        }
        // a little longer: a duplicate would arrive after the expected count
        consumer.poll(Duration.ofSeconds(2)).forEach(r -> seqs.add(r.value().memoryUsedMiB()));
      }
      assertThat(seqs).as("every sample once, in order").hasSize((int) read);
      for (int i = 0; i < seqs.size(); i++) {
        assertThat(seqs.get(i)).isEqualTo(i);
      }
      for (DropReason r : DropReason.values()) {
        assertThat(metrics.droppedCount(IN, r)).as(r.tag()).isZero();
      }
      System.out.println("WorkerDeliveryIT: " + read + " samples, broker down 60 s, 0 lost, 0 duplicated");
    } finally {
      broker.close();
    }
  }

  /** The producer's metrics that say where an unacknowledged record is: queued, in flight, retried or failed. */
  private static String producerState(KafkaProducer<byte[], byte[]> producer) {
    Set<String> names = Set.of("record-queue-time-max", "requests-in-flight", "record-retry-total",
        "record-error-total", "buffer-available-bytes", "metadata-age", "request-latency-max", "connection-count");
    return producer.metrics().entrySet().stream()
        .filter(e -> e.getKey().group().equals("producer-metrics") && names.contains(e.getKey().name()))
        .map(e -> e.getKey().name() + "=" + e.getValue().metricValue()).sorted()
        .collect(Collectors.joining(", "));
  }

}
