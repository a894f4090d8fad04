package io.stunwatch.model.json.fast;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.stunwatch.model.Samples;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * {@link PlainTokens} against its reference, the parser of {@link Json#mapper()}: a payload it reads to the end must
 * give that parser's tokens, names and values, and whatever that parser refuses it must decline.
 */
class PlainTokensTest {

  /** The mapper's parser, less the duplicate-field check, which {@link RecordReader} makes (not the tokens). */
  private static final JsonFactory REFERENCE = Json.mapper().getFactory().rebuild()
      .disable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  @Test
  void wellFormedPayloadsGiveTheReferenceParsersTokensAndValues() {
    List<String> payloads = List.of(
        "{}", "[]", "{\"a\":[]}", " \t\r\n{ \"a\" : 1 , \"b\" : [ 1 , 2 ] } \n",
        "{\"s\":\"plain\",\"e\":\"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\"}",
        "{\"u\":\"\\u0041\\u00e9\\u20AC\\ud83d\\ude00\\u0000\\uD800x\"}",
        "{\"n\":\"caf\u00e9 \u20ac \ud83d\ude00 \u0800 \uffff\",\"del\":\"\u007f\"}",
        "{\"caf\u00e9\":1,\"\\u0061b\":2}",
        "{\"i\":[0,-0,7,-7,2147483647,2147483648,-2147483648,-2147483649,9223372036854775807,"
            + "-9223372036854775808,9223372036854775808,-9223372036854775809,123456789012345678901234567890]}",
        "{\"d\":[0.0,-0.0,1.5,-1.5e-3,1e5,1E+5,2e-0,1.7976931348623157e308,4.9e-324,1e400,0.1,100.0]}",
        "{\"l\":[true,false,null,{\"x\":{\"y\":[[],{}]}}]}");
    for (String json : payloads) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      assertThat(tokens(bytes)).as(json).isNotNull().isEqualTo(reference(bytes));
    }
  }

  @Test
  void whatTheReferenceParserRefusesIsDeclined() {
    List<String> payloads = List.of(
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}", "{\"a\":-}", "{\"a\":NaN}", "{\"a\":-Infinity}",
        "{\"a\":1e}", "{\"a\":1e+}", "{\"a\":[1,]}", "{\"a\":1,}", "{'a':1}", "{a:1}", "{\"a\":tru}",
        "{\"a\":truex}", "{\"a\":1x}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u00g0\"}", "{\"a\":\"\\u00\"}",
        "{\"a\":\"tab\there\"}", "{\"a\" 1}", "{\"a\":1 \"b\":2}", "{\"a\":1]", "[1}", "{\"a\":\"open}",
        "{\"a\":1 // note\n}", "{\"a\":1 /* note */}", "{\"a\":1", "{,\"a\":1}", "{\"a\":[,1]}", "{\"a\"}");
    for (String json : payloads) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      assertThat(catchThrowable(() -> reference(bytes))).as("the reference refuses %s", json).isNotNull();
      assertThat(tokens(bytes)).as(json).isNull();
    }
  }

  /**
   * Jackson refuses a broken surrogate pair in a field name but takes one in a value (as a lone UTF-16 unit): a
   * name with any escaped surrogate is declined, and a value's is read as the reference reads it.
   */
  @Test
  void anEscapedSurrogateInANameIsDeclinedAndInAValueReadAsTheReferenceReadsIt() {
    for (String json : List.of("{\"a\\ud83dd\":1}", "{\"a\\ude00\":1}")) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      assertThat(catchThrowable(() -> reference(bytes))).as("the reference refuses %s", json).isNotNull();
      assertThat(tokens(bytes)).as(json).isNull();
    }
    assertThat(tokens("{\"a\\ud83d\\ude00\":1}".getBytes(StandardCharsets.UTF_8))).isNull(); // paired: declined
    for (String json : List.of("{\"a\":\"x\\ud83dy\"}", "{\"a\":\"x\\ude00\"}", "{\"a\":\"\\ud83d\\ude00\"}")) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      assertThat(tokens(bytes)).as(json).isNotNull().isEqualTo(reference(bytes));
    }
  }

  @Test
  void bytesThatAreNotStrictlyUtf8AreDeclined() {
    // Overlong forms, encoded surrogates and code points past U+10FFFF, which the JDK's decoder would not give back
    // as Jackson does, and broken sequences, which Jackson refuses.
    for (String hex : List.of("c080", "e08080", "eda080", "f4908080", "f8888080", "80", "c3", "e282", "c328", "ff")) {
      byte[] bytes = concat("{\"a\":\"x", HexFormat.of().parseHex(hex), "\"}");
      assertThat(tokens(bytes)).as(hex).isNull();
    }
    byte[] bom = concat("", HexFormat.of().parseHex("efbbbf"), "{\"a\":1}");
    assertThat(tokens(bom)).as("a byte-order mark, left to Jackson").isNull();
    assertThat(reference(bom)).isEqualTo(reference("{\"a\":1}".getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Decimals around the fast path's edge (up to {@value JsonNumbers#SHORT_DECIMAL_DIGITS} digits and no exponent;
   * more digits and exponents take the full parser): the same double, bit for bit, as the reference parser and the
   * JDK give, signed zeros and the smallest and largest scales included.
   */
  @Test
  void shortDecimalsAreTheReferencesDoublesBitForBit() {
    Random random = new Random(20261123);
    List<String> numbers = new ArrayList<>(List.of("0.0", "-0.0", "0.1", "0.2", "0.3", "-0.000000000000001",
        "999999999999999.9", "99999999999999.9", "9007199254740993.0", "0.30000000000000004", "1.5e0", "45.0",
        "70.23", "-273.15", "0.000000000000001", "0.0000000000000001", "123456789012345.0", "1234567890123456.0"));
    for (int n = 0; n < 20_000; n++) {
      int digits = 1 + random.nextInt(JsonNumbers.SHORT_DECIMAL_DIGITS + 2);
      StringBuilder d = new StringBuilder();
      for (int k = 0; k < digits; k++) {
        d.append((char) ('0' + random.nextInt(10)));
      }
      int point = random.nextInt(digits); // at least one digit before the point and one after
      String intPart = d.substring(0, point + 1).replaceFirst("^0+(?=\\d)", "");
      String fraction = d.substring(point + 1);
      numbers.add((random.nextBoolean() ? "-" : "") + intPart + "." + (fraction.isEmpty() ? "0" : fraction));
    }
    for (String number : numbers) {
      byte[] bytes = ("{\"d\":" + number + "}").getBytes(StandardCharsets.UTF_8);
      List<String> plain = tokens(bytes);
      assertThat(plain).as(number).isEqualTo(reference(bytes));
      assertThat(plain.get(2)).as(number)
          .isEqualTo("VALUE_NUMBER_FLOAT FLOAT " + Double.doubleToRawLongBits(Double.parseDouble(number)));
    }
  }

  @Test
  void nestingPastTheLimitIsDeclined() {
    String deep = "[".repeat(PlainTokens.MAX_DEPTH) + "]".repeat(PlainTokens.MAX_DEPTH);
    assertThat(tokens(deep.getBytes(StandardCharsets.UTF_8))).isNotNull();
    String deeper = "[" + deep + "]";
    assertThat(tokens(deeper.getBytes(StandardCharsets.UTF_8))).isNull();
  }

  @Test
  void objectsAndArraysNestedToTheLimitCloseAsTheyOpened() {
    StringBuilder open = new StringBuilder();
    StringBuilder close = new StringBuilder();
    for (int d = 1; d <= PlainTokens.MAX_DEPTH; d++) {
      boolean object = d % 3 != 0; // objects and arrays at every distance from the top and the limit
      open.append(object ? "{\"k\":" : "[");
      close.insert(0, object ? "}" : "]");
    }
    byte[] bytes = (open + "1" + close).getBytes(StandardCharsets.UTF_8);
    assertThat(tokens(bytes)).isNotNull().isEqualTo(reference(bytes));
  }

  @Test
  void aStringScanStopsAtEveryByteThatIsNotPlainWhereverItStands() {
    // Each byte value at each of sixteen places: a scan that reads words rather than bytes must still stop at every
    // byte that is not plain, wherever it falls in a word.
    for (int v = 0; v < 256; v++) {
      for (int at = 0; at < 16; at++) {
        byte[] text = "abcdefghijklmnopqrst".getBytes(StandardCharsets.US_ASCII);
        text[at] = (byte) v;
        byte[] bytes = new byte[text.length + 2];
        bytes[0] = '"';
        System.arraycopy(text, 0, bytes, 1, text.length);
        bytes[bytes.length - 1] = '"';
        List<String> reference;
        try {
          reference = reference(bytes);
        } catch (IllegalStateException refused) {
          reference = null;
        }
        boolean plain = v >= 0x20 && v < 0x80 && v != '"' && v != '\\';
        if (v != '\\') { // an escape, valid or not by the byte after it
          assertThat(reference == null).as("the reference refuses byte %d at %d", v, at).isEqualTo(!plain);
        }
        assertThat(tokens(bytes)).as("byte %d at %d", v, at).isEqualTo(reference);
      }
    }
  }

  /**
   * Seeded byte-level mutations of every catalog type's encoding: bytes inserted, replaced and deleted, from an
   * alphabet of JSON's structural characters, escapes, digits and UTF-8 sequences both valid and not. Every payload
   * the tokenizer reads to the end must give the reference parser's tokens; every payload must decode as the data
   * binding decodes it (value or message).
   */
  @Test
  void byteMutationsOfEveryCatalogTypeTokenizeAndDecodeAsTheReference() {
    Random random = new Random(20261123);
    List<Object> samples = Samples.all();
    int read = 0;
    int declined = 0;
    int refused = 0;
    for (int round = 0; round < 400; round++) {
      for (int i = 0; i < samples.size(); i++) {
        Topic<?, ?> topic = Topics.ALL.get(i);
        JsonSerde<?> serde = topic.valueSerde();
        byte[] bytes = mutate(encode(topic, samples.get(i)), random);
        String what = serde.schemaName() + ": " + new String(bytes, StandardCharsets.UTF_8);
        List<String> plain = tokens(bytes);
        List<String> reference = null;
        Throwable refusal = catchThrowable(() -> reference(bytes));
        if (refusal == null) {
          reference = reference(bytes);
        } else {
          refused++;
        }
        if (plain == null) {
          declined++;
        } else {
          read++;
          assertThat(plain).as(what).isEqualTo(reference);
        }
        assertThat(outcome(() -> serde.decode(bytes))).as(what).isEqualTo(outcome(() -> serde.bound(bytes)));
      }
    }
    // Both sides of the tokenizer, and the reference's refusals: otherwise this checks nothing.
    assertThat(read).isGreaterThan(1000);
    assertThat(declined).isGreaterThan(1000);
    assertThat(refused).isGreaterThan(1000);
  }

  private static final List<byte[]> ALPHABET = List.of(bytes("{"), bytes("}"), bytes("["), bytes("]"), bytes(","),
      bytes(":"), bytes("\""), bytes("\\"), bytes("\\n"), bytes("\\u00e9"), bytes("\\ud83d"), bytes("\\q"), bytes(" "),
      bytes("\t"), bytes("\u0001"), bytes("0"), bytes("7"), bytes("-"), bytes("."), bytes("e"), bytes("+"),
      bytes("true"), bytes("null"), bytes("x"), bytes("é"), bytes("\u20ac"), bytes("\ud83d\ude00"),
      new byte[] {(byte) 0xc0, (byte) 0x80}, new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
      new byte[] {(byte) 0x80}, new byte[] {(byte) 0xe2, (byte) 0x82});

  private static byte[] mutate(byte[] in, Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = random.nextInt(in.length);
    int kind = random.nextInt(3);
    out.write(in, 0, at);
    byte[] piece = ALPHABET.get(random.nextInt(ALPHABET.size()));
    if (kind != 2) {
      out.write(piece, 0, piece.length); // inserted, or replacing the byte at
    }
    int skip = kind == 0 ? 0 : 1;
    out.write(in, at + skip, in.length - at - skip);
    return out.toByteArray();
  }

  /** The tokens as the tokenizer reads them, or null when it declines. */
  private static List<String> tokens(byte[] bytes) {
    PlainTokens p = new PlainTokens(bytes);
    List<String> out = new ArrayList<>();
    try {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        out.add(describe(t, t == JsonToken.FIELD_NAME ? p.currentName() : null,
            t == JsonToken.VALUE_STRING ? p.getText() : null, numberOf(t, p.getNumberType(), p::getLongValue,
                p::getDoubleValue)));
      }
      return out;
    } catch (RuntimeException e) {
      if (e != RecordReader.DECLINE) {
        throw e;
      }
      return null;
    }
  }

  /** The tokens as the reference parser reads them; throws where it refuses the payload. */
  private static List<String> reference(byte[] bytes) {
    List<String> out = new ArrayList<>();
    try (JsonParser p = REFERENCE.createParser(bytes)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        boolean number = t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT;
        JsonParser.NumberType type = number ? p.getNumberType() : null;
        out.add(describe(t, t == JsonToken.FIELD_NAME ? p.currentName() : null,
            t == JsonToken.VALUE_STRING ? p.getText() : null, numberOf(t, type, () -> {
              try {
                return p.getLongValue();
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            }, () -> {
              try {
                return p.getDoubleValue();
              } catch (IOException e) {
                throw new IllegalStateException(e);
              }
            })));
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  private static String numberOf(JsonToken t, JsonParser.NumberType type, LongSupplier asLong,
      DoubleSupplier asDouble) {
    if (t == JsonToken.VALUE_NUMBER_INT) {
      // As RecordReader reads an integer: the type, and the value as a long and a double where they are defined.
      return type == JsonParser.NumberType.BIG_INTEGER ? "BIG_INTEGER"
          : type + " " + asLong.getAsLong() + " " + Double.doubleToRawLongBits(asDouble.getAsDouble());
    }
    if (t == JsonToken.VALUE_NUMBER_FLOAT) {
      return "FLOAT " + Double.doubleToRawLongBits(asDouble.getAsDouble());
    }
    return null;
  }

  private static String describe(JsonToken t, String name, String text, String number) {
    return t + (name == null ? "" : " name=" + name) + (text == null ? "" : " text=" + text)
        + (number == null ? "" : " " + number);
  }

  /** A decode's value or its error message. */
  private static Object outcome(Supplier<Object> decode) {
    try {
      return decode.get();
    } catch (SchemaException e) {
      return "refused: " + e.reason();
    }
  }

  @SuppressWarnings("unchecked")
  private static <V> byte[] encode(Topic<?, V> topic, Object value) {
    return topic.valueSerde().encode((V) value);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(String head, byte[] middle, String tail) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes(head));
    out.writeBytes(middle);
    out.writeBytes(bytes(tail));
    return out.toByteArray();
  }
}
