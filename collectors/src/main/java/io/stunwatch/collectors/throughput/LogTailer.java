package io.stunwatch.collectors.throughput;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Follows a log file like {@code tail -F}: returns the complete lines added since the last call, and follows
 * rotation. A new file under the name (another inode), or a file shorter than what was read (truncated in place,
 * as {@code copytruncate} does), is read from its start. A missing file is waited for.
 *
 * <p>Not thread-safe; call {@link #poll()} from one thread.
 */
public final class LogTailer implements AutoCloseable {

  private static final int MAX_LINE = 64 * 1024;

  private final Path file;
  private SeekableByteChannel channel;
  private Object fileKey;
  private long position;
  private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
  private byte[] partial = new byte[0];
  private final List<String> pendingFromOld = new ArrayList<>();
  private boolean startAtEnd;

  /**
   * @param file       the log file
   * @param startAtEnd skip what the file holds when first opened (live use); false to read it all (replay)
   */
  public LogTailer(Path file, boolean startAtEnd) {
    this.file = file;
    this.startAtEnd = startAtEnd;
  }

  /** Complete lines added since the last call; a trailing line without its newline is kept for the next call. */
  public List<String> poll() throws IOException {
    reopenIfRotated();
    List<String> lines = new ArrayList<>(pendingFromOld); // the rotated-away file's last lines come first
    pendingFromOld.clear();
    if (channel == null) {
      return lines;
    }
    channel.position(position);
    int n;
    while ((n = channel.read(buffer.clear())) > 0) {
      position += n;
      split(buffer.flip(), lines);
    }
    return lines;
  }

  private void reopenIfRotated() throws IOException {
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      startAtEnd = false; // a file that appears later is all new: read it from its start
      return; // between rotate and create, or not yet written: keep what is open
    }
    boolean rotated = channel != null && !Objects.equals(fileKey, attrs.fileKey());
    boolean truncated = channel != null && attrs.size() < position;
    if (channel == null || rotated || truncated) {
      if (channel != null && rotated) {
        drainOld();
      }
      close();
      channel = Files.newByteChannel(file, StandardOpenOption.READ);
      fileKey = attrs.fileKey();
      position = startAtEnd ? attrs.size() : 0;
      startAtEnd = false;
      partial = new byte[0];
    }
  }

  /** The old file may have got lines after our last read and before the rotation: nothing is skipped. */
  private void drainOld() throws IOException {
    channel.position(position);
    int n;
    while ((n = channel.read(buffer.clear())) > 0) {
      position += n;
      split(buffer.flip(), pendingFromOld);
    }
  }

  private void split(ByteBuffer b, List<String> out) {
    int start = b.position();
    for (int i = b.position(); i < b.limit(); i++) {
      if (b.get(i) == '\n') {
        byte[] line = new byte[partial.length + (i - start)];
        System.arraycopy(partial, 0, line, 0, partial.length);
        b.get(start, line, partial.length, i - start);
        partial = new byte[0];
        out.add(decode(line));
        start = i + 1;
      }
    }
    int rest = b.limit() - start;
    if (rest > 0) {
      int keep = Math.min(rest, MAX_LINE - partial.length);
      if (keep > 0) {
        byte[] p = new byte[partial.length + keep];
        System.arraycopy(partial, 0, p, 0, partial.length);
        b.get(start, p, partial.length, keep);
        partial = p;
      }
    }
  }

  private static String decode(byte[] line) {
    int len = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
    return new String(line, 0, Math.min(len, MAX_LINE), StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    if (channel != null) {
      channel.close();
      channel = null;
    }
  }
}
