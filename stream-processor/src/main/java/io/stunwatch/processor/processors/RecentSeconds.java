package io.stunwatch.processor.processors;

import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The newest seconds of one load key's per-second history, as the objects the history holds, for the DRS guard
 * ({@link GuardProcessor}): it decides at every GPU reading from the last {@code process.alert-window}, and reading
 * that range from the store decoded every block of it again each time.
 *
 * <p>It is filled from the history once, when the guard first sees the key, and each reading then puts back the one
 * point it changed (the guard sees every reading, after the history recorded it). A range within the seconds it
 * covers is the history's; a range reaching further back is not covered, and is read from the history.
 */
final class RecentSeconds {

  private final VmSamples.Point[] slots;
  private final int mask;
  /** The newest second it has seen; Long.MIN_VALUE before the fill. */
  private long newest = Long.MIN_VALUE;
  /** The oldest second the fill read. */
  private long filledFrom;

  /** Room for at least {@code seconds} seconds. */
  RecentSeconds(int seconds) {
    int n = Integer.highestOneBit(Math.max(2, seconds) * 2 - 1);
    slots = new VmSamples.Point[n];
    mask = n - 1;
  }

  /**
   * Fills it with the history's points ({@code read} reads a range of them) from {@code second} less the seconds it
   * holds on: those after {@code second} too, which a task that ran before this one may have recorded
   * ({@code second} is then a late reading's).
   */
  void fill(long second, BiFunction<Instant, Instant, List<VmSamples.Point>> read) {
    filledFrom = second - slots.length + 1;
    newest = second;
    Instant until = Instant.ofEpochSecond(second).plus(SampleHistory.VM_SKEW);
    for (VmSamples.Point p : read.apply(Instant.ofEpochSecond(filledFrom), until)) {
      slots[(int) (p.epochSecond() & mask)] = p; // in order: a slot ends with the newest of its seconds
      newest = Math.max(newest, p.epochSecond());
    }
  }

  /** Puts back the history's point of {@code second} (null: it has none), which a reading just changed. */
  void update(long second, VmSamples.Point p) {
    if (second <= newest - slots.length) {
      return; // older than it covers
    }
    if (second > newest) {
      newest = second;
    }
    int i = (int) (second & mask);
    VmSamples.Point held = slots[i];
    if (p != null) {
      slots[i] = p;
    } else if (held != null && held.epochSecond() == second) {
      slots[i] = null;
    }
  }

  /** Whether {@link #points} gives the history's points of {@code [from, to]}. */
  boolean covers(long from) {
    return from >= filledFrom && from > newest - slots.length;
  }

  /** Its points within {@code [from, to]}, oldest first; only where {@link #covers} says so. */
  List<VmSamples.Point> points(long from, long to) {
    List<VmSamples.Point> out = new ArrayList<>((int) Math.min(slots.length, Math.max(0, to - from + 1)));
    for (long s = from; s <= to && s <= newest; s++) {
      VmSamples.Point p = slots[(int) (s & mask)];
      if (p != null && p.epochSecond() == s) {
        out.add(p);
      }
    }
    return out;
  }
}
