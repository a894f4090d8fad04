package io.stunwatch.model.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class AsciiStringsTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aRepeatedRunIsHandedTheSameString() {
    String first = AsciiStrings.of(utf8("4223a5e1-0d3c-4e3b-9f7a-1c2d3e4f5a6b"));
    String again = AsciiStrings.of(utf8("4223a5e1-0d3c-4e3b-9f7a-1c2d3e4f5a6b"));
    assertThat(again).isEqualTo("4223a5e1-0d3c-4e3b-9f7a-1c2d3e4f5a6b").isSameAs(first);
  }

  @Test
  void aRunInsideAPayloadIsReadFromItsOffset() {
    byte[] payload = utf8("{\"host\":\"esx-07.lab\",\"pstate\":\"P0\"}");
    assertThat(AsciiStrings.of(payload, 9, 10)).isEqualTo("esx-07.lab");
    assertThat(AsciiStrings.of(payload, 31, 2)).isEqualTo("P0");
    assertThat(AsciiStrings.of(payload, 0, 0)).isEmpty();
  }

  @Test
  void nonAsciiAndLongRunsAreDecodedAsUtf8AndNotShared() {
    String accented = "h\u00f4te-\u00e9t\u00e9";
    assertThat(AsciiStrings.of(utf8(accented))).isEqualTo(accented).isNotSameAs(AsciiStrings.of(utf8(accented)));
    String longRun = "x".repeat(AsciiStrings.MAX_LENGTH + 1);
    assertThat(AsciiStrings.of(utf8(longRun))).isEqualTo(longRun).isNotSameAs(AsciiStrings.of(utf8(longRun)));
    String longest = "y".repeat(AsciiStrings.MAX_LENGTH);
    assertThat(AsciiStrings.of(utf8(longest))).isSameAs(AsciiStrings.of(utf8(longest)));
  }

  @Test
  void moreDistinctRunsThanSlotsAreAllReadRight() {
    // Runs that share most bytes (a fleet's ids differ in a few digits) and collide in slots evict each other:
    // every answer must still be the run's own text.
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < 3 * AsciiStrings.SLOTS; i++) {
        String s = "vm-" + i + "-4223a5e1";
        assertThat(AsciiStrings.of(utf8(s))).isEqualTo(s);
      }
    }
  }

  @Test
  void threadsSharingTheTableEachGetTheirRunsText() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        Callable<Integer> work = () -> {
          int checked = 0;
          for (int i = 0; i < 50_000; i++) {
            String s = "gpu-" + (i * 7 + thread) % 5_000;
            assertThat(AsciiStrings.of(utf8(s))).isEqualTo(s);
            checked++;
          }
          return checked;
        };
        done.add(pool.submit(work));
      }
      for (Future<Integer> f : done) {
        assertThat(f.get()).isEqualTo(50_000);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
