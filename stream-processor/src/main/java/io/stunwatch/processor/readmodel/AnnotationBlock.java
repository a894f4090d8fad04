package io.stunwatch.processor.readmodel;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The Grafana annotations of the migrations of one partition that started in one hour: the value of
 * {@link StoreNames#ANNOTATIONS_BY_HOUR}, kept by {@link io.stunwatch.processor.processors.MigrationIndex}.
 *
 * <p>Why blocks: a day's annotations are about a thousand migrations, and reading them as a thousand rows of
 * {@link StoreNames#MIGRATIONS_BY_START} cost a RocksDB step, a key and a value copied out through JNI, a key
 * decoded and Streams' iterator layers for each, which profiled as half of an annotations request. An hour's block
 * is read as one value. The price is on the write side: a migration that changes rewrites its hour's block
 * (its partition's migrations of that hour), a few times per migration.
 *
 * <p>Entries are in {@link AnnotatedMigration#BY_START} order, one per migration id. Stored form (the version byte
 * first):
 * <pre>
 *   byte version ({@value #VERSION}), int count, then per entry:
 *   long start epoch second, int start nano, byte has end, long end epoch second, int end nano,
 *   int n + n bytes: id; int n (-1 for null) + n bytes: VM id; the same for the VM name;
 *   int n + n bytes: the annotation's JSON
 * </pre>
 * A value of another version, or whose lengths do not add up, is an {@link IllegalStateException} naming
 * {@value #NAME}, as for {@link MigrationRow}.
 */
public final class AnnotationBlock {

  static final int VERSION = 1;
  static final String NAME = "store.annotation-block";
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final int FIXED = 8 + 4 + 1 + 8 + 4;

  /** A block with no entries. */
  public static final AnnotationBlock EMPTY = new AnnotationBlock(new byte[] {VERSION, 0, 0, 0, 0});

  private final byte[] bytes;
  private final List<Entry> entries;

  private AnnotationBlock(byte[] bytes) {
    this.bytes = bytes;
    if (bytes.length < 5) {
      if (bytes.length > 0 && (bytes[0] & 0xff) != VERSION) {
        throw versionError(bytes[0] & 0xff);
      }
      throw new IllegalStateException(NAME + ": truncated value (" + bytes.length + " bytes)");
    }
    if ((bytes[0] & 0xff) != VERSION) {
      throw versionError(bytes[0] & 0xff);
    }
    int count = (int) INT.get(bytes, 1);
    if (count < 0 || count > (bytes.length - 5) / (FIXED + 16)) {
      throw new IllegalStateException(NAME + ": " + count + " entries in " + bytes.length + " bytes");
    }
    List<Entry> list = new ArrayList<>(count);
    int at = 5;
    for (int i = 0; i < count; i++) {
      Entry e = new Entry(bytes, at);
      list.add(e);
      at = e.end;
    }
    if (at != bytes.length) {
      throw new IllegalStateException(NAME + ": " + (bytes.length - at) + " bytes left over after the value");
    }
    this.entries = List.copyOf(list);
  }

  private static IllegalStateException versionError(int v) {
    return new IllegalStateException(NAME + ": state written in format " + v + ", this build reads " + VERSION
        + "; reset the processor's state (see docs/upgrading.md)");
  }

  /**
   * The block stored as {@code bytes}, which it keeps (not a copy): the caller must not change them.
   *
   * @throws IllegalStateException if they are not a block of this format, naming {@value #NAME} and why
   */
  public static AnnotationBlock decode(byte[] bytes) {
    return new AnnotationBlock(bytes);
  }

  /** The serde of {@link StoreNames#ANNOTATIONS_BY_HOUR}: the stored bytes are the block's own, with no copy. */
  public static final Serde<AnnotationBlock> SERDE = Serdes.serdeFrom(
      (Serializer<AnnotationBlock>) (topic, b) -> b == null ? null : b.bytes,
      (Deserializer<AnnotationBlock>) (topic, data) -> data == null ? null : decode(data));

  /** The block of {@code rows}' annotations (however they are ordered), as the index would keep them. */
  public static AnnotationBlock of(Collection<MigrationRow> rows) {
    AnnotationBlock b = EMPTY;
    for (MigrationRow r : rows) {
      b = b.with(r);
    }
    return b;
  }

  /** The entries, in {@link AnnotatedMigration#BY_START} order. */
  public List<Entry> entries() {
    return entries;
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Writes the stored form, which {@link #decode} reads (the API forwards blocks between its instances so). */
  public void writeStored(AnnotatedMigration.Sink out) {
    out.write(bytes, 0, bytes.length);
  }

  public int storedLength() {
    return bytes.length;
  }

  /**
   * This block with {@code row}'s entry in place of any entry of the same migration, or this very block when that
   * entry is already there as it would be written (so that the caller can skip the write).
   */
  public AnnotationBlock with(MigrationRow row) {
    byte[] entry = encode(row);
    String id = row.id();
    List<byte[]> parts = new ArrayList<>(entries.size() + 1);
    boolean placed = false;
    for (Entry e : entries) {
      if (e.id().equals(id)) {
        if (Arrays.equals(bytes, e.start, e.end, entry, 0, entry.length)) {
          return this;
        }
        continue;
      }
      if (!placed && AnnotatedMigration.BY_START.compare(row, e) < 0) {
        parts.add(entry);
        placed = true;
      }
      parts.add(Arrays.copyOfRange(bytes, e.start, e.end));
    }
    if (!placed) {
      parts.add(entry);
    }
    return join(parts);
  }

  /** This block without the entry of migration {@code id}, or this very block when it has none. */
  public AnnotationBlock without(String id) {
    List<byte[]> parts = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      if (!e.id().equals(id)) {
        parts.add(Arrays.copyOfRange(bytes, e.start, e.end));
      }
    }
    return parts.size() == entries.size() ? this : join(parts);
  }

  private static AnnotationBlock join(List<byte[]> parts) {
    int size = 5;
    for (byte[] p : parts) {
      size += p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size).put((byte) VERSION).putInt(parts.size());
    parts.forEach(b::put);
    return new AnnotationBlock(b.array());
  }

  private static byte[] encode(MigrationRow row) {
    byte[] id = row.id().getBytes(StandardCharsets.UTF_8);
    byte[] vmId = row.vmId() == null ? null : row.vmId().getBytes(StandardCharsets.UTF_8);
    byte[] vmName = row.vmName() == null ? null : row.vmName().getBytes(StandardCharsets.UTF_8);
    byte[] annotation = row.annotation();
    ByteBuffer b = ByteBuffer.allocate(FIXED + 16 + id.length + (vmId == null ? 0 : vmId.length)
        + (vmName == null ? 0 : vmName.length) + annotation.length);
    b.putLong(row.startEpochSecond()).putInt(row.startNano()).put((byte) (row.hasEnded() ? 1 : 0))
        .putLong(row.hasEnded() ? row.endEpochSecond() : 0).putInt(row.hasEnded() ? row.endNano() : 0);
    b.putInt(id.length).put(id);
    for (byte[] s : new byte[][] {vmId, vmName}) {
      if (s == null) {
        b.putInt(-1);
      } else {
        b.putInt(s.length).put(s);
      }
    }
    b.putInt(annotation.length).put(annotation);
    return b.array();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AnnotationBlock b && Arrays.equals(bytes, b.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return "AnnotationBlock[" + entries.size() + " entries, " + bytes.length + " bytes]";
  }

  /** One migration's annotation within a block: a view of the block's bytes. */
  public static final class Entry implements AnnotatedMigration {
    private final byte[] bytes;
    private final int start;
    private final int end;
    private final long startSecond;
    private final int startNano;
    private final boolean ended;
    private final long endSecond;
    private final int endNano;
    private final int idAt;
    private final int vmIdAt;
    private final int vmNameAt;
    private final int annotationAt;

    private Entry(byte[] bytes, int at) {
      this.bytes = bytes;
      this.start = at;
      if (at + FIXED > bytes.length) {
        throw new IllegalStateException(NAME + ": truncated entry at " + at);
      }
      startSecond = (long) LONG.get(bytes, at);
      startNano = (int) INT.get(bytes, at + 8);
      ended = bytes[at + 12] != 0;
      endSecond = (long) LONG.get(bytes, at + 13);
      endNano = (int) INT.get(bytes, at + 21);
      idAt = at + FIXED;
      vmIdAt = skip(idAt, false);
      vmNameAt = skip(vmIdAt, true);
      annotationAt = skip(vmNameAt, true);
      end = skip(annotationAt, false);
    }

    /** The offset after the length-prefixed part at {@code at}, checked against the block's bytes. */
    private int skip(int at, boolean nullable) {
      if (at + 4 > bytes.length) {
        throw new IllegalStateException(NAME + ": truncated entry at " + start);
      }
      int n = (int) INT.get(bytes, at);
      if (nullable && n == -1) {
        return at + 4;
      }
      if (n < 0 || n > bytes.length - at - 4) {
        throw new IllegalStateException(NAME + ": a part of " + n + " bytes at " + at + " in " + bytes.length);
      }
      return at + 4 + n;
    }

    private String string(int at) {
      int n = (int) INT.get(bytes, at);
      return n == -1 ? null : new String(bytes, at + 4, n, StandardCharsets.UTF_8);
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
    public boolean hasEnded() {
      return ended;
    }

    @Override
    public long endEpochSecond() {
      return endSecond;
    }

    @Override
    public int endNano() {
      return endNano;
    }

    @Override
    public String id() {
      return string(idAt);
    }

    @Override
    public String vmId() {
      return string(vmIdAt);
    }

    @Override
    public String vmName() {
      return string(vmNameAt);
    }

    @Override
    public void writeAnnotation(Sink out) {
      out.write(bytes, annotationAt + 4, end - annotationAt - 4);
    }

    @Override
    public int annotationLength() {
      return end - annotationAt - 4;
    }

    @Override
    public String toString() {
      return "AnnotationBlock.Entry[" + id() + "]";
    }
  }
}
