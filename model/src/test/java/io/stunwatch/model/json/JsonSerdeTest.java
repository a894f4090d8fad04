package io.stunwatch.model.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.Samples;
import io.stunwatch.model.TimelinePoint;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class JsonSerdeTest {

  private final JsonSerde<GpuSample> serde = JsonSerde.of(GpuSample.class);

  @Test
  void aMapIsWrittenInTheOrderOfItsKeysWhateverItsOwnOrder() throws Exception {
    java.util.Map<String, Integer> hashed = new java.util.HashMap<>();
    for (int i = 20; i >= 0; i--) {
      hashed.put("GPU-" + i, i);
    }
    String json = Json.mapper().writeValueAsString(java.util.Map.copyOf(hashed));
    assertThat(json).isEqualTo(Json.mapper().writeValueAsString(new java.util.TreeMap<>(hashed)));
    assertThat(json).startsWith("{\"GPU-0\":0,\"GPU-1\":1,\"GPU-10\":10,");
  }

  @Test
  void everyCatalogTopicRoundTripsItsValueTypeExactly() {
    List<Object> samples = Samples.all();
    assertThat(samples).hasSameSizeAs(Topics.ALL);
    for (int i = 0; i < samples.size(); i++) {
      assertRoundTrip(Topics.ALL.get(i), samples.get(i));
    }
  }

  /** An impact with a timeline of {@code points} seconds: about 100 bytes of JSON a point. */
  private static MigrationImpact impact(int points) {
    MigrationImpact sample = (MigrationImpact) Samples.all().stream().filter(MigrationImpact.class::isInstance)
        .findFirst().orElseThrow();
    List<TimelinePoint> timeline = IntStream.range(0, points)
        .mapToObj(i -> new TimelinePoint(Samples.T0.plusSeconds(i), 50.0 + i % 50, 15_000.0 + i, null, 200.0 + i))
        .toList();
    return new MigrationImpact(sample.migration(), sample.durationSeconds(), sample.stun(), sample.before(),
        sample.during(), sample.after(), sample.throughputDipPct(), timeline, sample.settledAt());
  }

  @Test
  void aLargeValueEncodedAgainOnTheSameThreadGetsTheSameBytesWithoutBeingEncodedAgain() throws Exception {
    JsonSerde<MigrationImpact> topicSerde = JsonSerde.of(MigrationImpact.class);
    JsonSerde<MigrationImpact> storeSerde = JsonSerde.of(MigrationImpact.class);
    MigrationImpact big = impact(600);
    byte[] first = topicSerde.encode(big);
    assertThat(first.length).isGreaterThan(JsonSerde.EncodeMemo.MIN_BYTES);
    // Identity compared as booleans: a failure prints a sentence, not two 60 KB arrays.
    assertThat(storeSerde.encode(big) == first).as("the same value, by another serde of its type").isTrue();
    byte[] third = storeSerde.encode(big);
    assertThat(third != first && Arrays.equals(third, first)).as("a third time: dropped at its second use").isTrue();

    // An equal value is another object: encoded on its own, to the same bytes.
    MigrationImpact equal = impact(600);
    byte[] again = storeSerde.encode(equal);
    assertThat(again != first && Arrays.equals(again, first)).as("an equal value's own encoding").isTrue();
    assertThat(storeSerde.decode(again)).isEqualTo(big);

    // Small values and other threads are encoded afresh.
    GpuSample small = Samples.gpu();
    assertThat(serde.encode(small) != serde.encode(small)).as("a small value, encoded twice").isTrue();
    // The third encoding is kept in turn, on this thread only.
    byte[] there = CompletableFuture.supplyAsync(() -> topicSerde.encode(big)).get();
    assertThat(there != third && Arrays.equals(there, third)).as("on another thread").isTrue();
    assertThat(topicSerde.encode(big) == third).as("still kept on this thread").isTrue();
  }

  /**
   * Runs {@code body} on a thread of its own, whose memo is empty (the memo is per thread, and the tests of this class
   * share one), and fails with what failed there.
   */
  private static void onNewThread(Runnable body) throws InterruptedException {
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failed.set(e);
      }
    });
    t.start();
    t.join();
    if (failed.get() instanceof Error e) {
      throw e;
    }
    assertThat(failed.get()).as("the body's thread threw").isNull();
  }

  @Test
  void everyImpactOfACatchUpsCommitIntervalIsEncodedOnceForItsTopicAndItsStore() throws Exception {
    onNewThread(JsonSerdeTest::catchUpCommitInterval);
  }

  private static void catchUpCommitInterval() {
    JsonSerde<MigrationImpact> topicSerde = JsonSerde.of(MigrationImpact.class);
    JsonSerde<MigrationImpact> storeSerde = JsonSerde.of(MigrationImpact.class);
    List<MigrationImpact> emitted = IntStream.range(0, 100).mapToObj(i -> impact(400 + i)).toList();
    List<byte[]> sent = emitted.stream().map(topicSerde::encode).toList();
    assertThat(JsonSerde.EncodeMemo.ofThread().size()).isEqualTo(100);
    for (int i = emitted.size() - 1; i >= 0; i--) { // the commit writes them in an order of its own
      assertThat(storeSerde.encode(emitted.get(i)) == sent.get(i)).as("impact %d at the commit", i).isTrue();
    }
    assertThat(JsonSerde.EncodeMemo.ofThread().size()).as("nothing left once each was used again").isZero();
  }

  @Test
  void theOldestEncodingsGoFirstBeyondTheSlotsOrTheBytesKept() throws Exception {
    onNewThread(JsonSerdeTest::evictions);
  }

  private static void evictions() {
    JsonSerde<MigrationImpact> s = JsonSerde.of(MigrationImpact.class);
    MigrationImpact big = impact(600);
    byte[] first = s.encode(big);
    for (int i = 0; i < JsonSerde.EncodeMemo.SLOTS; i++) {
      s.encode(impact(100 + i));
    }
    assertThat(JsonSerde.EncodeMemo.ofThread().size()).isEqualTo(JsonSerde.EncodeMemo.SLOTS);
    byte[] later = s.encode(big);
    assertThat(later != first && Arrays.equals(later, first)).as("after the slots were all reused").isTrue();

    // About 600 KB each: the bytes run out before the slots do.
    MigrationImpact huge = impact(6_000);
    byte[] hugeFirst = s.encode(huge);
    int each = hugeFirst.length;
    for (int i = 0; i < JsonSerde.EncodeMemo.MAX_BYTES / each + 1; i++) {
      s.encode(impact(6_001 + i));
    }
    assertThat(JsonSerde.EncodeMemo.ofThread().size()).isLessThanOrEqualTo((int) (JsonSerde.EncodeMemo.MAX_BYTES
        / each));
    byte[] hugeLater = s.encode(huge);
    assertThat(hugeLater != hugeFirst && Arrays.equals(hugeLater, hugeFirst)).as("after the bytes ran out").isTrue();
  }

  private static <K, V> void assertRoundTrip(Topic<K, V> topic, Object value) {
    V v = topic.valueSerde().type().cast(value);
    byte[] bytes = topic.encodeValue(v);
    assertThat(topic.valueSerde().decode(bytes)).as(topic.name()).isEqualTo(v);
  }

  @Test
  void encodingPutsTheVersionFirstAndOmitsUnknownMeasurements() throws Exception {
    JsonNode json = Json.mapper().readTree(serde.encode(Samples.gpu()));
    Iterator<String> names = json.fieldNames();
    assertThat(names.next()).isEqualTo("v");
    assertThat(json.get("v").asInt()).isEqualTo(1);
    // power and temperature are [N/A] in a vGPU guest: absent, never 0
    assertThat(json.has("powerDrawW")).isFalse();
    assertThat(json.has("temperatureC")).isFalse();
    assertThat(json.get("timestamp").asText()).isEqualTo("2026-11-21T12:00:00.125Z");
  }

  @Test
  void handWrittenJsonWithTheVersionLastIsAccepted() {
    GpuSample s = serde.decode(utf8("{\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"gpuIndex\":1,\"utilizationGpuPct\":50,\"v\":1}"));
    assertThat(s.gpuIndex()).isEqualTo(1);
    assertThat(s.utilizationGpuPct()).isEqualTo(50.0);
    assertThat(s.memoryUsedMiB()).isNull();
  }

  @Test
  void unknownFieldsAreIgnoredForForwardCompatibility() {
    GpuSample s = serde.decode(utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"gpuIndex\":0,\"addedInAFutureMinorRelease\":{\"x\":1}}"));
    assertThat(s.vmId()).isEqualTo(Samples.VM);
  }

  @Test
  void nullPayloadIsATombstone() {
    assertThat(serde.decode(null)).isNull();
    assertThat(serde.encode(null)).isNull();
  }

  @Test
  void missingVersionIsRejectedWithTheExpectedVersion() {
    assertReason("{\"vmId\":\"x\"}", "missing schema version field \"v\" (gpu-sample expects 1)");
  }

  @Test
  void newerMajorVersionIsRejectedRatherThanMisread() {
    assertReason("{\"v\":2,\"vmId\":\"x\"}", "unsupported gpu-sample schema version 2 (this build reads 1)");
    assertReason("{\"gpuIndex\":0,\"v\":\"1\"}", "schema version \"v\" must be an integer, found \"1\"");
  }

  @Test
  void garbageBytesGiveAOneLineReason() {
    assertReason("garbage", "not valid JSON at line 1, column 1: Unrecognized token 'garbage'");
    assertThatThrownBy(() -> serde.decode(new byte[] {0, (byte) 0xff, (byte) 0xfe, 0x10}))
        .isInstanceOf(SchemaException.class)
        .hasMessageStartingWith("not valid JSON");
    assertReason("", "empty payload (0 bytes)");
    assertReason("[1,2]", "expected a JSON object (gpu-sample), found an array");
    String valid = new String(serde.encode(Samples.gpu()), StandardCharsets.UTF_8);
    assertReason(valid + " trailing", "not valid JSON at line 1");
  }

  @Test
  void aWronglyTypedFieldIsNamed() {
    assertReason("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"yesterday\",\"gpuIndex\":0}",
        "invalid gpu-sample field 'timestamp'");
    assertReason("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\",\"gpuIndex\":0,"
        + "\"memoryUsedMiB\":\"lots\"}", "invalid gpu-sample field 'memoryUsedMiB'");
  }

  @Test
  void aMissingRequiredFieldIsNamed() {
    assertReason("{\"v\":1,\"timestamp\":\"2026-11-21T12:00:00Z\",\"gpuIndex\":0}",
        "invalid gpu-sample: vmId is required");
    assertReason("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\"}",
        "invalid gpu-sample field 'gpuIndex': is required");
  }

  @Test
  void anOutOfRangeMeasurementIsRejectedNotClamped() {
    assertReason("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\",\"gpuIndex\":0,"
        + "\"utilizationGpuPct\":180}", "invalid gpu-sample: utilizationGpuPct must be in [0.0, 100.0] or absent, was 180.0");
  }

  @Test
  void kafkaDeserializerNamesTheTopic() {
    assertThatThrownBy(() -> serde.deserializer().deserialize("stunwatch.gpu-samples", utf8("nope")))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("topic stunwatch.gpu-samples: not valid JSON");
  }

  @Test
  void aRecordWithoutSchemaAnnotationCannotGetASerde() {
    assertThatThrownBy(() -> JsonSerde.of(String.class)).hasMessageContaining("no @Schema");
  }

  private void assertReason(String payload, String expectedStart) {
    assertThatThrownBy(() -> serde.decode(utf8(payload)))
        .isInstanceOf(SchemaException.class)
        .satisfies(e -> assertThat(((SchemaException) e).reason()).startsWith(expectedStart)
            .doesNotContain("\n"));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
