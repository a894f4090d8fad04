package io.stunwatch.processor.state;

import java.io.DataInputStream;
import java.io.IOException;

/**
 * UUIDs in their canonical text form ({@code 8-4-4-4-12} lower-case hex digits, as VMware prints a VM's SMBIOS UUID)
 * and as their 16 bytes. Only the canonical form is packed: it is the one form that unpacks to the very same string.
 */
public final class Uuids {

  /** Characters in the canonical text form. */
  public static final int TEXT_LENGTH = 36;
  /** Bytes in the packed form. */
  public static final int BYTES = 16;

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Uuids() {
  }

  /** Whether {@code s} holds a canonical UUID from {@code offset} to its end. */
  public static boolean isCanonical(String s, int offset) {
    if (s.length() - offset != TEXT_LENGTH) {
      return false;
    }
    for (int i = 0; i < TEXT_LENGTH; i++) {
      char c = s.charAt(offset + i);
      if (i == 8 || i == 13 || i == 18 || i == 23) {
        if (c != '-') {
          return false;
        }
      } else if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /** Writes the 16 bytes of the canonical UUID at {@code offset} of {@code s}. */
  static void write(StoreCodec.Out out, String s, int offset) {
    byte[] b = new byte[BYTES];
    pack(s, offset, b, 0);
    out.write(b);
  }

  /** Packs the canonical UUID at {@code offset} of {@code s} into {@code into} from {@code at}. */
  public static void pack(String s, int offset, byte[] into, int at) {
    int n = 0;
    for (int i = 0; i < TEXT_LENGTH; i += 2) {
      if (s.charAt(offset + i) == '-') {
        i--;
        continue;
      }
      into[at + n++] = (byte) (Character.digit(s.charAt(offset + i), 16) << 4
          | Character.digit(s.charAt(offset + i + 1), 16));
    }
  }

  static String read(DataInputStream in) throws IOException {
    byte[] b = new byte[BYTES];
    in.readFully(b);
    return unpack(b, 0);
  }

  /** The canonical text of the 16 bytes of {@code b} from {@code at}. */
  public static String unpack(byte[] b, int at) {
    char[] c = new char[TEXT_LENGTH];
    int n = 0;
    for (int i = 0; i < BYTES; i++) {
      if (i == 4 || i == 6 || i == 8 || i == 10) {
        c[n++] = '-';
      }
      c[n++] = HEX[(b[at + i] >> 4) & 0xF];
      c[n++] = HEX[b[at + i] & 0xF];
    }
    return new String(c);
  }
}
