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
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class JsonSerdeTest {

  private final JsonSerde<GpuSample> serde = JsonSerde.of(GpuSample.class);

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
    List<TimelinePoint> timeline = java.util.stream.IntStream.range(0, points)
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

    // An equal value is another object: encoded on its own, to the same bytes.
    MigrationImpact equal = impact(600);
    byte[] again = storeSerde.encode(equal);
    assertThat(again != first && Arrays.equals(again, first)).as("an equal value's own encoding").isTrue();
    assertThat(storeSerde.decode(again)).isEqualTo(big);

    // Small values, other threads and values pushed out by later large ones are encoded afresh.
    GpuSample small = Samples.gpu();
    assertThat(serde.encode(small) != serde.encode(small)).as("a small value, encoded twice").isTrue();
    java.util.concurrent.CompletableFuture<byte[]> elsewhere =
        java.util.concurrent.CompletableFuture.supplyAsync(() -> topicSerde.encode(big));
    byte[] there = elsewhere.get();
    assertThat(there != first && Arrays.equals(there, first)).as("on another thread").isTrue();
    for (int i = 0; i < JsonSerde.EncodeMemo.SLOTS; i++) {
      topicSerde.encode(impact(100 + i));
    }
    byte[] later = topicSerde.encode(big);
    assertThat(later != first && Arrays.equals(later, first)).as("after the memo's slots were all reused").isTrue();
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
    assertReason("garbage", "not valid JSON at line 1, column 8: Unrecognized token 'garbage'");
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
