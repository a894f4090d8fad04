package io.stunwatch.model.json;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Strings made from short runs of bytes, each run's string shared by every later equal run. The bus repeats its
 * short strings from record to record: a GPU sample carries its VM id (also its key), host, GPU UUID, name, PCI bus
 * id, pstate and vGPU profile, and a stream thread decodes a few hundred thousand a second in a catch-up. A run seen
 * before costs a hash and a comparison instead of a new string, and the string comes with its hash code computed,
 * so the hash-map lookups keyed by it (a sample's VM id, a dozen a record) hash nothing and compare by identity.
 *
 * <p>Contract: {@link #of} returns a string equal to {@code new String(bytes, offset, length, UTF_8)}, always. What
 * it shares: runs of at most {@value #MAX_LENGTH} bytes, all ASCII. A run is looked up in one slot of a fixed table
 * of {@value #SLOTS}, chosen by its hash, and replaces what the slot held when that differs: a run that does not
 * repeat costs an entry and evicts one, and a fleet with more distinct strings than slots shares fewer of them,
 * which is slower, never wrong. Safe for any number of threads without locks: an entry is immutable (final fields),
 * so a thread sees a whole entry or the one before it, and a lost write is only a later miss.
 */
public final class AsciiStrings {

  /** The longest run shared: ids and names are shorter, and a longer string is rarely repeated. */
  public static final int MAX_LENGTH = 64;
  /** Slots of the table (a power of two): a thousand-VM fleet's strings, with room for collisions. */
  static final int SLOTS = 1 << 14;

  private static final Entry[] TABLE = new Entry[SLOTS];
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private record Entry(byte[] bytes, String string) {
  }

  private AsciiStrings() {
  }

  /** The string of all of {@code bytes} (UTF-8). */
  public static String of(byte[] bytes) {
    return of(bytes, 0, bytes.length);
  }

  /** The string of {@code length} bytes (UTF-8) from {@code offset}. */
  public static String of(byte[] bytes, int offset, int length) {
    if (length > MAX_LENGTH) {
      return new String(bytes, offset, length, StandardCharsets.UTF_8);
    }
    int end = offset + length;
    int slot = slot(bytes, offset, end);
    Entry e = TABLE[slot];
    if (e != null && Arrays.equals(e.bytes, 0, e.bytes.length, bytes, offset, end)) {
      return e.string;
    }
    for (int i = offset; i < end; i++) {
      if (bytes[i] < 0) {
        return new String(bytes, offset, length, StandardCharsets.UTF_8); // not ASCII: not shared
      }
    }
    String s = new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
    s.hashCode(); // cached in the string, for every map it will be looked up in
    TABLE[slot] = new Entry(Arrays.copyOfRange(bytes, offset, end), s);
    return s;
  }

  /** The slot of a run: a multiplicative hash of its bytes, eight at a time. */
  private static int slot(byte[] b, int from, int end) {
    long h = end - from;
    int i = from;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      h = (h ^ (long) LONGS.get(b, i)) * 0x9E3779B97F4A7C15L;
    }
    for (; i < end; i++) {
      h = (h ^ b[i]) * 0x9E3779B97F4A7C15L;
    }
    return (int) (h >>> 40) & (SLOTS - 1);
  }
}
