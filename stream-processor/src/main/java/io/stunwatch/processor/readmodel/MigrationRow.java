package io.stunwatch.processor.readmodel;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A migration as the list endpoints serve it, and the value of {@link StoreNames#MIGRATIONS_BY_VM} and
 * {@link StoreNames#MIGRATIONS_BY_START}: the fields the lists filter and sort on, and the two answers they give,
 * rendered once when {@link io.stunwatch.processor.processors.MigrationIndex} writes the row: the {@link MigrationSummary} as JSON and its Grafana
 * {@link MigrationAnnotation} as JSON.
 *
 * <p>Why rendered at write time: a row is written a few times per migration and read by every list request (every
 * Grafana panel, every refresh). Decoding each row into objects and rendering it with Jackson was most of a list
 * request's time, and caching the results by instance only helped while they fitted a table: a VM's history read
 * from a hundred thousand migrations missed half the time, and every miss was a young object the next GC pause
 * had to copy. A row read here allocates its stored bytes and this object, nothing that outlives the request.
 *
 * <p>Reading is lazy where it pays: the times, numbers and flags are read when a row is decoded; the strings (ids,
 * names, hosts) only when one of them is first asked for, because a day's annotations filter on times alone.
 *
 * <p>Stored form ({@value #VERSION}, the version byte first; format 1 was the binary {@link MigrationSummary}):
 * <pre>
 *   byte   version
 *   byte   flags: 1 under load, 2 has end, 4 has duration, 8 has stun seconds
 *   long   start epoch second, int start nano
 *   long   end epoch second, int end nano        (zero when there is no end)
 *   double duration seconds, double stun seconds (zero when absent)
 *   int n, n bytes: the summary's JSON
 *   int n, n bytes: the annotation's JSON
 *   int n, n bytes: {@value #STRINGS} strings, each an int length (-1 for null) and that many UTF-8 bytes: see
 *                   {@link #strings}
 * </pre>
 * A value of another version, or one whose lengths do not add up, is an {@link IllegalStateException} naming
 * {@value #NAME}: only a changed build, whose state must then be reset (docs/upgrading.md), or a bug makes one.
 * The strings' own lengths are checked when they are first read.
 */
public final class MigrationRow implements AnnotatedMigration {

  static final int VERSION = 2;
  static final String NAME = "store.migration-summary";

  private static final int UNDER_LOAD = 1;
  private static final int HAS_END = 2;
  private static final int HAS_DURATION = 4;
  private static final int HAS_STUN = 8;
  private static final int HEADER = 1 + 1 + 12 + 12 + 8 + 8;
  private static final int STRINGS = 19;
  private static final ObjectMapper JSON = Json.mapper();
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class,
      ByteOrder.BIG_ENDIAN);

  /** The stored form; never handed out, so a row is immutable. */
  private final byte[] bytes;
  private final int flags;
  private final long startSecond;
  private final int startNano;
  private final long endSecond;
  private final int endNano;
  private final double duration;
  private final double stun;
  private final int jsonOffset;
  private final int jsonLength;
  private final int annotationOffset;
  private final int annotationLength;
  private final int stringsOffset;
  /** Read on first use: {@link #strings()}; volatile so that a row read on one thread may be shared. */
  private volatile String[] strings;

  private MigrationRow(byte[] bytes) {
    this.bytes = bytes;
    // Only fixed-size fields and three lengths are read here: a day's annotations decode a thousand rows a request.
    if (bytes.length < HEADER + 12) {
      if (bytes.length > 0 && (bytes[0] & 0xff) != VERSION) {
        throw versionError(bytes[0] & 0xff);
      }
      throw new IllegalStateException(NAME + ": truncated value (" + bytes.length + " bytes)");
    }
    int v = bytes[0] & 0xff;
    if (v != VERSION) {
      throw versionError(v);
    }
    flags = bytes[1];
    startSecond = (long) LONG.get(bytes, 2);
    startNano = (int) INT.get(bytes, 10);
    endSecond = (long) LONG.get(bytes, 14);
    endNano = (int) INT.get(bytes, 22);
    duration = (double) DOUBLE.get(bytes, 26);
    stun = (double) DOUBLE.get(bytes, 34);
    jsonOffset = HEADER + 4;
    jsonLength = length(bytes, HEADER);
    annotationOffset = jsonOffset + jsonLength + 4;
    annotationLength = length(bytes, annotationOffset - 4);
    stringsOffset = annotationOffset + annotationLength + 4;
    int stringsLength = length(bytes, stringsOffset - 4);
    if (stringsOffset + stringsLength != bytes.length) {
      throw new IllegalStateException(NAME + ": " + (bytes.length - stringsOffset - stringsLength)
          + " bytes left over after the value");
    }
  }

  private static IllegalStateException versionError(int v) {
    return new IllegalStateException(NAME + ": state written in format " + v + ", this build reads " + VERSION
        + "; reset the processor's state (see docs/upgrading.md)");
  }

  /** The length at {@code at}, checked against what follows it. */
  private static int length(byte[] bytes, int at) {
    if (at + 4 > bytes.length) {
      throw new IllegalStateException(NAME + ": truncated value (" + bytes.length + " bytes)");
    }
    int n = (int) INT.get(bytes, at);
    if (n < 0 || n > bytes.length - at - 4) {
      throw new IllegalStateException(NAME + ": a part of " + n + " bytes at " + at + " in " + bytes.length
          + " (truncated?)");
    }
    return n;
  }

  /**
   * The row of {@code s}, rendered now.
   *
   * @throws IllegalArgumentException if the migration has no start time (an index orders and ranges by it)
   */
  public static MigrationRow of(MigrationSummary s) {
    Migration m = s.migration();
    if (m.startTime() == null) {
      throw new IllegalArgumentException("migration " + m.id() + " has no start time to index");
    }
    byte[] json;
    byte[] annotation;
    try {
      json = JSON.writeValueAsBytes(s);
      annotation = JSON.writeValueAsBytes(MigrationAnnotation.of(s));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    byte[][] text = new byte[STRINGS][];
    String[] values = {m.id(), m.vmId(), m.vmName(), m.vmMoref(), m.vgpuProfile(),
        m.state() == null ? null : m.state().name(), m.initiator() == null ? null : m.initiator().name()};
    int strings = 4 * STRINGS;
    for (int i = 0; i < values.length; i++) {
      text[i] = utf8(values[i]);
    }
    EntityRef[] refs = {m.sourceHost(), m.destHost(), m.sourceCluster(), m.destCluster()};
    for (int r = 0; r < refs.length; r++) {
      int i = values.length + 3 * r;
      text[i] = refs[r] == null ? null : utf8(refs[r].type());
      text[i + 1] = refs[r] == null ? null : utf8(refs[r].value());
      text[i + 2] = refs[r] == null ? null : utf8(refs[r].name());
    }
    for (byte[] t : text) {
      strings += t == null ? 0 : t.length;
    }
    int size = HEADER + 4 + json.length + 4 + annotation.length + 4 + strings;
    Double duration = m.durationSeconds();
    Double stun = s.stun() == null ? null : s.stun().seconds();
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put((byte) VERSION);
    b.put((byte) ((s.underLoad() ? UNDER_LOAD : 0) | (m.endTime() != null ? HAS_END : 0)
        | (duration != null ? HAS_DURATION : 0) | (stun != null ? HAS_STUN : 0)));
    b.putLong(m.startTime().getEpochSecond()).putInt(m.startTime().getNano());
    b.putLong(m.endTime() == null ? 0 : m.endTime().getEpochSecond()).putInt(m.endTime() == null ? 0
        : m.endTime().getNano());
    b.putDouble(duration == null ? 0 : duration).putDouble(stun == null ? 0 : stun);
    b.putInt(json.length).put(json).putInt(annotation.length).put(annotation).putInt(strings);
    for (byte[] t : text) {
      if (t == null) {
        b.putInt(-1);
      } else {
        b.putInt(t.length).put(t);
      }
    }
    return new MigrationRow(b.array());
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The row stored as {@code bytes}, which the row keeps (not a copy): the caller must not change them.
   *
   * @throws IllegalStateException if they are not a row of this format, naming {@value #NAME} and why
   */
  public static MigrationRow decode(byte[] bytes) {
    return new MigrationRow(bytes);
  }

  /** The serde of the two index stores: the stored bytes are the row's own, both ways, with no copy. */
  public static final Serde<MigrationRow> SERDE = Serdes.serdeFrom(
      (Serializer<MigrationRow>) (topic, row) -> row == null ? null : row.bytes,
      (Deserializer<MigrationRow>) (topic, data) -> data == null ? null : decode(data));

  /** Writes the summary's JSON, as {@link Json#mapper()} writes the {@link MigrationSummary}. */
  public void writeJson(Sink out) {
    out.write(bytes, jsonOffset, jsonLength);
  }

  public int jsonLength() {
    return jsonLength;
  }

  @Override
  public void writeAnnotation(Sink out) {
    out.write(bytes, annotationOffset, annotationLength);
  }

  /** The annotation's JSON, for an {@link AnnotationBlock} entry. */
  byte[] annotation() {
    return Arrays.copyOfRange(bytes, annotationOffset, annotationOffset + annotationLength);
  }

  @Override
  public int annotationLength() {
    return annotationLength;
  }

  /** Writes the stored form, which {@link #decode} reads (the API forwards rows between its instances so). */
  public void writeStored(Sink out) {
    out.write(bytes, 0, bytes.length);
  }

  public int storedLength() {
    return bytes.length;
  }

  /** The summary, read back from its JSON: for the rare answer that needs every field (CSV). */
  public MigrationSummary summary() {
    try {
      return JSON.readValue(bytes, jsonOffset, jsonLength, MigrationSummary.class);
    } catch (IOException e) {
      throw new IllegalStateException(NAME + ": the summary's JSON does not read back: " + e.getMessage(), e);
    }
  }

  public Instant startTime() {
    return Instant.ofEpochSecond(startSecond, startNano);
  }

  /** The end, or null while it runs. */
  public Instant endTime() {
    return (flags & HAS_END) != 0 ? Instant.ofEpochSecond(endSecond, endNano) : null;
  }

  @Override
  public boolean hasEnded() {
    return (flags & HAS_END) != 0;
  }

  @Override
  public long startEpochSecond() {
    return startSecond;
  }

  @Override
  public int startNano() {
    return startNano;
  }

  @Override
  public long endEpochSecond() {
    return endSecond;
  }

  @Override
  public int endNano() {
    return endNano;
  }

  public boolean underLoad() {
    return (flags & UNDER_LOAD) != 0;
  }

  /** {@link Migration#durationSeconds()}, or null. */
  public Double durationSeconds() {
    return (flags & HAS_DURATION) != 0 ? duration : null;
  }

  /** The stun time in seconds, or null while unknown. */
  public Double stunSeconds() {
    return (flags & HAS_STUN) != 0 ? stun : null;
  }

  @Override
  public String id() {
    return strings()[0];
  }

  @Override
  public String vmId() {
    return strings()[1];
  }

  @Override
  public String vmName() {
    return strings()[2];
  }

  public String vmMoref() {
    return strings()[3];
  }

  public String vgpuProfile() {
    return strings()[4];
  }

  public MigrationState state() {
    String s = strings()[5];
    return s == null ? null : MigrationState.valueOf(s);
  }

  public Initiator initiator() {
    String s = strings()[6];
    return s == null ? null : Initiator.valueOf(s);
  }

  public EntityRef sourceHost() {
    return ref(7);
  }

  public EntityRef destHost() {
    return ref(10);
  }

  public EntityRef sourceCluster() {
    return ref(13);
  }

  public EntityRef destCluster() {
    return ref(16);
  }

  private EntityRef ref(int i) {
    String[] s = strings();
    return s[i] == null ? null : new EntityRef(s[i], s[i + 1], s[i + 2]);
  }

  /**
   * The strings, in stored order: id, VM id, VM name, VM moref, vGPU profile, state, initiator, then type, value and
   * name of the source host, destination host, source cluster and destination cluster.
   */
  private String[] strings() {
    String[] s = strings;
    if (s == null) {
      s = new String[STRINGS];
      int at = stringsOffset;
      for (int i = 0; i < STRINGS; i++) {
        if (at + 4 > bytes.length) {
          throw new IllegalStateException(NAME + ": string " + i + " missing at " + at);
        }
        int n = (int) INT.get(bytes, at);
        at += 4;
        if (n != -1) {
          if (n < 0 || n > bytes.length - at) {
            throw new IllegalStateException(NAME + ": string " + i + " of " + n + " bytes in "
                + (bytes.length - at));
          }
          s[i] = new String(bytes, at, n, StandardCharsets.UTF_8);
          at += n;
        }
      }
      if (at != bytes.length) {
        throw new IllegalStateException(NAME + ": " + (bytes.length - at) + " bytes left over after the strings");
      }
      strings = s;
    }
    return s;
  }

  /** Rows are equal when their stored forms are: the index rewrites a row only when it changed. */
  @Override
  public boolean equals(Object o) {
    return o instanceof MigrationRow r && Arrays.equals(bytes, r.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "MigrationRow[" + new String(bytes, jsonOffset, jsonLength, StandardCharsets.UTF_8) + "]";
  }
}
