package io.stunwatch.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class ProcessorBenchmarkTest {

  private static StreamThreads.Mark mark(double seconds, double a, double b) {
    return new StreamThreads.Mark((long) (seconds * 1e9), Map.of("t1", a, "t2", b));
  }

  @Test
  void theRateWithEveryThreadAtWorkRunsFromWhenTheLastStartedToWhenTheFirstFinished() {
    List<StreamThreads.Mark> marks = List.of(mark(0, 0, 0), mark(1, 50, 0), mark(2, 90, 10), mark(3, 100, 40),
        mark(4, 100, 100));
    // From 2 s (both started, after the tenth at 0.5 s) to 3 s (the first thread done): 140 - 100 records in 1 s.
    assertThat(StreamThreads.allThreadsAtWork(marks, 500_000_000L)).isEqualTo(40.0);
  }

  @Test
  void theWindowStartsNoEarlierThanTheTenth() {
    List<StreamThreads.Mark> marks = List.of(mark(0, 0, 0), mark(1, 10, 10), mark(2, 30, 20), mark(4, 100, 60),
        mark(5, 100, 100));
    // Both threads work from 1 s, but the tenth is at 2 s: from 2 s (50 records) to 4 s (160) is 55 records/s.
    assertThat(StreamThreads.allThreadsAtWork(marks, 2_000_000_000L)).isEqualTo(55.0);
  }

  @Test
  void aThreadIsDoneWithinOnePercentOfItsFinalCountAsItsLastRecordsMayComeACommitLater() {
    // t1 ends at 1,000 records at 3 s but takes its last 5 (a repartition hop's) at 5 s: the window ends at 3 s.
    List<StreamThreads.Mark> marks = List.of(mark(0, 0, 0), mark(1, 400, 300), mark(3, 995, 800),
        mark(4, 995, 1000), mark(5, 1000, 1000));
    assertThat(StreamThreads.allThreadsAtWork(marks, 0)).isEqualTo((1795.0 - 700.0) / 2);
  }

  @Test
  void aThreadThatStartsAfterTheOtherFinishedLeavesNoWindow() {
    List<StreamThreads.Mark> marks = List.of(mark(0, 0, 0), mark(1, 60, 0), mark(2, 100, 0), mark(3, 100, 50),
        mark(4, 100, 100));
    assertThat(StreamThreads.allThreadsAtWork(marks, 0)).isNaN();
  }

  private static ProcessorBenchmark.Throughput pass(double perSec, double busy) {
    return new ProcessorBenchmark.Throughput(perSec, perSec / 2, 1, busy, Double.NaN);
  }

  @Test
  void eachRoundsTopologyCpuIsDividedByItsOwnRoundsPassthrough() {
    // Round 1: 1.2 cores at 200,000/s = 6 us a record against 1.0 at 500,000/s = 2 us: 3.0. Round 2, a slower
    // machine: 8 us against 2.5 us, 3.2. Round 3 has no CPU figure for the passthrough.
    double[] r = ProcessorBenchmark.cpuAgainstPassthrough(
        List.of(pass(200_000, 1.2), pass(150_000, 1.2), pass(250_000, 1.0)),
        List.of(pass(500_000, 1.0), pass(400_000, 1.0), pass(500_000, Double.NaN)));
    assertThat(r).hasSize(3);
    assertThat(r[0]).isCloseTo(3.0, Offset.offset(1e-9));
    assertThat(r[1]).isCloseTo(3.2, Offset.offset(1e-9));
    assertThat(r[2]).isNaN();
    assertThat(ProcessorBenchmark.median(r)).isCloseTo(3.1, Offset.offset(1e-9));
  }

  @Test
  void theMedianLeavesUnknownValuesOutAndIsUnknownWithoutAny() {
    assertThat(ProcessorBenchmark.median(new double[] {5, Double.NaN, 1, 3})).isEqualTo(3.0);
    assertThat(ProcessorBenchmark.median(new double[] {Double.NaN})).isNaN();
    assertThat(ProcessorBenchmark.median(new double[0])).isNaN();
  }
}
