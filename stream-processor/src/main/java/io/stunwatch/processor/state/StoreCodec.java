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
