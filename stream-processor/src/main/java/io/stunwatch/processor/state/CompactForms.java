package io.stunwatch.processor.state;

import java.io.DataInputStream;
import java.io.IOException;
import io.stunwatch.processor.state.StoreCodec.Out;
import java.nio.charset.StandardCharsets;

/**
 * Compact forms for the values written most (a VM's live state, once per VM and commit), for a {@link StoreCodec}
 * to write into its {@link StoreCodec.Out}: numbers as varints where they are whole, figures in the fewest bytes that
 * give them back exactly, identifiers that are UUIDs as their 16 bytes.
 */
public final class CompactForms {

  private CompactForms() {
  }

  /** A signed long as a zigzag varint: 1 byte for -64..63, 5 for an epoch second. */
  public static void writeVarLong(Out out, long v) {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7FL) != 0) {
      out.writeByte((int) (z & 0x7F) | 0x80);
      z >>>= 7;
    }
    out.writeByte((int) z);
  }

  public static long readVarLong(DataInputStream in) throws IOException {
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
  public static void writeNumber(Out out, Double v) {
    if (v == null) {
      out.writeByte(NUM_NULL);
    } else {
      writeNumber(out, v.doubleValue());
    }
  }

  public static void writeNumber(Out out, double d) {
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

  public static Double readNumber(DataInputStream in) throws IOException {
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

  public static void writeNumber(Out out, Long v) {
    if (v == null) {
      out.writeByte(NUM_NULL);
    } else {
      out.writeByte(NUM_WHOLE);
      writeVarLong(out, v);
    }
  }

  public static void writeNumber(Out out, Integer v) {
    writeNumber(out, v == null ? null : Long.valueOf(v));
  }

  /** A whole number {@link #writeNumber(Out, Integer)} wrote, or null. */
  public static Integer readWholeInt(DataInputStream in) throws IOException {
    Long v = readWhole(in);
    return v == null ? null : Math.toIntExact(v);
  }

  public static Long readWhole(DataInputStream in) throws IOException {
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
  public static void writeCompact(Out out, String s) {
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

  public static String readCompactString(DataInputStream in) throws IOException {
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
}
