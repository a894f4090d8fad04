package io.stunwatch.model.json;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.json.fast.PlainTokens;
import io.stunwatch.model.json.fast.RecordReader;
import java.io.IOException;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Versioned JSON encoding of one bus message type, usable directly ({@link #encode}, {@link #decode}) and as a
 * Kafka {@link Serde}.
 *
 * <p>Wire form: a JSON object whose first field is {@code "v"} (the {@link Schema#version()}), followed by the
 * record's fields, with absent values omitted. For example:
 * {@code {"v":1,"vmId":"4c4c4544-...","timestamp":"2026-11-21T12:02:20.123Z","gpuIndex":0,...}}.
 *
 * <p>Decoding accepts {@code "v"} anywhere in the object, any version between {@link Schema#minVersion()} and
 * {@link Schema#version()}, and ignores unknown fields. Anything else is a {@link SchemaException} with a one-line
 * reason; a null payload decodes to null (a Kafka tombstone).
 *
 * @param <T> the record type, annotated with {@link Schema}
 */
public final class JsonSerde<T> implements Serde<T> {

  /** Name of the schema-version field. */
  public static final String VERSION_FIELD = "v";

  private final Class<T> type;
  private final String schemaName;
  private final int version;
  private final int minVersion;
  private final ObjectWriter writer;
  private final ObjectReader reader;
  /** The databind-free reader of the plain cases, or null when the type has none. */
  private final RecordReader<T> fast;

  private JsonSerde(Class<T> type) {
    Schema schema = type.getAnnotation(Schema.class);
    if (schema == null) {
      throw new IllegalArgumentException(type.getName() + " has no @Schema annotation");
    }
    if (schema.minVersion() < 1 || schema.minVersion() > schema.version()) {
      throw new IllegalArgumentException(type.getName() + ": @Schema minVersion must be in 1.." + schema.version());
    }
    this.type = type;
    this.schemaName = schema.name();
    this.version = schema.version();
    this.minVersion = schema.minVersion();
    this.writer = Json.mapper().writerFor(Envelope.class);
    this.reader = Json.mapper().readerFor(type);
    this.fast = type.isRecord() ? RecordReader.of(type) : null;
  }

  /** The serde of a {@link Schema}-annotated record type. */
  public static <T> JsonSerde<T> of(Class<T> type) {
    return new JsonSerde<>(type);
  }

  public Class<T> type() {
    return type;
  }

  public String schemaName() {
    return schemaName;
  }

  public int version() {
    return version;
  }

  /**
   * Encodes {@code value}; null encodes to null (a tombstone). The array must not be modified: a large value's
   * encoding is shared with the next encoding of the same value on this thread (see {@link EncodeMemo}).
   */
  public byte[] encode(T value) {
    if (value == null) {
      return null;
    }
    EncodeMemo memo = EncodeMemo.ofThread();
    byte[] known = memo.get(value, version);
    if (known != null) {
      return known;
    }
    try {
      byte[] out = writer.writeValueAsBytes(new Envelope(version, value));
      memo.put(value, version, out);
      return out;
    } catch (JsonProcessingException e) {
      // Only a bug in a record (an unserializable field) gets here; it must not be mistaken for bad input.
      throw new IllegalStateException("cannot encode " + schemaName + ": " + e.getOriginalMessage(), e);
    }
  }

  /**
   * Decodes one payload.
   *
   * @throws SchemaException with a one-line reason when the payload is not a valid {@code schemaName()} message
   */
  public T decode(byte[] data) {
    if (data == null) {
      return null;
    }
    if (data.length == 0) {
      throw new SchemaException("empty payload (0 bytes), expected a JSON " + schemaName + " object");
    }
    if (fast != null) {
      Object v = plain(data);
      if (v != RecordReader.DECLINED) {
        @SuppressWarnings("unchecked")
        T t = (T) v;
        return t;
      }
    }
    return bound(data);
  }

  /** {@link #decode} through Jackson's data binding alone: the reference {@link RecordReader} is held to. */
  public T bound(byte[] data) {
    try (JsonParser p = Json.mapper().createParser(data)) {
      JsonToken first = p.nextToken();
      if (first != JsonToken.START_OBJECT) {
        throw new SchemaException("expected a JSON object (" + schemaName + "), found " + describe(first));
      }
      // Fast path: our own encoder always writes "v" first, so the body can be read in the same pass.
      if (p.nextToken() == JsonToken.FIELD_NAME && VERSION_FIELD.equals(p.currentName())) {
        p.nextToken();
        checkVersion(p.currentToken() == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : null, p.getText());
        p.nextToken(); // the next FIELD_NAME or END_OBJECT: Jackson's bean reader resumes mid-object from here
        T value = reader.readValue(p);
        if (p.nextToken() != null) {
          JsonLocation loc = p.currentLocation();
          throw new SchemaException("not valid JSON at line " + loc.getLineNr() + ", column " + loc.getColumnNr()
              + ": trailing content after the " + schemaName + " object");
        }
        return value;
      }
    } catch (SchemaException e) {
      throw e;
    } catch (IOException e) {
      throw new SchemaException(reasonOf(e), e);
    }
    return decodeTree(data);
  }

  /**
   * Our own encoder's form ("v" first, then the fields) read by {@link RecordReader}, or {@link RecordReader#DECLINED}
   * for anything it leaves to the data binding: an error among them, which the data binding then reports.
   */
  public Object plain(byte[] data) {
    PlainTokens p = new PlainTokens(data);
    try {
      if (p.nextToken() != JsonToken.START_OBJECT || p.nextToken() != JsonToken.FIELD_NAME
          || !VERSION_FIELD.equals(p.currentName()) || p.nextToken() != JsonToken.VALUE_NUMBER_INT
          || p.getNumberType() != JsonParser.NumberType.INT) {
        return RecordReader.DECLINED;
      }
      int v = p.getIntValue();
      if (v < minVersion || v > version) {
        return RecordReader.DECLINED;
      }
      Object value = fast.read(p);
      return value == RecordReader.DECLINED || p.nextToken() != null ? RecordReader.DECLINED : value;
    } catch (RuntimeException e) {
      if (e != RecordReader.DECLINE) {
        throw e;
      }
      return RecordReader.DECLINED;
    }
  }

  /** Slow path for hand-written JSON whose "v" is not the first field. */
  private T decodeTree(byte[] data) {
    try {
      JsonNode tree = Json.mapper().readTree(data);
      JsonNode v = tree.get(VERSION_FIELD);
      if (v == null) {
        throw new SchemaException("missing schema version field \"" + VERSION_FIELD + "\" (" + schemaName
            + " expects " + versionRange() + ")");
      }
      checkVersion(v.isInt() ? v.intValue() : null, v.toString());
      ((ObjectNode) tree).remove(VERSION_FIELD);
      return reader.readValue(tree);
    } catch (SchemaException e) {
      throw e;
    } catch (IOException | IllegalArgumentException e) {
      throw new SchemaException(reasonOf(e), e);
    }
  }

  private void checkVersion(Integer v, String raw) {
    if (v == null) {
      throw new SchemaException("schema version \"" + VERSION_FIELD + "\" must be an integer, found " + raw);
    }
    if (v < minVersion || v > version) {
      throw new SchemaException("unsupported " + schemaName + " schema version " + v + " (this build reads "
          + versionRange() + ")");
    }
  }

  private String versionRange() {
    return minVersion == version ? String.valueOf(version) : minVersion + " to " + version;
  }

  private String reasonOf(Throwable e) {
    if (e instanceof ValueInstantiationException vie && vie.getCause() != null) {
      // A record's compact constructor rejected the values: its message already names the field.
      return "invalid " + schemaName + ": " + vie.getCause().getMessage();
    }
    if (e instanceof JsonMappingException jme && !jme.getPath().isEmpty()) {
      String path = jme.getPath().stream()
          .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining("."));
      String msg = firstLine(jme.getOriginalMessage());
      if (msg.startsWith("Cannot map `null` into type")) {
        msg = "is required"; // a missing primitive: Jackson's own text suggests a config switch, not the fix
      }
      return "invalid " + schemaName + " field '" + path + "': " + msg;
    }
    if (e instanceof JsonProcessingException jpe) {
      JsonLocation loc = jpe.getLocation();
      String where = loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
      String kind = e instanceof JsonMappingException ? "invalid " + schemaName : "not valid JSON";
      return kind + where + ": " + firstLine(jpe.getOriginalMessage());
    }
    return "cannot read " + schemaName + ": " + firstLine(String.valueOf(e.getMessage()));
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  private static String describe(JsonToken t) {
    return t == null ? "no content" : switch (t) {
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      default -> t.asString() == null ? t.name() : t.asString();
    };
  }

  @Override
  public Serializer<T> serializer() {
    return (topic, value) -> encode(value);
  }

  @Override
  public Deserializer<T> deserializer() {
    return (topic, data) -> {
      try {
        return decode(data);
      } catch (SchemaException e) {
        // Kafka only tells a Deserializer the topic; the consumer side adds partition and offset.
        throw new SerializationException("topic " + topic + ": " + e.reason(), e);
      }
    };
  }

  @Override
  public String toString() {
    return "JsonSerde[" + schemaName + " v" + version + "]";
  }

  /**
   * The encodings of large values a thread encoded, by the values' identity, each kept until its second use. A
   * migration's impact, with a timeline of up to a point a second (about 60-100 KB of JSON), is encoded for its topic
   * when the processor emits it and for its store when the task commits, and encoding it is the costliest step of
   * the stream thread. Bus records are deeply immutable (their lists are copies), so one value has one
   * encoding for each schema version; small values are not kept, as encoding them again costs less than looking them
   * up.
   *
   * <p>Why "until its second use" and this many: in a catch-up a stream thread emits some seventy impacts between two
   * commits (a commit a second, a migration every few seconds of stream time, minutes of stream time a second), and
   * with the sixteen most recent encodings kept, most were gone by the commit (profile: the store's encoding 3.9 % of
   * the stream threads, about as much as the topic's 4.1 %). An encoding is dropped when it is used again, so what
   * stays is what waits for its commit, and at most {@link #SLOTS} encodings or {@link #MAX_BYTES} bytes, the oldest
   * going first: a thread whose large values are encoded once (a collector's) keeps no more than that.
   */
  static final class EncodeMemo {
    /** Encodings shorter than this are not kept. */
    static final int MIN_BYTES = 4096;
    /** The most encodings kept (a power of two). */
    static final int SLOTS = 256;
    /** The most bytes of encodings kept. */
    static final long MAX_BYTES = 16L << 20;
    private static final ThreadLocal<EncodeMemo> OF_THREAD = ThreadLocal.withInitial(EncodeMemo::new);

    /** A ring from {@link #oldest}, {@link #used} slots long; a slot whose value is null was used and dropped. */
    private final Object[] values = new Object[SLOTS];
    private final int[] versions = new int[SLOTS];
    private final byte[][] encodings = new byte[SLOTS][];
    private int oldest;
    private int used;
    private long bytes;

    static EncodeMemo ofThread() {
      return OF_THREAD.get();
    }

    /** The encoding kept for {@code value}, which is then dropped, or null. */
    byte[] get(Object value, int version) {
      for (int n = used - 1; n >= 0; n--) {
        int i = (oldest + n) & (SLOTS - 1);
        if (values[i] == value && versions[i] == version) {
          byte[] e = encodings[i];
          drop(i);
          trim();
          return e;
        }
      }
      return null;
    }

    void put(Object value, int version, byte[] encoding) {
      if (encoding.length < MIN_BYTES || encoding.length > MAX_BYTES) {
        return;
      }
      while (used == SLOTS || bytes + encoding.length > MAX_BYTES) {
        drop(oldest);
        trim();
      }
      int i = (oldest + used) & (SLOTS - 1);
      values[i] = value;
      versions[i] = version;
      encodings[i] = encoding;
      bytes += encoding.length;
      used++;
    }

    /** How many encodings are kept, for tests. */
    int size() {
      int n = 0;
      for (int k = 0; k < used; k++) {
        n += values[(oldest + k) & (SLOTS - 1)] == null ? 0 : 1;
      }
      return n;
    }

    private void drop(int i) {
      if (values[i] != null) {
        bytes -= encodings[i].length;
        values[i] = null;
        encodings[i] = null;
      }
    }

    /** Moves the ring's start past dropped slots, so that a lookup scans only what may still be used. */
    private void trim() {
      while (used > 0 && values[oldest] == null) {
        oldest = (oldest + 1) & (SLOTS - 1);
        used--;
      }
      while (used > 0 && values[(oldest + used - 1) & (SLOTS - 1)] == null) {
        used--;
      }
    }
  }

  /** Writes "v" first, then the record's own fields flattened beside it. */
  @JsonPropertyOrder({VERSION_FIELD})
  private record Envelope(@JsonProperty(VERSION_FIELD) int v, @JsonUnwrapped Object body) {
    Envelope {
      Objects.requireNonNull(body);
    }
  }
}
