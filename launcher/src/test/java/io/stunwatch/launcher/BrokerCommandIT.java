package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.RecordDecodeException;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Kcat;
import io.stunwatch.testsupport.RealPeers;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code stunwatch broker} command, exercised with the real kcat: what an operator does on day one.
 */
class BrokerCommandIT {

  private static final Duration READY = Duration.ofSeconds(60);
  private static final Duration KCAT = Duration.ofSeconds(30);

  @TempDir
  static Path dataDir;

  static StunwatchProcess broker;
  static String bootstrap;
  static long readyMillis;

  @BeforeAll
  static void startBroker() {
    RealPeers.kcat(); // skip (or fail when strict) before starting anything
    long t0 = System.nanoTime();
    broker = StunwatchProcess.start("broker", "--data-dir", dataDir.toString(), "--port", "0",
        "--controller-port", "0");
    bootstrap = broker.awaitStdout("^" + BrokerCommand.READY_LINE + "(\\S+)$", READY).group(1);
    readyMillis = (System.nanoTime() - t0) / 1_000_000;
    System.out.println("stunwatch broker: process start to ready line " + readyMillis + " ms");
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void kcatListsTheBrokerAndEveryStunwatchTopic() {
    String metadata = Kcat.against(bootstrap).run(null, KCAT, "-L").assertOk().stdoutText();
    assertThat(metadata).contains("1 brokers:").contains("broker 1 at " + bootstrap);
    for (Topic<?, ?> t : Topics.ALL) {
      assertThat(metadata).contains("topic \"" + t.name() + "\" with 3 partitions");
    }
  }

  @Test
  void gpuSampleProducedByKcatIsReadBackTypedFromTheKeysPartition() {
    String vm = "11111111-2222-3333-4444-555555555555";
    String json = "{\"v\":1,\"vmId\":\"" + vm + "\",\"hostname\":\"gpu-vm-07\",\"timestamp\":\"2026-11-21T12:02:20.123Z\","
        + "\"gpuIndex\":0,\"name\":\"GRID T4-16C\",\"utilizationGpuPct\":88,\"memoryUsedMiB\":15360,"
        + "\"memoryTotalMiB\":16384}";
    // murmur2_random: the Java client's partitioner, so kcat and Java agree where a VM's records go
    Kcat.against(bootstrap).run((vm + "\t" + json + "\n").getBytes(StandardCharsets.UTF_8), KCAT,
        "-P", "-t", Topics.GPU_SAMPLES.name(), "-K", "\t", "-X", "topic.partitioner=murmur2_random").assertOk();

    TypedRecord<String, GpuSample> got = readUntil(Topics.GPU_SAMPLES, r -> vm.equals(r.key()));

    assertThat(got.partition()).isEqualTo(
        Utils.toPositive(Utils.murmur2(vm.getBytes(StandardCharsets.UTF_8))) % 3);
    GpuSample s = got.value();
    assertThat(s.vmId()).isEqualTo(vm);
    assertThat(s.timestamp()).isEqualTo(Instant.parse("2026-11-21T12:02:20.123Z"));
    assertThat(s.utilizationGpuPct()).isEqualTo(88.0);
    assertThat(s.memoryUsedMiB()).isEqualTo(15360L);
    assertThat(s.powerDrawW()).as("absent in the JSON: unknown, not 0").isNull();
  }

  @Test
  void gpuSampleProducedTypedIsReadByKcatAsVersionedJson() throws Exception {
    String vm = "66666666-7777-8888-9999-000000000000";
    GpuSample sample = new GpuSample(vm, "gpu-vm-08", Instant.parse("2026-11-21T12:05:00Z"), 1, "GPU-x",
        "GRID T4-16C", "00000000:03:00.0", 42.5, 7.0, 2048L, 16384L, null, null, 1590L, "P0", null);
    try (TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      p.send(Topics.GPU_SAMPLES, vm, sample, sample.timestamp()).get();
    }

    String out = Kcat.against(bootstrap).run(null, KCAT, "-C", "-t", Topics.GPU_SAMPLES.name(), "-o", "beginning",
        "-e", "-q", "-f", "%k\t%T\t%s\n").assertOk().stdoutText();

    String line = out.lines().filter(l -> l.startsWith(vm + "\t")).findFirst().orElseThrow(
        () -> new AssertionError("kcat did not read the record; it printed:\n" + out));
    String[] parts = line.split("\t", 3);
    assertThat(Long.parseLong(parts[1])).as("record timestamp is event time")
        .isEqualTo(sample.timestamp().toEpochMilli());
    JsonNode json = Json.mapper().readTree(parts[2]);
    assertThat(json.fieldNames().next()).isEqualTo("v");
    assertThat(json.get("v").asInt()).isEqualTo(1);
    assertThat(json.get("utilizationGpuPct").asDouble()).isEqualTo(42.5);
    assertThat(json.has("powerDrawW")).isFalse();
    assertThat(Topics.GPU_SAMPLES.valueSerde().decode(parts[2].getBytes(StandardCharsets.UTF_8))).isEqualTo(sample);
  }

  @Test
  void garbageOnATopicIsReportedWithTopicPartitionOffsetAndReasonAndReadingGoesOn() throws Exception {
    Topic<String, HostVgpuSample> topic = Topics.HOST_VGPU_SAMPLES;
    HostVgpuSample good = new HostVgpuSample("4c4c4544-0042-3510-8052-b4c04f4e3232", "esx01",
        Instant.parse("2026-11-21T12:00:00Z"), "0000:3b:00.0", "Tesla T4", "train-01", "1", "GRID T4-16C", null,
        16384L, 15000L, 90.0, 40.0, null, null, null);
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    in.write("this is not json\n".getBytes(StandardCharsets.UTF_8));
    in.write(new byte[] {0x00, (byte) 0xff, (byte) 0xfe, (byte) 0x80, '\n'});
    in.write("{\"v\":1,\"vmId\":\"x\"}\n".getBytes(StandardCharsets.UTF_8));
    in.write(topic.encodeValue(good));
    in.write('\n');
    // Idempotent, so that librdkafka keeps the lines in order through a retry: in one full run the good record landed
    // at offset 2, most likely a batch retried after the next one was written (the broker had just started).
    Kcat.against(bootstrap).run(in.toByteArray(), KCAT, "-P", "-t", topic.name(), "-p", "0",
        "-X", "enable.idempotence=true").assertOk();

    List<RecordDecodeException> errors = new ArrayList<>();
    List<TypedRecord<String, HostVgpuSample>> decoded = new ArrayList<>();
    try (TypedConsumer<String, HostVgpuSample> consumer = TypedConsumer.create(topic,
        Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), (raw, e) -> errors.add(e))) {
      consumer.assignAllFromBeginning(KCAT);
      long deadline = System.nanoTime() + KCAT.toNanos();
      while (decoded.isEmpty() && System.nanoTime() < deadline) {
        decoded.addAll(consumer.poll(Duration.ofMillis(200)));
      }
    }
    assertThat(decoded).singleElement().satisfies(r -> assertThat(r.value()).isEqualTo(good));
    assertThat(decoded.get(0).offset()).isEqualTo(3);
    assertThat(errors).extracting(RecordDecodeException::offset).containsExactly(0L, 1L, 2L);
    assertThat(errors).allSatisfy(e -> {
      assertThat(e.topic()).isEqualTo(topic.name());
      assertThat(e.partition()).isZero();
    });
    assertThat(errors.get(0).getMessage()).startsWith("cannot decode record at topic stunwatch.host-vgpu-samples, "
        + "partition 0, offset 0: value: not valid JSON at line 1, column ").contains("Unrecognized token 'this'");
    assertThat(errors.get(2).reason()).isEqualTo("value: invalid host-vgpu-sample: not a VM UUID (need 32 hex "
        + "digits): 'x'");

    // The operator's view: `stunwatch tail` reports each bad record on stderr and prints the good one.
    try (StunwatchProcess tail = StunwatchProcess.start("tail", topic.name(), "--bootstrap-servers", bootstrap,
        "--from-beginning", "--max", "1")) {
      assertThat(tail.awaitExit(Duration.ofSeconds(60))).isZero();
      assertThat(tail.stderr()).anyMatch(l -> l.contains("partition 0, offset 1: value: not valid JSON"));
      assertThat(tail.stderr()).anyMatch(l -> l.contains("1 records printed, 3 undecodable skipped"));
      JsonNode printed = Json.mapper().readTree(tail.stdout().get(0));
      assertThat(printed.get("offset").asLong()).isEqualTo(3);
      assertThat(printed.get("value").get("vmName").asText()).isEqualTo("train-01");
    }
  }

  private static <V> TypedRecord<String, V> readUntil(Topic<String, V> topic,
      Predicate<TypedRecord<String, V>> wanted) {
    try (TypedConsumer<String, V> consumer = TypedConsumer.create(topic,
        Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), (raw, e) -> {
          throw e;
        })) {
      consumer.assignAllFromBeginning(KCAT);
      long deadline = System.nanoTime() + KCAT.toNanos();
      while (System.nanoTime() < deadline) {
        for (TypedRecord<String, V> r : consumer.poll(Duration.ofMillis(200))) {
          if (wanted.test(r)) {
            return r;
          }
        }
      }
    }
    throw new AssertionError("no matching record on " + topic.name() + " within " + KCAT);
  }
}
