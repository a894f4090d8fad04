package io.stunwatch.processor.readmodel;

import java.time.Instant;

/**
 * Keys of {@link StoreNames#MIGRATIONS_BY_START}: {@code <start, epoch ms, 16 digits>|<migration id>}, and of
 * {@link StoreNames#ANNOTATIONS_BY_HOUR} ({@link #hour}). Zero-padded
 * digits sort as their numbers do, so RocksDB holds the migrations in start order and a time range is one range
 * scan over just the migrations in it. (A window store keeps its key first and would scan every migration.)
 */
public final class StartKeys {

  private StartKeys() {
  }

  /** The key of migration {@code id} that started at {@code start}. */
  public static String of(Instant start, String id) {
    return millis(start) + "|" + id;
  }

  /** The lowest key of a migration started at or after {@code from}: the inclusive start of a range. */
  public static String from(Instant from) {
    return millis(from) + "|";
  }

  /** A key above every migration started at or before {@code to}: the inclusive end of a range. */
  public static String to(Instant to) {
    return millis(to) + "}"; // '}' sorts right after '|'
  }

  /**
   * The key of {@link StoreNames#ANNOTATIONS_BY_HOUR} for the hour that holds {@code t}: {@code <epoch hour, 12
   * digits>}. A range of these keys, both ends inclusive, covers every hour that a time range touches.
   */
  public static String hour(Instant t) {
    return padded(Math.max(0, Math.floorDiv(t.getEpochSecond(), 3600)), 12);
  }

  private static String millis(Instant t) {
    return padded(Math.max(0, t.toEpochMilli()), 16);
  }

  /** {@code v} (not negative) in at least {@code digits} digits, without {@code String.format}'s parsing. */
  private static String padded(long v, int digits) {
    String s = Long.toString(v);
    return s.length() >= digits ? s : "0".repeat(digits - s.length()) + s;
  }
}
