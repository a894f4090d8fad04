package io.stunwatch.processor.state;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Compact binary encoding of one internal state-store value type: written and read on every sample, where JSON
 * encoding cost most of the stream thread's time (docs/performance.md).
 *
 * <p>Only for values that never leave the processor: its own stores and their changelogs. Topics other programs
 * read keep the versioned JSON of the model. The first byte is the format version; a payload of another version,
 * one that ends early, or one its value's constructor refuses, is an {@link IllegalStateException} naming the store
 * value, since only a bug or a changed build (whose state must then be reset, see docs/upgrading.md) can produce one.
 *
 * <p>Nullable numbers are written as a presence byte and the value, so "unknown" survives the round trip.
 *
 * @param <T> the value type
 */
public abstract class StoreCodec<T> implements Serde<T> {

  private final String name;
  private final int version;
  private final int minVersion;

  /**
   * @param name    the value's name in errors (for example {@code store.vm-sample-second})
   * @param version the format version this codec writes and reads
   */
  protected StoreCodec(String name, int version) {
    this(name, version, version);
  }

  /**
   * @param minVersion the oldest format version this codec still reads ({@link #read(DataInputStream, int)})
   */
  protected StoreCodec(String name, int version, int minVersion) {
    this.name = name;
    this.version = version;
    this.minVersion = minVersion;
  }

  /** Writes the fields of {@code value}, which is never null. */
  protected abstract void write(Out out, T value);

  /** Reads what {@link #write} wrote. */
  protected abstract T read(DataInputStream in) throws IOException;

  /** Reads what {@link #write} wrote in format {@code version}; a codec that reads older formats overrides it. */
  protected T read(DataInputStream in, int version) throws IOException {
    return read(in);
  }

  public final byte[] encode(T value) {
    if (value == null) {
      return null;
    }
    Out out = BUFFERS.get();
    out.count = 0;
    out.writeByte(version);
    write(out, value);
    byte[] bytes = out.toByteArray();
    if (out.buf.length > MAX_KEPT_BUFFER) {
      out.buf = new byte[INITIAL_BUFFER];
    }
    return bytes;
  }

  /**
   * Each thread's buffer to encode into, reused: a fresh one grew by doubling, and the deferred stores encode every
   * value they write at each commit.
   */
  private static final ThreadLocal<Out> BUFFERS = ThreadLocal.withInitial(Out::new);
  private static final int INITIAL_BUFFER = 1024;
  /** A buffer grown past this (a large value: an hour's annotation block) is dropped after use, not kept. */
  private static final int MAX_KEPT_BUFFER = 64 * 1024;

  public final T decode(byte[] data) {
    if (data == null) {
      return null;
    }
    try (DataInputStream in = new DataInputStream(new UnsyncBytes(data))) {
      int v = in.readUnsignedByte();
      if (v < minVersion || v > version) {
        throw new IllegalStateException(name + ": state written in format " + v + ", this build reads "
            + (minVersion == version ? String.valueOf(version) : minVersion + " to " + version)
            + "; reset the processor's state (see docs/upgrading.md)");
      }
      T value = read(in, v);
      if (in.available() != 0) {
        throw new IllegalStateException(name + ": " + in.available() + " bytes left over after the value");
      }
      return value;
    } catch (EOFException e) {
      throw new IllegalStateException(name + ": truncated value (" + data.length + " bytes)", e);
    } catch (IllegalArgumentException e) {
      // A value its own constructor refuses (a block's second outside the block): as corrupt as a truncated one.
      throw new IllegalStateException(name + ": invalid value: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public final Serializer<T> serializer() {
    return (topic, value) -> encode(value);
  }

  @Override
  public final Deserializer<T> deserializer() {
    return (topic, data) -> decode(data);
  }

  protected static void writeNullable(Out out, Double v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeDouble(v);
    }
  }

  protected static Double readNullableDouble(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readDouble() : null;
  }

  protected static void writeNullable(Out out, Long v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v);
    }
  }

  protected static Long readNullableLong(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }

  protected static void writeNullable(Out out, Integer v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeInt(v);
    }
  }

  protected static Integer readNullableInt(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readInt() : null;
  }

  /** A string that may be null, of any length (unlike {@link Out#writeUTF}, limited to 64 KiB). */
  protected static void writeNullable(Out out, String v) {
    if (v == null) {
      out.writeInt(-1);
      return;
    }
    byte[] b = v.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  protected static String readNullableString(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n == -1) {
      return null;
    }
    if (n < 0 || n > in.available()) {
      throw new IllegalStateException("string of " + n + " bytes in " + in.available() + " bytes");
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  protected static void writeNullable(Out out, Instant v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v.getEpochSecond());
      out.writeInt(v.getNano());
    }
  }

  protected static Instant readNullableInstant(DataInputStream in) throws IOException {
    return in.readBoolean() ? Instant.ofEpochSecond(in.readLong(), in.readInt()) : null;
  }

  /** An enum by name, not ordinal: reordering constants must not change what stored state means. */
  protected static void writeNullable(Out out, Enum<?> v) {
    writeNullable(out, v == null ? null : v.name());
  }

  protected static <E extends Enum<E>> E readNullableEnum(DataInputStream in, Class<E> type) throws IOException {
    String name = readNullableString(in);
    if (name == null) {
      return null;
    }
    try {
      return Enum.valueOf(type, name);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("no " + type.getSimpleName() + " constant " + name, e);
    }
  }

  /** Writes a map's size and entries; {@code value} writes one value. */
  protected static <V> void writeMap(Out out, Map<String, V> map, Writer<V> value) {
    out.writeInt(map.size());
    for (Map.Entry<String, V> e : map.entrySet()) {
      out.writeUTF(e.getKey());
      value.write(out, e.getValue());
    }
  }

  protected static <V> Map<String, V> readMap(DataInputStream in, Reader<V> value) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IllegalStateException("map of " + n + " entries in " + in.available() + " bytes");
    }
    Map<String, V> map = new HashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      map.put(in.readUTF(), value.read(in));
    }
    return map;
  }

  // The compact forms below are for the values written most (a VM's live state, once per VM and commit): numbers as
  // varints where they are whole, identifiers that are UUIDs as their 16 bytes.

  /** A signed long as a zigzag varint: 1 byte for -64..63, 5 for an epoch second. */
  protected static void writeVarLong(Out out, long v) {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7FL) != 0) {
      out.writeByte((int) (z & 0x7F) | 0x80);
      z >>>= 7;
    }
    out.writeByte((int) z);
  }

  protected static long readVarLong(DataInputStream in) throws IOException {
    long z = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = in.readUnsignedByte();
      z |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return (z >>> 1) ^ -(z & 1);
      }
    }
    throw new IllegalStateException("varint longer than 10 bytes");
  }

  private static final int NUM_NULL = 0;
  private static final int NUM_WHOLE = 1;
  private static final int NUM_FLOAT = 2;
  private static final int NUM_DOUBLE = 3;
  /** A decimal fraction: a scale byte (1 to 3), then the number times ten to that power as a varint. */
  private static final int NUM_DECIMAL = 4;
  private static final double[] POWERS = {1, 10, 100, 1000};
  /** Whole numbers up to this magnitude are exact in a double, so a varint gives back the same double. */
  private static final double MAX_WHOLE = 1L << 53;

  /**
   * A number that may be null, in as few bytes as give it back exactly: a tag, then a varint when it is whole, the
   * four bytes of a float when a float holds it, else the eight of the double. (A utilization percent or a MiB figure
   * is whole: 2 or 3 bytes rather than 9.)
   */
  protected static void writeNumber(Out out, Double v) {
    if (v == null) {
      out.writeByte(NUM_NULL);
    } else {
      writeNumber(out, v.doubleValue());
    }
  }

  protected static void writeNumber(Out out, double d) {
    if (d == Math.rint(d) && Math.abs(d) <= MAX_WHOLE && !(d == 0 && 1 / d < 0)) {
      out.writeByte(NUM_WHOLE);
      writeVarLong(out, (long) d);
    } else if (writeDecimal(out, d)) {
      return;
    } else if ((double) (float) d == d || Double.isNaN(d)) {
      out.writeByte(NUM_FLOAT);
      out.writeInt(Float.floatToIntBits((float) d));
    } else {
      out.writeByte(NUM_DOUBLE);
      out.writeDouble(d);
    }
  }

  /**
   * Writes {@code d} as a decimal of up to three places when one gives it back exactly (a rate a log printed as
   * {@code 243.7}); false when none does.
   */
  private static boolean writeDecimal(Out out, double d) {
    if (d == 0 || Double.isNaN(d) || Double.isInfinite(d) || Math.abs(d) > MAX_WHOLE / 1000) {
      return false;
    }
    for (int scale = 1; scale < POWERS.length; scale++) {
      double scaled = Math.rint(d * POWERS[scale]);
      if (scaled / POWERS[scale] == d) {
        out.writeByte(NUM_DECIMAL);
        out.writeByte(scale);
        writeVarLong(out, (long) scaled);
        return true;
      }
    }
    return false;
  }

  protected static Double readNumber(DataInputStream in) throws IOException {
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case NUM_NULL -> null;
      case NUM_WHOLE -> (double) readVarLong(in);
      case NUM_FLOAT -> (double) Float.intBitsToFloat(in.readInt());
      case NUM_DOUBLE -> in.readDouble();
      case NUM_DECIMAL -> {
        int scale = in.readUnsignedByte();
        if (scale < 1 || scale >= POWERS.length) {
          throw new IllegalStateException("decimal scale " + scale);
        }
        yield readVarLong(in) / POWERS[scale];
      }
      default -> throw new IllegalStateException("number tag " + tag);
    };
  }

  protected static void writeNumber(Out out, Long v) {
    if (v == null) {
      out.writeByte(NUM_NULL);
    } else {
      out.writeByte(NUM_WHOLE);
      writeVarLong(out, v);
    }
  }

  protected static Long readWhole(DataInputStream in) throws IOException {
    int tag = in.readUnsignedByte();
    if (tag == NUM_NULL) {
      return null;
    }
    if (tag != NUM_WHOLE) {
      throw new IllegalStateException("a whole number's tag is " + NUM_WHOLE + ", not " + tag);
    }
    return readVarLong(in);
  }

  private static final int STR_NULL = 0;
  private static final int STR_TEXT = 1;
  private static final int STR_UUID = 2;
  /** nvidia-smi's GPU UUID: {@code GPU-} and a UUID. */
  private static final int STR_GPU_UUID = 3;
  private static final String GPU_PREFIX = "GPU-";

  /**
   * A string that may be null: a UUID in its canonical lower-case form (a VM's SMBIOS UUID) or nvidia-smi's
   * {@code GPU-<uuid>} as a tag and 16 bytes, anything else as a tag, a varint length and UTF-8.
   */
  protected static void writeCompact(Out out, String s) {
    if (s == null) {
      out.writeByte(STR_NULL);
      return;
    }
    if (Uuids.isCanonical(s, 0)) {
      out.writeByte(STR_UUID);
      Uuids.write(out, s, 0);
    } else if (s.startsWith(GPU_PREFIX) && Uuids.isCanonical(s, GPU_PREFIX.length())) {
      out.writeByte(STR_GPU_UUID);
      Uuids.write(out, s, GPU_PREFIX.length());
    } else {
      out.writeByte(STR_TEXT);
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      writeVarLong(out, b.length);
      out.write(b);
    }
  }

  protected static String readCompactString(DataInputStream in) throws IOException {
    int tag = in.readUnsignedByte();
    switch (tag) {
      case STR_NULL:
        return null;
      case STR_UUID:
        return Uuids.read(in);
      case STR_GPU_UUID:
        return GPU_PREFIX + Uuids.read(in);
      case STR_TEXT:
        long n = readVarLong(in);
        if (n < 0 || n > in.available()) {
          throw new IllegalStateException("string of " + n + " bytes in " + in.available() + " bytes");
        }
        byte[] b = new byte[(int) n];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
      default:
        throw new IllegalStateException("string tag " + tag);
    }
  }

  /** Writes a map's size (a varint) and entries, each key a compact string. */
  protected static <V> void writeCompactMap(Out out, Map<String, V> map, Writer<V> value) {
    writeVarLong(out, map.size());
    for (Map.Entry<String, V> e : map.entrySet()) {
      writeCompact(out, e.getKey());
      value.write(out, e.getValue());
    }
  }

  protected static <V> Map<String, V> readCompactMap(DataInputStream in, Reader<V> value) throws IOException {
    long n = readVarLong(in);
    if (n < 0 || n > in.available()) {
      throw new IllegalStateException("map of " + n + " entries in " + in.available() + " bytes");
    }
    Map<String, V> map = new HashMap<>((int) n * 2);
    for (int i = 0; i < n; i++) {
      map.put(readCompactString(in), value.read(in));
    }
    return map;
  }

  /**
   * A byte array as a stream, without {@link java.io.ByteArrayInputStream}'s per-read locking: {@link DataInputStream}
   * reads a number a byte at a time, and the locks were most of a decode's time.
   */
  private static final class UnsyncBytes extends InputStream {
    private final byte[] data;
    private int pos;

    UnsyncBytes(byte[] data) {
      this.data = data;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (pos >= data.length) {
        return -1;
      }
      int n = Math.min(len, data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }

    @Override
    public int available() {
      return data.length - pos;
    }
  }

  /**
   * The bytes of one value, written as {@link java.io.DataOutputStream} writes them (big-endian numbers, one byte a
   * flag, {@code writeUTF}'s modified UTF-8), the stores' encoding on disk and in changelogs, straight into
   * a growing array. Why not that stream: it writes a flag or a byte through a virtual call to the stream beneath and
   * a number through a buffer of its own, and the deferred window stores encode every window they write at each
   * commit.
   */
  public static final class Out {
    private byte[] buf = new byte[INITIAL_BUFFER];
    private int count;

    private void ensure(int more) {
      if (count + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
      }
    }

    public void writeByte(int v) {
      ensure(1);
      buf[count++] = (byte) v;
    }

    public void writeBoolean(boolean v) {
      writeByte(v ? 1 : 0);
    }

    public void writeInt(int v) {
      ensure(4);
      INT.set(buf, count, v);
      count += 4;
    }

    public void writeLong(long v) {
      ensure(8);
      LONG.set(buf, count, v);
      count += 8;
    }

    /** As {@link java.io.DataOutputStream#writeDouble}: the bits of {@link Double#doubleToLongBits}. */
    public void writeDouble(double v) {
      writeLong(Double.doubleToLongBits(v));
    }

    public void write(byte[] b) {
      ensure(b.length);
      System.arraycopy(b, 0, buf, count, b.length);
      count += b.length;
    }

    /**
     * As {@link java.io.DataOutputStream#writeUTF}: a two-byte length, then modified UTF-8 (NUL as two bytes, a
     * supplementary character as its two surrogates of three bytes each).
     *
     * @throws IllegalStateException when the encoding is longer than 65,535 bytes
     */
    public void writeUTF(String s) {
      int n = s.length();
      int bytes = n;
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c >= 0x80 || c == 0) {
          bytes += c >= 0x800 ? 2 : 1;
        }
      }
      if (bytes > 0xffff) {
        throw new IllegalStateException("string of " + bytes + " encoded bytes is too long for writeUTF");
      }
      ensure(2 + bytes);
      buf[count++] = (byte) (bytes >>> 8);
      buf[count++] = (byte) bytes;
      for (int i = 0; i < n; i++) {
        char c = s.charAt(i);
        if (c != 0 && c < 0x80) {
          buf[count++] = (byte) c;
        } else if (c < 0x800) {
          buf[count++] = (byte) (0xc0 | c >> 6);
          buf[count++] = (byte) (0x80 | c & 0x3f);
        } else {
          buf[count++] = (byte) (0xe0 | c >> 12);
          buf[count++] = (byte) (0x80 | c >> 6 & 0x3f);
          buf[count++] = (byte) (0x80 | c & 0x3f);
        }
      }
    }

    public byte[] toByteArray() {
      return Arrays.copyOf(buf, count);
    }

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(
        int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(
        long[].class, ByteOrder.BIG_ENDIAN);
  }

  @FunctionalInterface
  protected interface Writer<V> {
    public void write(Out out, V value);
  }

  @FunctionalInterface
  protected interface Reader<V> {
    V read(DataInputStream in) throws IOException;
  }
}
