package io.stunwatch.processor.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One key's pending windows ({@link DeferredWindowStore.Windows}) against an ordered map of the same writes. */
class DeferredWindowsTest {

  private static DeferredStore.Pending<String> pending(String v) {
    return new DeferredStore.Pending<>(v, null);
  }

  @Test
  void readsRangesAndWritesInWindowOrderWhatAnOrderedMapOfTheSameWritesHolds() {
    Random random = new Random(28);
    for (int run = 0; run < 200; run++) {
      TreeMap<Long, String> model = new TreeMap<>();
      long first = random.nextInt(100) * 10L;
      var windows = new DeferredWindowStore.Windows<String>(new DeferredWindowStore.Slot<>(first, pending("w0")));
      model.put(first, "w0");
      long newest = first;
      int writes = 1 + random.nextInt(300); // past several doublings of the arrays
      for (int i = 1; i <= writes; i++) {
        int kind = random.nextInt(10);
        // Mostly the next window, as samples go; then rewrites of any window, and late windows between others.
        long start = kind < 6 ? newest + 10 * (1 + random.nextInt(2))
            : kind < 8 ? new ArrayList<>(model.keySet()).get(random.nextInt(model.size()))
            : Math.max(0, newest - 10 * random.nextInt(60) - 5);
        String value = "w" + i;
        windows.put(start, pending(value));
        model.put(start, value);
        newest = Math.max(newest, start);
      }
      for (int probe = 0; probe < 50; probe++) {
        long start = random.nextInt((int) newest + 30);
        var got = windows.get(start);
        assertThat(got == null ? null : got.value()).as("run %d, window %d", run, start).isEqualTo(model.get(start));
        long to = start + random.nextInt(400);
        Map<Long, String> range = new TreeMap<>();
        windows.range(start, to).forEach((k, v) -> range.put(k, v.value()));
        assertThat(range).as("run %d, range %d to %d", run, start, to).isEqualTo(model.subMap(start, true, to, true));
      }
      List<Map.Entry<Long, String>> written = new ArrayList<>();
      DeferredWindowStore.Cursor<String, String> c = new DeferredWindowStore.Cursor<>("k", windows);
      do {
        written.add(Map.entry(c.start, c.pending().value()));
      } while (c.advance());
      assertThat(written).as("run %d", run).containsExactlyElementsOf(model.entrySet().stream()
          .map(e -> Map.entry(e.getKey(), e.getValue())).toList());
    }
  }

  @Test
  void aQueryOnAnotherThreadFindsEveryWindowWrittenBeforeItWithItsOwnValueWhileTheTaskWrites() throws Exception {
    var windows = new DeferredWindowStore.Windows<String>(new DeferredWindowStore.Slot<>(0L, pending("0:0")));
    AtomicLong writtenUpTo = new AtomicLong(0); // every multiple of 10 up to this is pending
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<String> wrong = new AtomicReference<>();
    AtomicLong reads = new AtomicLong();
    Thread query = new Thread(() -> {
      Random random = new Random(5);
      try {
        read(random, windows, writtenUpTo, done, wrong, reads);
      } catch (RuntimeException | Error e) { // a broken view can throw as well as mislead: either fails the test
        wrong.set(e.toString());
      }
    });
    query.start();
    Random random = new Random(6);
    try {
      for (long s = 10; s <= 200_000 && wrong.get() == null; s += 10) {
        windows.put(s, pending(s + ":0"));
        writtenUpTo.set(s);
        if (random.nextInt(4) == 0) { // a rewrite of a recent window, and a late one between two others
          long again = s - 10 * random.nextInt((int) Math.min(s / 10, 50));
          windows.put(again, pending(again + ":1"));
          long late = Math.max(5, s - 5 - 10 * random.nextInt((int) Math.min(s / 10, 50)));
          windows.put(late, pending(late + ":0"));
        }
      }
    } finally {
      done.set(true);
      query.join();
    }
    assertThat(wrong.get()).isNull();
    assertThat(reads.get()).isPositive();
  }

  /** What the query thread does until the writer is done or a read is wrong. */
  private static void read(Random random, DeferredWindowStore.Windows<String> windows, AtomicLong writtenUpTo,
      AtomicBoolean done, AtomicReference<String> wrong, AtomicLong reads) {
    while (!done.get() && wrong.get() == null) {
      long upTo = writtenUpTo.get();
      long start = random.nextLong(upTo / 10 + 1) * 10;
      var p = windows.get(start);
      if (p == null || !p.value().startsWith(start + ":")) {
        wrong.set("window " + start + " (written up to " + upTo + ") read as " + (p == null ? null : p.value()));
      }
      long previous = -1;
      for (var e : windows.range(start, start + 300).entrySet()) {
        if (e.getKey() <= previous || e.getKey() < start || e.getKey() > start + 300
            || !e.getValue().value().startsWith(e.getKey() + ":")) {
          wrong.set("range from " + start + " gave " + e.getKey() + "=" + e.getValue().value());
        }
        previous = e.getKey();
      }
      reads.incrementAndGet();
    }
  }
}
