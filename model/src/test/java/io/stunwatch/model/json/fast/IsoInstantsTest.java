package io.stunwatch.model.json.fast;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import io.stunwatch.model.json.Json;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IsoInstantsTest {

  private final ObjectMapper fast = Json.mapper();
  /** The same configuration without the fast path: what every answer must equal. */
  private final ObjectMapper reference = Json.configured().build();

  private static List<Instant> instants() {
    Random r = new Random(42);
    List<Instant> out = new ArrayList<>(List.of(Instant.EPOCH, Instant.parse("2026-11-20T10:00:00.125Z"),
        Instant.parse("0000-01-01T00:00:00Z"), Instant.parse("9999-12-31T23:59:59.999999999Z"),
        Instant.parse("1969-12-31T23:59:59.5Z"), Instant.parse("2024-02-29T12:00:00.000001Z"),
        Instant.parse("2100-03-01T00:00:00.010Z")));
    long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 20_000; i++) {
      long s = min + (long) (r.nextDouble() * (max - min));
      int nano = switch (i % 4) {
        case 0 -> 0;
        case 1 -> r.nextInt(1000) * 1_000_000;
        case 2 -> r.nextInt(1_000_000) * 1_000;
        default -> r.nextInt(1_000_000_000);
      };
      out.add(Instant.ofEpochSecond(s, nano));
    }
    return out;
  }

  @Test
  void everyInstantIsWrittenByteForByteAsIsoInstantAndTheModuleWriteIt() throws Exception {
    for (Instant i : instants()) {
      String written = fast.writeValueAsString(i);
      assertThat(written).isEqualTo("\"" + DateTimeFormatter.ISO_INSTANT.format(i) + "\"")
          .isEqualTo(reference.writeValueAsString(i));
    }
  }

  @Test
  void yearsOutsideFourDigitsAreLeftToTheModule() throws Exception {
    for (Instant i : List.of(Instant.MAX, Instant.MIN, Instant.parse("+10000-01-01T00:00:00Z"),
        Instant.parse("-0001-12-31T23:59:59Z"))) {
      assertThat(IsoInstants.format(i)).isNull();
      assertThat(fast.writeValueAsString(i)).isEqualTo(reference.writeValueAsString(i));
    }
  }

  @Test
  void everyWrittenInstantIsReadBackAsItself() throws Exception {
    for (Instant i : instants()) {
      String json = "\"" + DateTimeFormatter.ISO_INSTANT.format(i) + "\"";
      assertThat(fast.readValue(json, Instant.class)).isEqualTo(i);
      assertThat(IsoInstants.parse(json.substring(1, json.length() - 1))).isEqualTo(i);
    }
  }

  @Test
  void fractionsOfAnyLengthReadAsTheModuleReadsThem() throws Exception {
    for (String s : List.of("2026-11-20T10:00:05.5Z", "2026-11-20T10:00:05.12Z", "2026-11-20T10:00:05.1234Z",
        "2026-11-20T10:00:05.123456789Z", "2026-11-20T10:00:05.000000001Z")) {
      assertThat(IsoInstants.parse(s)).isEqualTo(Instant.parse(s));
      assertThat(fast.readValue("\"" + s + "\"", Instant.class))
          .isEqualTo(reference.readValue("\"" + s + "\"", Instant.class));
    }
  }

  @Test
  void aTimestampsBytesInsideAPayloadParseAsItsString() {
    for (String s : List.of("2026-11-20T10:00:05Z", "2026-11-20T10:00:05.125Z", "2026-11-20T10:00:05.123456789Z",
        "2026-02-30T00:00:00Z", "2026-11-20T10:00:0\u00e9Z", "2026-11-20T10:00:0\u0665Z",
        "2026-11-20T10:00:\ud83d\ude00Z", "2026-11-20T10:00:00.Z", "now")) {
      byte[] payload = ("{\"at\":\"" + s + "\"}").getBytes(StandardCharsets.UTF_8);
      int length = payload.length - 9; // the bytes between the quotes
      Instant fromBytes = IsoInstants.parse(payload, 7, length);
      assertThat(fromBytes).as(s).isEqualTo(IsoInstants.parse(s));
      if (s.startsWith("2026-11-20T10:00:05")) {
        assertThat(fromBytes).as(s).isEqualTo(Instant.parse(s));
      } else {
        assertThat(fromBytes).as(s).isNull();
      }
    }
  }

  @Test
  void everyOtherFormIsLeftToTheModuleWithItsAnswerOrItsError() throws Exception {
    for (String json : List.of("\"2026-11-20T10:00:00+02:00\"", "\"2026-11-20T24:00:00Z\"",
        "\"2026-02-30T00:00:00Z\"", "\"2025-02-29T00:00:00Z\"", "\"2016-12-31T23:59:60Z\"", "\"2026-11-20t10:00:00z\"",
        "\"2026-11-20T10:00:00.Z\"", "\"2026-11-20T10:00:00.1234567890Z\"", "\"2026-13-01T00:00:00Z\"",
        "\" 2026-11-20T10:00:00Z\"", "\"2026-11-20 10:00:00Z\"", "\"+2026-11-20T10:00:00Z\"", "\"\"", "\"now\"",
        "1700000000", "1700000000.5", "null", "true", "[]")) {
      String fastAnswer = answer(fast, json);
      assertThat(fastAnswer).as(json).isEqualTo(answer(reference, json));
      if (json.startsWith("\"") && json.length() > 2) {
        assertThat(IsoInstants.parse(json.substring(1, json.length() - 1))).as(json).isNull();
      }
    }
  }

  @Test
  void instantsInsideRecordsTakeTheSamePath() throws Exception {
    record Event(String id, Instant at, Instant end) {
    }
    Event e = new Event("x", Instant.parse("2026-11-20T10:00:00.125Z"), null);
    String json = fast.writeValueAsString(e);
    assertThat(json).isEqualTo(reference.writeValueAsString(e)).isEqualTo("{\"id\":\"x\",\"at\":\"2026-11-20T10:00:00.125Z\"}");
    assertThat(fast.readValue(json, Event.class)).isEqualTo(e);
  }

  record Formatted(@JsonFormat(shape =
      JsonFormat.Shape.NUMBER) Instant number,
      @JsonFormat(pattern = "yyyy-MM-dd HH:mm", timezone = "UTC") Instant pattern,
      Instant plain) {
  }

  @Test
  void aPropertyWithItsOwnFormatIsWrittenAndReadByTheModule() throws Exception {
    Instant at = Instant.parse("2026-11-20T10:07:00Z");
    Formatted f = new Formatted(at, at, at);
    String json = fast.writeValueAsString(f);
    assertThat(json).isEqualTo(reference.writeValueAsString(f))
        .isEqualTo("{\"number\":1795169220.000000000,\"pattern\":\"2026-11-20 10:07\",\"plain\":\"2026-11-20T10:07:00Z\"}");
    assertThat(fast.readValue(json, Formatted.class)).isEqualTo(reference.readValue(json, Formatted.class))
        .isEqualTo(f);
  }

  @Test
  void theSharedMapperWritesAndReadsInstantsThroughTheFastPath() throws Exception {
    assertThat(fast.getSerializerProviderInstance().findValueSerializer(Instant.class).getClass().getName())
        .isEqualTo(IsoInstants.class.getName() + "$Writer");
    var ctxt = ((DefaultDeserializationContext) fast.getDeserializationContext())
        .createInstance(fast.getDeserializationConfig(), fast.createParser("0"), null);
    assertThat(ctxt.findRootValueDeserializer(fast.constructType(Instant.class)).getClass().getName())
        .isEqualTo(IsoInstants.class.getName() + "$Reader");
  }

  @Test
  void aSchemaOfAnInstantIsTheModulesDateTimeString() throws Exception {
    List<String> seen = new ArrayList<>();
    for (ObjectMapper m : List.of(fast, reference)) {
      m.acceptJsonFormatVisitor(Instant.class, new com.fasterxml.jackson.databind.jsonFormatVisitors
          .JsonFormatVisitorWrapper.Base() {
        @Override
        public com.fasterxml.jackson.databind.jsonFormatVisitors.JsonStringFormatVisitor expectStringFormat(
            JavaType type) {
          return new com.fasterxml.jackson.databind.jsonFormatVisitors.JsonStringFormatVisitor.Base() {
            @Override
            public void format(com.fasterxml.jackson.databind.jsonFormatVisitors.JsonValueFormat format) {
              seen.add("string " + format);
            }
          };
        }
      });
    }
    assertThat(seen).containsExactly("string date-time", "string date-time");
  }

  /** The value read, or the error's type and message. */
  private static String answer(ObjectMapper mapper, String json) {
    try {
      return "value " + mapper.readValue(json, Instant.class);
    } catch (Exception e) {
      return e.getClass().getName() + ": " + e.getMessage().replaceAll("\\(through reference chain.*", "");
    }
  }
}
