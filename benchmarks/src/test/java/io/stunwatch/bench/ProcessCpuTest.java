package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessCpuTest {

  @TempDir
  Path dir;

  /** A /proc/self/task/<tid>/stat line as the kernel writes it, with {@code utime} and {@code stime} in ticks. */
  private void thread(int tid, String name, long utime, long stime) throws IOException {
    Path t = Files.createDirectories(dir.resolve(Integer.toString(tid)));
    Files.writeString(t.resolve("stat"), tid + " (" + name + ") S 1 1 1 0 -1 4194624 100 0 0 0 " + utime + " "
        + stime + " 0 0 20 0 30 0 12345 1000 200 18446744073709551615\n");
  }

  @Test
  void ticksAreSummedByKindOfThreadFromTheFieldsAfterTheName() throws IOException {
    thread(10, "C2 CompilerThre", 30, 5);
    thread(11, "C1 CompilerThre", 10, 0);
    thread(12, "GC Thread#0", 7, 3);
    // A name with a space and a parenthesis: the fields are counted from the last ')'.
    thread(13, "data-plane-kafk", 40, 20);
    thread(14, "x) (y", 1, 2);
    thread(15, "bench-topology-", 200, 50);
    assertThat(new ProcessCpu(dir).snapshot()).containsExactly(Map.entry("GC and VM", 10L),
        Map.entry("JIT", 45L), Map.entry("broker requests", 60L), Map.entry("other", 253L));
  }

  @Test
  void sharesAreOfWallTimeWithTheStreamThreadsTakenOutOfOther() {
    Map<String, Long> before = Map.of("JIT", 100L, "other", 1_000L);
    // Over 2 s: JIT 20 ticks (0.10 of a core), other 300 ticks (1.50) of which the stream threads used 1.2 s.
    Map<String, Long> after = Map.of("JIT", 120L, "other", 1_300L);
    assertThat(ProcessCpu.since(before, after, 2_400_000_000L, 2_000_000_000L))
        .isEqualTo("process CPU (cores): 1.60 in all; stream threads 1.20, other 0.30, JIT 0.10");
  }

  @Test
  void withoutProcTheFiguresAreUnknownNotZero() {
    ProcessCpu none = new ProcessCpu(dir.resolve("absent"));
    assertThat(none.snapshot()).isEmpty();
    assertThat(ProcessCpu.since(Map.of(), none.snapshot(), 0, 1_000_000_000L))
        .isEqualTo("process CPU: unknown (no /proc/self/task)");
  }

  @Test
  void minorFaultsAreTheTenthFieldOfTheProcesssStatLine() throws IOException {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Files.createDirectories(proc.resolve("task"));
    // minflt (field 10) 73,104; cminflt 11 and majflt 5 follow it. The name holds a ") " to be skipped.
    Files.writeString(proc.resolve("stat"), "4242 (java) x) S 1 4242 4242 0 -1 4194560 73104 11 5 0 900 80 0 0 "
        + "20 0 57 0 1234 9000000 30000 18446744073709551615\n");
    assertThat(new ProcessCpu(proc.resolve("task")).minorFaults()).isEqualTo(73_104L);
    assertThat(ProcessCpu.faultsSince(73_104L, 80_604L, 250_000))
        .isEqualTo("minor page faults: 7,500 (30.0 per 1,000 records)");
  }

  @Test
  void withoutTheStatLineTheFaultsAreUnknownNotZero() {
    assertThat(new ProcessCpu(dir.resolve("absent").resolve("task")).minorFaults()).isEqualTo(-1L);
    assertThat(ProcessCpu.faultsSince(-1, 500, 1_000)).isEqualTo("minor page faults: unknown");
    assertThat(ProcessCpu.faultsSince(100, 500, 0)).isEqualTo("minor page faults: unknown");
  }
}
