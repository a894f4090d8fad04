package io.stunwatch.launcher.bundle;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Unpacks a {@code .tar.gz} support bundle into a directory: regular files and folders only (POSIX ustar, GNU long
 * names and pax paths). An entry whose path leaves the directory (absolute, or with {@code ..}) and every link or
 * device is left out and counted, never followed: a bundle is data from elsewhere.
 */
public final class TarGz {

  /** What was unpacked: files written, and entries left out with the first one's reason. */
  public record Result(int files, int leftOut, String firstLeftOut) {
  }

  private TarGz() {
  }

  /** Whether a file is gzipped and named like a tarball. */
  public static boolean isTarGz(Path file) {
    String n = file.getFileName().toString().toLowerCase(java.util.Locale.ROOT);
    return Files.isRegularFile(file) && (n.endsWith(".tar.gz") || n.endsWith(".tgz"));
  }

  public static Result unpack(Path archive, Path into) throws IOException {
    int files = 0;
    int leftOut = 0;
    String first = null;
    try (InputStream in = new BufferedInputStream(new GZIPInputStream(Files.newInputStream(archive)))) {
      byte[] header = new byte[512];
      String longName = null;
      while (true) {
        if (!readFully(in, header)) {
          break;
        }
        if (isZero(header)) {
          break; // the end-of-archive blocks
        }
        String name = longName != null ? longName : name(header);
        longName = null;
        long size = octal(header, 124, 12);
        char type = (char) header[156];
        long padded = (size + 511) / 512 * 512;
        if (type == 'L' || type == 'x') {
          byte[] data = in.readNBytes((int) size);
          in.skipNBytes(padded - size);
          String text = new String(data, StandardCharsets.UTF_8);
          if (type == 'L') {
            longName = text.replace("\0", "");
          } else {
            longName = paxPath(text);
          }
          continue;
        }
        Path target = into.resolve(name).normalize();
        boolean safe = !name.startsWith("/") && !name.contains("..") && target.startsWith(into);
        if (type == '5' && safe) {
          Files.createDirectories(target);
        } else if ((type == '0' || type == '\0' || type == '7') && safe) {
          Files.createDirectories(target.getParent());
          try (OutputStream out = Files.newOutputStream(target)) {
            copy(in, out, size);
          }
          in.skipNBytes(padded - size);
          files++;
          continue;
        } else if (type != '5' && type != 'g') {
          leftOut++;
          if (first == null) {
            first = name + (safe ? " (a link or special file, not followed)" : " (its path leaves the bundle)");
          }
        }
        in.skipNBytes(padded);
      }
    } catch (EOFException e) {
      throw new IOException(archive + " ends inside an entry: a cut or damaged archive", e);
    }
    return new Result(files, leftOut, first);
  }

  private static String paxPath(String records) {
    for (String r : records.split("\n")) {
      int sp = r.indexOf(' ');
      if (sp > 0 && r.startsWith("path=", sp + 1)) {
        return r.substring(sp + 1 + "path=".length());
      }
    }
    return null;
  }

  private static String name(byte[] h) {
    String name = field(h, 0, 100);
    String prefix = field(h, 345, 155);
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }

  private static String field(byte[] h, int at, int len) {
    int end = at;
    while (end < at + len && h[end] != 0) {
      end++;
    }
    return new String(h, at, end - at, StandardCharsets.UTF_8);
  }

  private static long octal(byte[] h, int at, int len) throws IOException {
    String s = field(h, at, len).trim();
    try {
      return s.isEmpty() ? 0 : Long.parseLong(s, 8);
    } catch (NumberFormatException e) {
      throw new IOException("not a tar header: size '" + s + "'");
    }
  }

  private static boolean isZero(byte[] b) {
    for (byte x : b) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean readFully(InputStream in, byte[] b) throws IOException {
    int n = in.readNBytes(b, 0, b.length);
    if (n == 0) {
      return false;
    }
    if (n < b.length) {
      throw new EOFException();
    }
    return true;
  }

  private static void copy(InputStream in, OutputStream out, long size) throws IOException {
    byte[] buf = new byte[8192];
    long left = size;
    while (left > 0) {
      int n = in.read(buf, 0, (int) Math.min(buf.length, left));
      if (n < 0) {
        throw new EOFException();
      }
      out.write(buf, 0, n);
      left -= n;
    }
  }
}
