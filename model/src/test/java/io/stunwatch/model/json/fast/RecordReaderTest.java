package io.stunwatch.model.json.fast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.Samples;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordReader} against its reference, Jackson's data binding ({@link JsonSerde#bound}): what it reads must be
 * what the binding reads, and whatever the binding refuses it must leave to the binding.
 */
class RecordReaderTest {

  private final JsonSerde<GpuSample> gpu = JsonSerde.of(GpuSample.class);

  @Test
  void everyCatalogTypeAsOurEncoderWritesItIsReadWithoutTheDataBinding() {
    List<Object> samples = Samples.all();
    for (int i = 0; i < samples.size(); i++) {
      JsonSerde<?> serde = Topics.ALL.get(i).valueSerde();
      byte[] bytes = encode(Topics.ALL.get(i), samples.get(i));
      assertThat(serde.plain(bytes)).as(serde.schemaName()).isNotSameAs(RecordReader.DECLINED)
          .isEqualTo(samples.get(i));
    }
  }

  @Test
  void anIntegerWhereADoubleIsExpectedReadsAsTheDataBindingReadsIt() {
    byte[] json = utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"gpuIndex\":1,\"utilizationGpuPct\":50}");
    assertThat(gpu.plain(json)).isEqualTo(gpu.bound(json));
    assertThat(gpu.decode(json).utilizationGpuPct()).isEqualTo(50.0);
  }

  @Test
  void doublesOfEveryShapeReadExactlyAsTheDataBindingReadsThem() {
    // The reader's parser uses Jackson's fast double parser; the data binding's, Double.parseDouble.
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      String number = switch (i % 4) {
        case 0 -> Double.toString(random.nextDouble() * 100);
        case 1 -> String.format(Locale.ROOT, "%." + random.nextInt(25) + "f", random.nextDouble() * 100);
        case 2 -> (random.nextInt(100) + 1) + "." + Long.toUnsignedString(random.nextLong()) + "e-"
            + random.nextInt(3);
        default -> Double.toString(Double.longBitsToDouble(random.nextLong() & 0x3fefffffffffffffL));
      };
      byte[] json = utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
          + "\"gpuIndex\":0,\"utilizationGpuPct\":" + number + ",\"powerDrawW\":" + number + "}");
      Object plain = gpu.plain(json);
      Outcome reference = Outcome.of(() -> gpu.bound(json));
      if (plain == RecordReader.DECLINED) {
        assertThat(reference.error()).as(number).isNotNull();
      } else {
        assertThat(plain).as(number).isEqualTo(reference.value());
      }
    }
  }

  @Test
  void fieldNamesNotWrittenAsTheEncoderWritesThemReadAsTheDataBindingReadsThem() {
    // The reader matches the expected next name with its quotes, colon and comma as one run of bytes; everything
    // else (whitespace, an escape, another order, a name the expected one begins) is read token by token.
    String compact = new String(Topics.GPU_SAMPLES.valueSerde().encode(Samples.gpu()), StandardCharsets.UTF_8);
    assertThat(compact).contains(",\"gpuIndex\":").contains("\"vgpuProfile\":{\"name\":");
    Map<String, String> variants = new LinkedHashMap<>();
    variants.put("compact", compact);
    variants.put("space after a comma", compact.replace(",\"gpuIndex\":", ", \"gpuIndex\":"));
    variants.put("space before a colon", compact.replace("\"gpuIndex\":", "\"gpuIndex\" :"));
    variants.put("space after a colon", compact.replace("\"gpuIndex\":", "\"gpuIndex\": "));
    variants.put("newline before a comma", compact.replace(",\"gpuIndex\":", "\n,\"gpuIndex\":"));
    variants.put("space in a nested object", compact.replace("{\"name\":", "{ \"name\":"));
    variants.put("escaped name", compact.replace("\"gpuIndex\":", "\"gpu\\u0049ndex\":"));
    variants.put("escaped slash in a name", compact.replace("\"gpuIndex\":", "\"gpuIndex\\/\":"));
    variants.put("a longer name", compact.replace("\"gpuIndex\":", "\"gpuIndexes\":1,\"gpuIndex\":"));
    variants.put("a shorter name", compact.replace("\"gpuIndex\":", "\"gpu\":1,\"gpuIndex\":"));
    variants.put("first and last swapped", "{\"v\":1," + compact.substring(compact.indexOf("\"vgpuProfile\""),
        compact.length() - 1) + "," + compact.substring(compact.indexOf("\"vmId\""),
        compact.indexOf("\"vgpuProfile\"") - 1) + "}");
    variants.put("a duplicate in order", compact.replace(",\"gpuIndex\":", ",\"gpuIndex\":0,\"gpuIndex\":"));
    variants.put("a missing comma", compact.replace(",\"gpuIndex\":", "\"gpuIndex\":"));
    variants.put("two commas", compact.replace(",\"gpuIndex\":", ",,\"gpuIndex\":"));
    variants.put("a comma before the first field", compact.replace("{\"name\":", "{,\"name\":"));
    variants.put("an unterminated name", compact.substring(0, compact.indexOf("\"gpuIndex\"") + 5));
    for (Map.Entry<String, String> v : variants.entrySet()) {
      byte[] json = utf8(v.getValue());
      Outcome reference = Outcome.of(() -> gpu.bound(json));
      assertThat(Outcome.of(() -> gpu.decode(json))).as(v.getKey()).isEqualTo(reference);
      Object plain = gpu.plain(json);
      if (plain != RecordReader.DECLINED) {
        assertThat(plain).as(v.getKey()).isEqualTo(reference.value());
      }
    }
    assertThat(gpu.plain(utf8(compact))).isEqualTo(Samples.gpu());
    assertThat(gpu.plain(utf8(variants.get("space after a comma")))).isEqualTo(Samples.gpu());
    assertThat(gpu.plain(utf8(variants.get("escaped name")))).isEqualTo(Samples.gpu());
    assertThat(gpu.plain(utf8(variants.get("first and last swapped")))).isEqualTo(Samples.gpu());
    assertThat(gpu.plain(utf8(variants.get("escaped slash in a name")))).isNotEqualTo(Samples.gpu());
    assertThat(gpu.plain(utf8(variants.get("a duplicate in order")))).isSameAs(RecordReader.DECLINED);
    assertThat(gpu.plain(utf8(variants.get("a missing comma")))).isSameAs(RecordReader.DECLINED);
    assertThat(gpu.plain(utf8(variants.get("a comma before the first field")))).isSameAs(RecordReader.DECLINED);
  }

  @Test
  void anEnumConstantIsReadFromItsBytesOrItsEscapesAndAnythingElseIsLeftToTheDataBinding() {
    JsonSerde<RdmaCounterSample> rdma = JsonSerde.of(RdmaCounterSample.class);
    String head = "{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"device\":\"mlx5_0\",\"port\":1,\"counters\":{\"port_rcv_data\":{\"value\":1,\"state\":";
    for (String state : List.of("\"VALID\"", "\"VAL\\u0049D\"", "\"SATURATED\"", "\"valid\"", "\"VALI\"",
        "\"VALIDX\"", "\"\"", "null")) {
      byte[] json = utf8(head + state + "}}}");
      Outcome reference = Outcome.of(() -> rdma.bound(json));
      assertThat(Outcome.of(() -> rdma.decode(json))).as(state).isEqualTo(reference);
      Object plain = rdma.plain(json);
      if (plain != RecordReader.DECLINED) {
        assertThat(plain).as(state).isEqualTo(reference.value());
      }
    }
    RdmaCounterSample escaped = (RdmaCounterSample) rdma.plain(utf8(head + "\"VAL\\u0049D\"}}}"));
    assertThat(escaped.counters().get("port_rcv_data").state()).isEqualTo(CounterState.VALID);
    assertThat(rdma.plain(utf8(head + "\"VALI\"}}}"))).isSameAs(RecordReader.DECLINED);
  }

  @Test
  void aDuplicateFieldIsLeftToTheDataBindingWhichNamesIt() {
    for (String dup : List.of("\"gpuIndex\":2", "\"v\":1", "\"unknown\":1,\"unknown\":2")) {
      byte[] json = utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
          + "\"gpuIndex\":1," + dup + "}");
      assertThat(gpu.plain(json)).as(dup).isSameAs(RecordReader.DECLINED);
      assertThatThrownBy(() -> gpu.decode(json)).as(dup).isInstanceOf(SchemaException.class)
          .hasMessageContaining("Duplicate field");
    }
    JsonSerde<RdmaCounterSample> rdma = JsonSerde.of(RdmaCounterSample.class);
    byte[] json = utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"device\":\"mlx5_0\",\"port\":1,\"counters\":{\"a\":{\"value\":1,\"state\":\"VALID\"},"
        + "\"a\":{\"value\":2,\"state\":\"VALID\"}}}");
    assertThat(rdma.plain(json)).isSameAs(RecordReader.DECLINED);
    assertThatThrownBy(() -> rdma.decode(json)).hasMessageContaining("Duplicate field 'a'");
  }

  @Test
  void aRecordsOwnCheckIsReportedInTheDataBindingsWords() {
    byte[] json = utf8("{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\","
        + "\"gpuIndex\":0,\"utilizationGpuPct\":180.5}");
    assertThat(gpu.plain(json)).isSameAs(RecordReader.DECLINED);
    assertThatThrownBy(() -> gpu.decode(json)).isInstanceOf(SchemaException.class)
        .hasMessage("invalid gpu-sample: utilizationGpuPct must be in [0.0, 100.0] or absent, was 180.5");
  }

  @Test
  void anUnknownFieldIsSkippedWhenScalarAndLeftToTheDataBindingWhenStructured() {
    String head = "{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\",\"gpuIndex\":0,";
    byte[] scalar = utf8(head + "\"addedLater\":\"x\"}");
    assertThat(gpu.plain(scalar)).isEqualTo(gpu.bound(scalar));
    byte[] structured = utf8(head + "\"addedLater\":{\"x\":1,\"x\":2}}");
    assertThat(gpu.plain(structured)).isSameAs(RecordReader.DECLINED);
    assertThatThrownBy(() -> gpu.decode(structured)).hasMessageContaining("Duplicate field 'x'");
  }

  @Test
  void manyUnknownFieldsCostTimeInProportionToTheirBytes() {
    // A record that a newer (or hostile) producer padded with unknown scalar fields: reading it must stay linear
    // in its size. Bound: 1 microsecond a byte, thirty times what the linear path takes on a slow machine, and a
    // tenth of what checking each name against every other one costs (40,000 fields: 3.4 s).
    String head = "{\"v\":1,\"vmId\":\"" + Samples.VM + "\",\"timestamp\":\"2026-11-21T12:00:00Z\",\"gpuIndex\":0";
    StringBuilder b = new StringBuilder(head);
    for (int i = 0; i < 40_000; i++) {
      b.append(",\"unknown").append(i).append("\":").append(i);
    }
    byte[] bytes = utf8(b.append('}').toString());
    assertThat(bytes.length).isGreaterThan(350_000);
    long best = Long.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      long t0 = System.nanoTime();
      Object plain = gpu.plain(bytes);
      best = Math.min(best, System.nanoTime() - t0);
      assertThat(plain).isNotSameAs(RecordReader.DECLINED).isEqualTo(gpu.bound(bytes));
    }
    assertThat(best / (double) bytes.length).as("nanoseconds a byte").isLessThan(1_000.0);
    // a name repeated among them is still left to the binding, which refuses it
    byte[] repeated = utf8(head + ",\"unknown1\":1,\"unknown2\":2,\"unknown1\":3}");
    assertThat(gpu.plain(repeated)).isSameAs(RecordReader.DECLINED);
  }

  @Test
  void aTypeWithJacksonAnnotationsOrAnUnreadableComponentGetsNoReader() {
    assertThat(RecordReader.of(Renamed.class)).isNull();
    assertThat(RecordReader.of(WithFloat.class)).isNull();
    assertThat(RecordReader.of(Nesting.class)).as("a nested record without a reader").isNull();
    assertThat(RecordReader.of(GpuSample.class)).isNotNull();
    assertThat(RecordReader.of(ThroughputSample.class)).isNotNull();
  }

  public record Renamed(@JsonProperty("other") String name) {
  }

  public record WithFloat(float f) {
  }

  public record Nesting(String a, WithFloat inner) {
  }

  /**
   * Thousands of seeded mutations of every catalog type's encoding (fields dropped, nulled, duplicated, retyped,
   * added; versions moved and changed), at every depth. For each, {@link JsonSerde#decode} must give what the data
   * binding gives, value or message, and what the reader accepts must equal the binding's value.
   */
  @Test
  void mutatedPayloadsDecodeExactlyAsTheDataBindingDecodesThem() throws Exception {
    Random random = new Random(20261122);
    List<Object> samples = Samples.all();
    int accepted = 0;
    int declined = 0;
    int refused = 0;
    for (int round = 0; round < 600; round++) {
      for (int i = 0; i < samples.size(); i++) {
        Topic<?, ?> topic = Topics.ALL.get(i);
        JsonSerde<?> serde = topic.valueSerde();
        ObjectNode tree = (ObjectNode) Json.mapper().readTree(encode(topic, samples.get(i)));
        Mutation m = mutate(tree, random);
        byte[] bytes = utf8(m.render(tree));
        Outcome reference = Outcome.of(() -> serde.bound(bytes));
        Outcome decoded = Outcome.of(() -> serde.decode(bytes));
        Object plain = serde.plain(bytes);
        String what = serde.schemaName() + " " + m + ": " + new String(bytes, StandardCharsets.UTF_8);
        assertThat(decoded).as(what).isEqualTo(reference);
        if (plain == RecordReader.DECLINED) {
          declined++;
        } else {
          assertThat(reference.value()).as(what).isNotNull().isEqualTo(plain);
          accepted++;
        }
        if (reference.error() != null) {
          refused++;
        }
      }
    }
    // The mutations reach both sides of the reader, and the binding's refusals: otherwise this checks nothing.
    assertThat(accepted).isGreaterThan(1000);
    assertThat(declined).isGreaterThan(1000);
    assertThat(refused).isGreaterThan(500);
  }

  /** A decode's value or its error message. */
  private record Outcome(Object value, String error) {
    interface Decode {
      Object run();
    }

    static Outcome of(Decode d) {
      try {
        return new Outcome(d.run(), null);
      } catch (SchemaException e) {
        return new Outcome(null, e.reason());
      }
    }
  }

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** Replacement values that cover each of the reader's token rules. */
  private static final List<JsonNode> VALUES = List.of(NODES.nullNode(), NODES.numberNode(7), NODES.numberNode(-1),
      NODES.numberNode(1L << 40), NODES.numberNode(new BigInteger("1180591620717411303424")), NODES.numberNode(1.5),
      NODES.numberNode(0.0), NODES.numberNode(100.0), NODES.textNode("x"), NODES.textNode("7"), NODES.textNode(""),
      NODES.textNode("VALID"), NODES.textNode("valid"), NODES.textNode("STEP"), NODES.booleanNode(true),
      NODES.objectNode(), NODES.arrayNode(), NODES.textNode("2026-11-21T12:00:00Z"),
      NODES.textNode("2026-11-21T12:00:00.5+01:00"), NODES.textNode("2026-02-30T00:00:00Z"),
      NODES.textNode("2026-11-21T12:00:00.123456789Z"), NODES.numberNode(1763726400L));

  /**
   * A change to a tree, and how to render it; a duplicate cannot live in a tree, so it is made while rendering.
   *
   * @param name what was done, for the failure message
   * @param dupOf the object one of whose fields is written twice, or null
   * @param dupField that field
   * @param dupValue the second value written for it
   */
  private record Mutation(String name, ObjectNode dupOf, String dupField, JsonNode dupValue) {

    String render(JsonNode tree) throws Exception {
      StringBuilder out = new StringBuilder();
      write(tree, out);
      return out.toString();
    }

    private void write(JsonNode n, StringBuilder out) throws Exception {
      if (n instanceof ObjectNode o) {
        out.append('{');
        boolean first = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> e = it.next();
          first = field(out, first, e.getKey(), e.getValue());
          if (o == dupOf && e.getKey().equals(dupField)) {
            first = field(out, first, e.getKey(), dupValue);
          }
        }
        out.append('}');
      } else if (n instanceof ArrayNode a) {
        out.append('[');
        for (int i = 0; i < a.size(); i++) {
          out.append(i == 0 ? "" : ",");
          write(a.get(i), out);
        }
        out.append(']');
      } else {
        out.append(Json.mapper().writeValueAsString(n));
      }
    }

    private boolean field(StringBuilder out, boolean first, String name, JsonNode value) throws Exception {
      out.append(first ? "" : ",").append(Json.mapper().writeValueAsString(name)).append(':');
      write(value, out);
      return false;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private static Mutation mutate(ObjectNode root, Random random) {
    List<ObjectNode> objects = new ArrayList<>();
    collect(root, objects);
    ObjectNode o = objects.get(random.nextInt(objects.size()));
    List<String> names = new ArrayList<>();
    o.fieldNames().forEachRemaining(names::add);
    String field = names.isEmpty() ? "none" : names.get(random.nextInt(names.size()));
    JsonNode value = VALUES.get(random.nextInt(VALUES.size()));
    switch (random.nextInt(o == root ? 8 : 6)) {
      case 0 -> {
        o.remove(field);
        return new Mutation("drop " + field, null, null, null);
      }
      case 1, 2 -> {
        o.set(field, value);
        return new Mutation(field + " = " + value, null, null, null);
      }
      case 3 -> {
        JsonNode same = o.get(field);
        return new Mutation("twice " + field, o, field, random.nextBoolean() || same == null ? value : same);
      }
      case 4 -> {
        o.set("addedLater", value);
        return new Mutation("addedLater = " + value, null, null, null);
      }
      case 5 -> {
        return new Mutation("unchanged", null, null, null);
      }
      case 6 -> {
        JsonNode v = root.remove("v");
        root.set("v", Objects.requireNonNull(v));
        return new Mutation("v last", null, null, null);
      }
      default -> {
        root.set("v", value);
        return new Mutation("v = " + value, null, null, null);
      }
    }
  }

  private static void collect(JsonNode n, List<ObjectNode> into) {
    if (n instanceof ObjectNode o) {
      into.add(o);
    }
    n.elements().forEachRemaining(c -> collect(c, into));
  }

  @SuppressWarnings("unchecked")
  private static <V> byte[] encode(Topic<?, V> topic, Object value) {
    return topic.valueSerde().encode((V) value);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
