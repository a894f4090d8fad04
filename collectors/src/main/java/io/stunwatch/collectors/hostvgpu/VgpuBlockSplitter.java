package io.stunwatch.collectors.hostvgpu;

import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Cuts the output of {@code nvidia-smi vgpu -q -l <seconds>}, line by line, into one block per reading, in every
 * shape a driver prints: with the {@code ==============NVSMI LOG==============} banner or without it, with a
 * {@code Timestamp} line or without it. A new block begins at a banner, at a {@code Timestamp} line once the current
 * block has one or has reached its GPUs, or at a {@code GPU <bus id>} line whose GPU the current block already has.
 *
 * <p>Not thread-safe: one splitter per stream, fed from one thread at a time.
 */
public final class VgpuBlockSplitter {

  /**
   * One reading.
   *
   * @param text      the block's lines
   * @param firstLine the block's first line in the stream, from 1
   * @param timestamp the raw value of its {@code Timestamp} line, or null when it has none
   */
  public record Block(String text, int firstLine, String timestamp) {
  }

  private final Consumer<Block> sink;
  private final StringBuilder text = new StringBuilder();
  private final Set<String> gpus = new HashSet<>();
  private int lineNo;
  private int firstLine;
  private String timestamp;
  private boolean content;

  public VgpuBlockSplitter(Consumer<Block> sink) {
    this.sink = sink;
  }

  /** Takes the next line of the stream, without its line terminator. */
  public void line(String raw) {
    lineNo++;
    String line = raw.strip();
    boolean topLevel = !raw.isEmpty() && !Character.isWhitespace(raw.charAt(0));
    String gpu = topLevel && line.startsWith("GPU ") ? line.substring(4).trim().toLowerCase(Locale.ROOT) : null;
    String stamp = topLevel ? timestampValue(line) : null;
    boolean starts = line.startsWith("==============NVSMI LOG")
        || (stamp != null && (timestamp != null || !gpus.isEmpty()))
        || (gpu != null && gpus.contains(gpu));
    if (starts) {
      finish();
    }
    if (text.length() == 0) {
      firstLine = lineNo;
    }
    text.append(raw).append('\n');
    content |= !line.isEmpty() && !line.startsWith("==============");
    if (gpu != null) {
      gpus.add(gpu);
    }
    if (stamp != null && timestamp == null && gpus.isEmpty()) {
      timestamp = stamp;
    }
  }

  /** Emits the block read so far, if it has anything besides a banner: at the end of a stream, or when it went quiet. */
  public void finish() {
    if (content) {
      sink.accept(new Block(text.toString(), firstLine, timestamp));
    }
    discard();
  }

  /** Forgets the block read so far: the stream broke off in the middle of it. */
  public void discard() {
    text.setLength(0);
    gpus.clear();
    timestamp = null;
    content = false;
  }

  /** Whether a block has begun and not been emitted. */
  public boolean pending() {
    return content;
  }

  private static String timestampValue(String line) {
    int colon = line.indexOf(':');
    if (colon < 0 || !line.substring(0, colon).strip().equalsIgnoreCase("Timestamp")) {
      return null;
    }
    return line.substring(colon + 1).strip().replaceAll("\\s+", " ");
  }
}
