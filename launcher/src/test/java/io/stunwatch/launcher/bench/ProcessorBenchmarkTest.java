package io.stunwatch.launcher.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ProcessorBenchmarkTest {

  private static final TopicPartition A = new TopicPartition("in", 0);
  private static final TopicPartition B = new TopicPartition("in", 1);
  private static final Map<TopicPartition, Long> ENDS = Map.of(A, 100L, B, 100L);
  private static final Map<String, Set<TopicPartition>> BY_THREAD = Map.of("t1", Set.of(A), "t2", Set.of(B));

  private static ProcessorBenchmark.Mark mark(double seconds, long a, long b) {
    return new ProcessorBenchmark.Mark((long) (seconds * 1e9), Map.of(A, a, B, b));
  }

  @Test
  void theRateWithEveryThreadAtWorkRunsFromWhenTheLastStartedToWhenTheFirstFinished() {
    List<ProcessorBenchmark.Mark> marks = List.of(mark(0, 0, 0), mark(1, 50, 0), mark(2, 90, 10), mark(3, 100, 40),
        mark(4, 100, 100));
    // From 2 s (both started, after the tenth at 0.5 s) to 3 s (the first thread done): 140 - 100 records in 1 s.
    assertThat(ProcessorBenchmark.allThreadsAtWork(marks, 500_000_000L, BY_THREAD, ENDS)).isEqualTo(40.0);
  }

  @Test
  void theWindowStartsNoEarlierThanTheTenth() {
    List<ProcessorBenchmark.Mark> marks = List.of(mark(0, 0, 0), mark(1, 10, 10), mark(2, 30, 20), mark(4, 100, 60),
        mark(5, 100, 100));
    // Both threads work from 1 s, but the tenth is at 2 s: from 2 s (50 records) to 4 s (160) is 55 records/s.
    assertThat(ProcessorBenchmark.allThreadsAtWork(marks, 2_000_000_000L, BY_THREAD, ENDS)).isEqualTo(55.0);
  }

  @Test
  void aThreadThatStartsAfterTheOtherFinishedLeavesNoWindow() {
    List<ProcessorBenchmark.Mark> marks = List.of(mark(0, 0, 0), mark(1, 60, 0), mark(2, 100, 0), mark(3, 100, 50),
        mark(4, 100, 100));
    assertThat(ProcessorBenchmark.allThreadsAtWork(marks, 0, BY_THREAD, ENDS)).isNaN();
  }
}
