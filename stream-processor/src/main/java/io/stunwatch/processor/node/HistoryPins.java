package io.stunwatch.processor.node;

import io.stunwatch.processor.view.StoreNames;
import java.util.ArrayList;
import java.util.List;

/**
 * The ranges of a VM's per-second history that its migrations need, as {@link StoreNames#HISTORY_PINS} holds them:
 * one value per VM, {@code <migration id> <from ms> <to ms>} per range, ranges separated by {@code ;}. A range is
 * pinned from the moment its migration is tracked until the task's stream time is {@link SampleHistory#VM_SKEW} past
 * its end: the history's writers keep its blocks, and take a reading of it however far behind the VM's newest it
 * comes (the recording of the host a VM left, read after the other host's), so that the impact is built again from
 * every reading of its range.
 */
final class HistoryPins {

  /** One migration's range, epoch milliseconds, both ends included. */
  record Range(String id, long from, long to) {

    boolean holds(long millis) {
      return millis >= from && millis <= to;
    }

    /** Whether the block {@code [start, start + size)} holds a second of this range. */
    boolean overlaps(long start, long size) {
      return start <= to && start + size > from;
    }
  }

  private HistoryPins() {
  }

  static List<Range> decode(String value) {
    List<Range> out = new ArrayList<>();
    if (value == null || value.isEmpty()) {
      return out;
    }
    for (String r : value.split(";")) {
      String[] f = r.split(" ");
      out.add(new Range(f[0], Long.parseLong(f[1]), Long.parseLong(f[2])));
    }
    return out;
  }

  static String encode(List<Range> ranges) {
    StringBuilder b = new StringBuilder();
    for (Range r : ranges) {
      b.append(b.isEmpty() ? "" : ";").append(r.id()).append(' ').append(r.from()).append(' ').append(r.to());
    }
    return b.toString();
  }
}
