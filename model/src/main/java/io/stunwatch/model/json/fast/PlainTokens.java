package io.stunwatch.model.json.fast;

import com.fasterxml.jackson.core.JsonParser.NumberType;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.NumberInput;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * The JSON tokens of one UTF-8 payload, read straight from its bytes for {@link RecordReader}.
 *
 * <p>Contract: on a payload that {@link Json#mapper()}'s parser reads without error, every token, field name and
 * value is the one that parser gives; anything else, and anything this tokenizer does not take on, ends in
 * {@link RecordReader#DECLINE}, never in an error of its own. What it does not take on, so that the data binding
 * decides: a byte-order mark or any encoding but UTF-8; a byte sequence that is not strictly UTF-8 (overlong forms
 * and encoded surrogates included); nesting deeper than {@value #MAX_DEPTH}; a number longer than
 * {@value #MAX_NUMBER_LENGTH} characters; a string longer than {@value #MAX_STRING_BYTES} bytes. It is strict
 * wherever Jackson is as {@link Json} configures it: no comments, no unquoted or single-quoted names, no leading
 * zeros, NaN or trailing commas, no unescaped control characters in strings, and only JSON's own escapes.
 *
 * <p>Why not Jackson's own parser, which {@link RecordReader} read before: decoding is a fifth of the stream thread.
 * Read straight from the bytes, with no parser set up per payload and field names matched against the record's
 * component names as bytes, a GPU sample decodes in about 0.8 of the time it took through that parser.
 */
public final class PlainTokens {

  static final int MAX_DEPTH = 64;
  /** Jackson's default {@code StreamReadConstraints} refuse a longer number. */
  static final int MAX_NUMBER_LENGTH = 1000;
  static final int MAX_STRING_BYTES = 1 << 20;

  private static final int START = 0;
  private static final int AFTER_VALUE = 1;
  private static final int AFTER_NAME = 2;

  private final byte[] b;
  private final int end;
  private int pos;

  /**
   * Per depth from 1 to {@value #MAX_DEPTH}, whether the container is an object: bit {@code depth - 1}. A word, not
   * an array: this tokenizer is made for every payload, and the array was a tenth of what decoding one allocated.
   */
  private long objects;
  private int depth;
  /** Where the current container stands: {@link #START}, {@link #AFTER_VALUE} or {@link #AFTER_NAME}. */
  private int phase;
  private boolean rootDone;

  private JsonToken token;
  /** The current field name's bytes, and whether they need decoding (an escape or a non-ASCII byte). */
  private int nameStart;
  private int nameLength;
  private boolean nameCoded;
  private String name;
  /** The current string or number's bytes; for a string, whether they need decoding. */
  private int valueStart;
  private int valueLength;
  private boolean valueCoded;
  private long longValue;
  private NumberType numberType;

  public PlainTokens(byte[] data) {
    this.b = data;
    this.end = data.length;
  }

  JsonToken currentToken() {
    return token;
  }

  /** The next token, or null after the root value when only whitespace is left. */
  public JsonToken nextToken() {
    int c = skipWhitespace();
    if (depth == 0) {
      if (c < 0) {
        return token = null;
      }
      if (rootDone) {
        throw RecordReader.DECLINE; // a second root value: the caller refuses trailing content anyway
      }
      return token = value(c);
    }
    if ((objects & 1L << depth - 1) != 0) {
      if (phase == AFTER_NAME) {
        return token = value(c);
      }
      if (c == '}') {
        return token = close(JsonToken.END_OBJECT);
      }
      if (phase == AFTER_VALUE) {
        expect(c, ',');
        c = skipWhitespace();
      }
      return token = name(c);
    }
    if (c == ']') {
      return token = close(JsonToken.END_ARRAY);
    }
    if (phase == AFTER_VALUE) {
      expect(c, ',');
      c = skipWhitespace();
    }
    return token = value(c);
  }

  /** The current field name (after {@link JsonToken#FIELD_NAME}). */
  public String currentName() {
    if (name == null) {
      name = JsonStrings.text(b, nameStart, nameLength, nameCoded);
    }
    return name;
  }

  /**
   * The index of the current field name among {@code names} (each a name's UTF-8 bytes), or -1; the search starts
   * at {@code from}, as fields mostly come in the order their record declares them. A name without escapes is
   * compared as bytes, with no string made of it.
   */
  int nameIndex(byte[][] names, int from) {
    return JsonStrings.indexAmong(b, names, from, nameStart, nameLength, nameCoded ? currentName() : null);
  }

  /**
   * Reads the next token when it is the field name of {@code pattern} ({@link JsonStrings#fieldPattern}) and the bytes
   * from here to its colon are exactly the pattern, after a comma when a field came before it: no whitespace, no
   * escape. The token is then that {@link JsonToken#FIELD_NAME}, with everything about it as {@link #nextToken} would
   * have left it, and the result is true; otherwise nothing has moved and the result is false.
   *
   * <p>Why: a record's fields come in the order its encoder wrote them, compactly, so the next name is nearly always
   * the one expected; one comparison of its bytes takes the place of scanning it, checking each of its bytes, the
   * whitespace around it and the colon, and then looking it up among the record's names (together about a fifth of
   * walking a sample's tokens).
   */
  boolean nextFieldIs(byte[] pattern) {
    if (pattern == null || depth == 0 || (objects & 1L << depth - 1) == 0 || phase == AFTER_NAME) {
      return false;
    }
    int at = pos;
    if (phase == AFTER_VALUE) {
      if (at >= end || b[at] != ',') {
        return false;
      }
      at++;
    }
    int n = pattern.length;
    if (end - at < n || !Arrays.equals(b, at, at + n, pattern, 0, n)) {
      return false;
    }
    nameStart = at + 1;
    nameLength = n - 3;
    nameCoded = false;
    name = null;
    pos = at + n;
    phase = AFTER_NAME;
    token = JsonToken.FIELD_NAME;
    return true;
  }

  /**
   * The index of the current string value among {@code texts} (each a text's UTF-8 bytes), or -1. A value without
   * escapes is compared as bytes, with no string made of it (an enum constant's name, on every counter of a sample).
   */
  int textIndex(byte[][] texts) {
    return JsonStrings.indexAmong(b, texts, 0, valueStart, valueLength, valueCoded ? getText() : null);
  }

  /** The current string value (after {@link JsonToken#VALUE_STRING}). */
  String getText() {
    return JsonStrings.text(b, valueStart, valueLength, valueCoded);
  }

  /**
   * The current string as an instant of {@link IsoInstants#parse}'s one form, or null when it is not one. Read from
   * the bytes, with no string made of them (every record carries a timestamp).
   */
  Instant getInstant() {
    return valueCoded ? IsoInstants.parse(getText()) : IsoInstants.parse(b, valueStart, valueLength);
  }

  /** Of the current integer: {@code INT}, {@code LONG} or {@code BIG_INTEGER}, as Jackson classes it. */
  public NumberType getNumberType() {
    return token == JsonToken.VALUE_NUMBER_FLOAT ? NumberType.DOUBLE : numberType;
  }

  public int getIntValue() {
    return (int) longValue;
  }

  long getLongValue() {
    return longValue;
  }

  /** The current number as a double, as Jackson's parser gives it (its fast parser rounds as the JDK's does). */
  double getDoubleValue() {
    if (token == JsonToken.VALUE_NUMBER_INT) {
      return longValue;
    }
    double exact = JsonNumbers.shortDecimal(b, valueStart, valueLength);
    if (exact == exact) {
      return exact;
    }
    return NumberInput.parseDouble(new String(b, valueStart, valueLength, StandardCharsets.ISO_8859_1), true);
  }

  private int skipWhitespace() {
    while (pos < end) {
      byte c = b[pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return c & 0xFF;
      }
      pos++;
    }
    return -1;
  }

  private void expect(int c, char wanted) {
    if (c != wanted) {
      throw RecordReader.DECLINE;
    }
    pos++;
  }

  private JsonToken close(JsonToken t) {
    pos++;
    depth--;
    phase = AFTER_VALUE;
    rootDone = depth == 0;
    return t;
  }

  private JsonToken name(int c) {
    if (c != '"') {
      throw RecordReader.DECLINE;
    }
    nameStart = pos + 1;
    nameCoded = scanString(true);
    nameLength = pos - 1 - nameStart;
    name = null;
    expect(skipWhitespace(), ':');
    phase = AFTER_NAME;
    return JsonToken.FIELD_NAME;
  }

  private JsonToken value(int c) {
    JsonToken t;
    switch (c) {
      case '{', '[' -> {
        if (depth == MAX_DEPTH) {
          throw RecordReader.DECLINE;
        }
        pos++;
        depth++;
        long bit = 1L << depth - 1;
        objects = c == '{' ? objects | bit : objects & ~bit;
        phase = START;
        return c == '{' ? JsonToken.START_OBJECT : JsonToken.START_ARRAY;
      }
      case '"' -> {
        valueStart = pos + 1;
        valueCoded = scanString(false);
        valueLength = pos - 1 - valueStart;
        t = JsonToken.VALUE_STRING;
      }
      case 't' -> t = literal("true", JsonToken.VALUE_TRUE);
      case 'f' -> t = literal("false", JsonToken.VALUE_FALSE);
      case 'n' -> t = literal("null", JsonToken.VALUE_NULL);
      default -> t = number(c);
    }
    phase = AFTER_VALUE;
    rootDone = depth == 0;
    return t;
  }

  private JsonToken literal(String word, JsonToken t) {
    int n = word.length();
    if (end - pos < n) {
      throw RecordReader.DECLINE;
    }
    for (int i = 0; i < n; i++) {
      if (b[pos + i] != word.charAt(i)) {
        throw RecordReader.DECLINE;
      }
    }
    pos += n;
    requireDelimiter();
    return t;
  }

  /** After a number or literal: Jackson refuses {@code truex} or {@code 1a} as one unrecognized token. */
  private void requireDelimiter() {
    if (pos < end) {
      byte c = b[pos];
      if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        throw RecordReader.DECLINE;
      }
    }
  }

  private JsonToken number(int c) {
    int start = pos;
    boolean negative = c == '-';
    if (negative) {
      pos++;
    }
    int digitsStart = pos;
    if (pos >= end || !digit(b[pos])) {
      throw RecordReader.DECLINE; // not a value at all, or a lone minus
    }
    if (b[pos] == '0') {
      pos++;
      if (pos < end && digit(b[pos])) {
        throw RecordReader.DECLINE; // a leading zero
      }
    } else {
      while (pos < end && digit(b[pos])) {
        pos++;
      }
    }
    int digitsEnd = pos;
    boolean fraction = false;
    if (pos < end && b[pos] == '.') {
      pos++;
      fraction = true;
      digits();
    }
    if (pos < end && (b[pos] == 'e' || b[pos] == 'E')) {
      pos++;
      fraction = true;
      if (pos < end && (b[pos] == '+' || b[pos] == '-')) {
        pos++;
      }
      digits();
    }
    requireDelimiter();
    valueStart = start;
    valueLength = pos - start;
    if (valueLength > MAX_NUMBER_LENGTH) {
      throw RecordReader.DECLINE;
    }
    if (fraction) {
      return JsonToken.VALUE_NUMBER_FLOAT;
    }
    int digits = digitsEnd - digitsStart;
    if (digits <= 18) {
      long v = 0;
      for (int i = digitsStart; i < digitsEnd; i++) {
        v = v * 10 + (b[i] - '0');
      }
      longValue = negative ? -v : v;
    } else {
      try {
        longValue = Long.parseLong(new String(b, start, valueLength, StandardCharsets.ISO_8859_1));
      } catch (NumberFormatException e) {
        numberType = NumberType.BIG_INTEGER;
        return JsonToken.VALUE_NUMBER_INT;
      }
    }
    numberType = longValue == (int) longValue ? NumberType.INT : NumberType.LONG;
    return JsonToken.VALUE_NUMBER_INT;
  }

  /** One or more digits. */
  private void digits() {
    if (pos >= end || !digit(b[pos])) {
      throw RecordReader.DECLINE;
    }
    while (pos < end && digit(b[pos])) {
      pos++;
    }
  }

  private static boolean digit(byte c) {
    return c >= '0' && c <= '9';
  }

  /**
   * Scans a string from just after its opening quote to just after its closing one, checking every escape and every
   * UTF-8 sequence as it goes: a string is refused even where nobody reads it (an unknown field), as Jackson's parser
   * refuses it. Returns whether the string needs decoding (an escape or a non-ASCII byte). A field name with an
   * escaped surrogate, paired or not, is declined: Jackson refuses a broken pair in a name but not in a value, and
   * no name of the catalog has one.
   */
  private boolean scanString(boolean name) {
    byte[] b = this.b;
    int end = this.end;
    int start = ++pos;
    int i = start;
    boolean coded = false;
    while (true) {
      while (i < end && JsonStrings.PLAIN[b[i] & 0xFF]) {
        i++;
      }
      if (i >= end) {
        throw RecordReader.DECLINE;
      }
      int c = b[i];
      if (c == '"') {
        break;
      }
      if (c == '\\') {
        coded = true;
        i = JsonStrings.escapeEnd(b, end, i, name);
      } else if (c < 0) {
        coded = true;
        i = JsonStrings.utf8End(b, end, i);
      } else {
        throw RecordReader.DECLINE; // an unescaped control character
      }
    }
    if (i - start > MAX_STRING_BYTES) {
      throw RecordReader.DECLINE;
    }
    pos = i + 1;
    return coded;
  }
}
