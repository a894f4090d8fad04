package io.stunwatch.processor;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VgpuProfile;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
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
abstract class StoreCodec<T> implements Serde<T> {

  private final String name;
  private final int version;
  private final int minVersion;

  /**
   * @param name    the value's name in errors (for example {@code store.vm-sample-second})
   * @param version the format version this codec writes and reads
   */
  StoreCodec(String name, int version) {
    this(name, version, version);
  }

  /**
   * @param minVersion the oldest format version this codec still reads ({@link #read(DataInputStream, int)})
   */
  StoreCodec(String name, int version, int minVersion) {
    this.name = name;
    this.version = version;
    this.minVersion = minVersion;
  }

  /** Writes the fields of {@code value}, which is never null. */
  abstract void write(Out out, T value);

  /** Reads what {@link #write} wrote. */
  abstract T read(DataInputStream in) throws IOException;

  /** Reads what {@link #write} wrote in format {@code version}; a codec that reads older formats overrides it. */
  T read(DataInputStream in, int version) throws IOException {
    return read(in);
  }

  final byte[] encode(T value) {
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
   * value they write at each commit (growing it was a percent of the stream threads in a catch-up).
   */
  private static final ThreadLocal<Out> BUFFERS = ThreadLocal.withInitial(Out::new);
  private static final int INITIAL_BUFFER = 1024;
  /** A buffer grown past this (a large value: an hour's annotation block) is dropped after use, not kept. */
  private static final int MAX_KEPT_BUFFER = 64 * 1024;

  final T decode(byte[] data) {
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

  static void writeNullable(Out out, Double v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeDouble(v);
    }
  }

  static Double readNullableDouble(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readDouble() : null;
  }

  static void writeNullable(Out out, Long v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v);
    }
  }

  static Long readNullableLong(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readLong() : null;
  }

  static void writeNullable(Out out, Integer v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeInt(v);
    }
  }

  static Integer readNullableInt(DataInputStream in) throws IOException {
    return in.readBoolean() ? in.readInt() : null;
  }

  /** A string that may be null, of any length (unlike {@link Out#writeUTF}, limited to 64 KiB). */
  static void writeNullable(Out out, String v) {
    if (v == null) {
      out.writeInt(-1);
      return;
    }
    byte[] b = v.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  static String readNullableString(DataInputStream in) throws IOException {
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

  static void writeNullable(Out out, Instant v) {
    out.writeBoolean(v != null);
    if (v != null) {
      out.writeLong(v.getEpochSecond());
      out.writeInt(v.getNano());
    }
  }

  static Instant readNullableInstant(DataInputStream in) throws IOException {
    return in.readBoolean() ? Instant.ofEpochSecond(in.readLong(), in.readInt()) : null;
  }

  /** An enum by name, not ordinal: reordering constants must not change what stored state means. */
  static void writeNullable(Out out, Enum<?> v) {
    writeNullable(out, v == null ? null : v.name());
  }

  static <E extends Enum<E>> E readNullableEnum(DataInputStream in, Class<E> type) throws IOException {
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

  static void writeNullable(Out out, EntityRef e) {
    out.writeBoolean(e != null);
    if (e != null) {
      writeNullable(out, e.type());
      writeNullable(out, e.value());
      writeNullable(out, e.name());
    }
  }

  static EntityRef readNullableEntity(DataInputStream in) throws IOException {
    return in.readBoolean() ? new EntityRef(readNullableString(in), readNullableString(in), readNullableString(in))
        : null;
  }

  /** Writes a map's size and entries; {@code value} writes one value. */
  static <V> void writeMap(Out out, Map<String, V> map, Writer<V> value) {
    out.writeInt(map.size());
    for (Map.Entry<String, V> e : map.entrySet()) {
      out.writeUTF(e.getKey());
      value.write(out, e.getValue());
    }
  }

  static <V> Map<String, V> readMap(DataInputStream in, Reader<V> value) throws IOException {
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
  private static final class UnsyncBytes extends java.io.InputStream {
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
   * commit (4 % of the stream threads in a catch-up).
   */
  static final class Out {
    private byte[] buf = new byte[INITIAL_BUFFER];
    private int count;

    private void ensure(int more) {
      if (count + more > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + more));
      }
    }

    void writeByte(int v) {
      ensure(1);
      buf[count++] = (byte) v;
    }

    void writeBoolean(boolean v) {
      writeByte(v ? 1 : 0);
    }

    void writeInt(int v) {
      ensure(4);
      INT.set(buf, count, v);
      count += 4;
    }

    void writeLong(long v) {
      ensure(8);
      LONG.set(buf, count, v);
      count += 8;
    }

    /** As {@link java.io.DataOutputStream#writeDouble}: the bits of {@link Double#doubleToLongBits}. */
    void writeDouble(double v) {
      writeLong(Double.doubleToLongBits(v));
    }

    void write(byte[] b) {
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
    void writeUTF(String s) {
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

    byte[] toByteArray() {
      return Arrays.copyOf(buf, count);
    }

    private static final java.lang.invoke.VarHandle INT = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
        int[].class, java.nio.ByteOrder.BIG_ENDIAN);
    private static final java.lang.invoke.VarHandle LONG = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
        long[].class, java.nio.ByteOrder.BIG_ENDIAN);
  }

  @FunctionalInterface
  interface Writer<V> {
    void write(Out out, V value);
  }

  @FunctionalInterface
  interface Reader<V> {
    V read(DataInputStream in) throws IOException;
  }

  /**
   * {@link VmSamples.Block}, the value of {@link StoreNames#VM_SAMPLES}: its first second, then each point as its
   * offset in the block and its figures.
   */
  static final StoreCodec<VmSamples.Block> BLOCK = new StoreCodec<>("store.vm-sample-block", 2, 1) {
    @Override
    void write(Out out, VmSamples.Block b) {
      out.writeLong(b.startSecond());
      out.writeByte(b.points().size());
      for (VmSamples.Point p : b.points()) {
        out.writeByte((int) (p.epochSecond() - b.startSecond()));
        out.writeInt(p.samples());
        out.writeDouble(p.gpuUtilSum());
        out.writeInt(p.gpuUtilCount());
        writeNullable(out, p.fbUsedMiB());
        writeNullable(out, p.fbTotalMiB());
        writeNullable(out, p.throughputSum());
        writeNullable(out, p.throughputCount());
        writeNullable(out, p.rdmaBytesPerSec());
        out.writeInt(p.gpuMask());
        writeNullable(out, p.totalSum());
        writeNullable(out, p.totalCount());
      }
    }

    @Override
    VmSamples.Block read(DataInputStream in) throws IOException {
      return read(in, 2);
    }

    /**
     * Format 1 had no GPU mask and no job totals: its framebuffer figure was the largest GPU's, and its throughput
     * the average of every line of the second, read as they are.
     */
    @Override
    VmSamples.Block read(DataInputStream in, int version) throws IOException {
      long start = in.readLong();
      int n = in.readUnsignedByte();
      VmSamples.Point[] points = new VmSamples.Point[n];
      for (int i = 0; i < n; i++) {
        points[i] = new VmSamples.Point(start + in.readUnsignedByte(), in.readInt(), in.readDouble(), in.readInt(),
            readNullableLong(in), readNullableLong(in), readNullableDouble(in), readNullableInt(in),
            readNullableDouble(in), version >= 2 ? in.readInt() : 0, version >= 2 ? readNullableDouble(in) : null,
            version >= 2 ? readNullableInt(in) : null);
      }
      return new VmSamples.Block(start, java.util.Arrays.asList(points));
    }
  };

  /** {@link LoadAggregate}, the value of {@link StoreNames#VM_LOAD_10S} and {@link StoreNames#VM_LOAD_1M}. */
  static final StoreCodec<LoadAggregate> LOAD_WINDOW = new StoreCodec<>("store.vm-load-window", 1) {
    @Override
    void write(Out out, LoadAggregate a) {
      out.writeLong(a.samples());
      out.writeDouble(a.gpuUtilSum());
      out.writeInt(a.gpuUtilCount());
      writeNullable(out, a.gpuUtilMax());
      out.writeDouble(a.memUtilSum());
      out.writeInt(a.memUtilCount());
      writeNullable(out, a.fbUsedMaxMiB());
      writeNullable(out, a.fbUsedLastMiB());
      writeNullable(out, a.fbTotalMiB());
      writeMap(out, a.fbByGpu(), (o, fb) -> {
        o.writeLong(fb.usedMiB());
        o.writeLong(fb.totalMiB());
      });
    }

    @Override
    LoadAggregate read(DataInputStream in) throws IOException {
      return new LoadAggregate(in.readLong(), in.readDouble(), in.readInt(), readNullableDouble(in), in.readDouble(),
          in.readInt(), readNullableLong(in), readNullableLong(in), readNullableLong(in),
          readMap(in, i -> new LoadAggregate.Fb(i.readLong(), i.readLong())));
    }
  };

  /**
   * {@link CurrentLoad}, the value of {@link StoreNames#VM_LOAD_CURRENT}: written on every GPU sample, where its JSON
   * (a whole sample per GPU) was a tenth of the stream thread's time.
   */
  static final StoreCodec<CurrentLoad> CURRENT_LOAD = new StoreCodec<>("store.vm-load-current", 1) {
    @Override
    void write(Out out, CurrentLoad c) {
      writeNullable(out, c.vmId());
      writeNullable(out, c.host());
      writeNullable(out, c.vmName());
      out.writeBoolean(c.inInventory());
      writeMap(out, c.byGpu(), (o, s) -> {
        writeNullable(o, s.vmId());
        writeNullable(o, s.hostname());
        writeNullable(o, s.timestamp());
        o.writeInt(s.gpuIndex());
        writeNullable(o, s.gpuUuid());
        writeNullable(o, s.name());
        writeNullable(o, s.pciBusId());
        writeNullable(o, s.utilizationGpuPct());
        writeNullable(o, s.utilizationMemoryPct());
        writeNullable(o, s.memoryUsedMiB());
        writeNullable(o, s.memoryTotalMiB());
        writeNullable(o, s.powerDrawW());
        writeNullable(o, s.temperatureC());
        writeNullable(o, s.smClockMHz());
        writeNullable(o, s.pstate());
        VgpuProfile p = s.vgpuProfile();
        o.writeBoolean(p != null);
        if (p != null) {
          writeNullable(o, p.name());
          writeNullable(o, p.gpuModel());
          o.writeLong(p.framebufferMiB());
          writeNullable(o, p.series());
          writeNullable(o, p.migSlices());
        }
      });
    }

    @Override
    CurrentLoad read(DataInputStream in) throws IOException {
      String vmId = readNullableString(in);
      String host = readNullableString(in);
      String vmName = readNullableString(in);
      boolean inInventory = in.readBoolean();
      // Arguments are evaluated left to right, in the order write() wrote the fields.
      Map<String, GpuSample> byGpu = readMap(in, i -> new GpuSample(readNullableString(i), readNullableString(i),
          readNullableInstant(i), i.readInt(), readNullableString(i), readNullableString(i), readNullableString(i),
          readNullableDouble(i), readNullableDouble(i), readNullableLong(i), readNullableLong(i),
          readNullableDouble(i), readNullableDouble(i), readNullableLong(i), readNullableString(i),
          i.readBoolean() ? new VgpuProfile(readNullableString(i), readNullableString(i), i.readLong(),
              readNullableString(i), readNullableInt(i)) : null));
      return new CurrentLoad(vmId, byGpu, host, vmName, inInventory);
    }
  };

  /** {@link RdmaRates.Last}, the value of {@link StoreNames#RDMA_LAST}: written on every RDMA sample. */
  static final StoreCodec<RdmaRates.Last> RDMA_LAST = new StoreCodec<>("store.rdma-last", 1) {
    @Override
    void write(Out out, RdmaRates.Last last) {
      writeMap(out, last.ports(), (o, s) -> {
        writeNullable(o, s.vmId());
        writeNullable(o, s.hostname());
        writeNullable(o, s.timestamp());
        writeNullable(o, s.device());
        o.writeInt(s.port());
        writeNullable(o, s.linkLayer());
        writeMap(o, s.counters(), StoreCodec::writeCounter);
        writeMap(o, s.hwCounters(), StoreCodec::writeCounter);
        writeNullable(o, s.unavailableReason());
      });
    }

    @Override
    RdmaRates.Last read(DataInputStream in) throws IOException {
      return new RdmaRates.Last(readMap(in, i -> new RdmaCounterSample(readNullableString(i), readNullableString(i),
          readNullableInstant(i), readNullableString(i), i.readInt(), readNullableString(i),
          readMap(i, StoreCodec::readCounter), readMap(i, StoreCodec::readCounter), readNullableString(i))));
    }
  };

  private static void writeCounter(Out out, CounterReading c) {
    writeNullable(out, c.value());
    writeNullable(out, c.state());
    writeNullable(out, c.reason());
  }

  private static CounterReading readCounter(DataInputStream in) throws IOException {
    return new CounterReading(readNullableLong(in), readNullableEnum(in, CounterState.class),
        readNullableString(in));
  }

  /** {@link UtilizationDay}, the value of {@link StoreNames#UTILIZATION_DAILY}. */
  static final StoreCodec<UtilizationDay> UTILIZATION_DAY = new StoreCodec<>("store.utilization-day", 1) {
    @Override
    void write(Out out, UtilizationDay d) {
      writeMap(out, d.byHost(), (o, s) -> {
        o.writeDouble(s.busy());
        o.writeDouble(s.idle());
        o.writeDouble(s.unknown());
      });
      writeMap(out, d.lastByGpu(), Out::writeLong);
    }

    @Override
    UtilizationDay read(DataInputStream in) throws IOException {
      return new UtilizationDay(readMap(in, i -> new UtilizationDay.Seconds(i.readDouble(), i.readDouble(),
          i.readDouble())), readMap(in, DataInputStream::readLong));
    }
  };
}
