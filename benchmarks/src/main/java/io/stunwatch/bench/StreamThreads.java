package io.stunwatch.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.Metric;
import org.apache.kafka.streams.KafkaStreams;

/**
 * What {@code bench processor} reads of its stream threads: their CPU time, Streams' own thread metrics, the records
 * each processed and when, and the rate while every thread had work.
 */
final class StreamThreads {

  private StreamThreads() {
  }

  /**
   * Where a stream thread's time went, from Streams' own thread metrics (windowed averages, so the end of the pass):
   * commits block on the broker under exactly-once, and show here when the thread is less than fully busy.
   */
  static String threadMetrics(KafkaStreams streams) {
    Map<String, Double> m = new TreeMap<>();
    streams.metrics().forEach((name, metric) -> {
      if (name.group().equals("stream-thread-metrics") && metric.metricValue() instanceof Double d
          && Set.of("commit-latency-avg", "commit-rate", "poll-latency-avg", "poll-rate", "punctuate-rate",
              "process-ratio", "commit-ratio", "poll-ratio", "punctuate-ratio", "process-records-avg")
          .contains(name.name())) {
        m.merge(name.name(), d, Double::sum);
      }
    });
    return m.entrySet().stream().map(e -> String.format("%s %.3g", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** The CPU time so far, in nanoseconds, of each live stream thread of application {@code appId}, by its name. */
  static Map<String, Long> streamThreadCpuNanos(String appId) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Map<String, Long> out = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      // "<appId>-<uuid>-StreamThread-<n>"; the clients' own threads carry the name after a prefix of their own.
      if (t.getName().startsWith(appId + "-") && t.getName().matches(".*-StreamThread-\\d+")) {
        out.merge(t.getName(), Math.max(0, mx.getThreadCpuTime(t.getId())), Long::sum);
      }
    }
    return out;
  }

  static long total(Map<String, Long> cpuNanos) {
    return cpuNanos.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Per stream thread: how busy it was from {@code before} to {@code after} (CPU over {@code wallNanos}), how many
   * records it processed in that time ({@code processedBefore} to {@code processedAfter}, from
   * Streams' {@code process-total}) and the tasks it ran, as sub-topology_partition. Why: Streams balances the number of
   * tasks per thread, not each sub-topology's, and a thread holding more tasks of the busiest one would set the pace of
   * a pass while the other waited. This shows whether it did, whether one thread stood idle more than the other, and
   * whether an idle one had records to do (a thread that started its share earlier ends it earlier too).
   */
  static String threadShares(KafkaStreams streams, Map<String, Long> before, Map<String, Long> after,
      Map<String, Double> processedBefore, Map<String, Double> processedAfter, long wallNanos) {
    List<String> out = new ArrayList<>();
    for (var t : streams.metadataForLocalThreads()) {
      String name = t.threadName();
      double busy = (after.getOrDefault(name, 0L) - before.getOrDefault(name, 0L)) / (double) Math.max(1, wallNanos);
      double processed = processedAfter.getOrDefault(name, Double.NaN) - processedBefore.getOrDefault(name, 0.0);
      out.add(String.format("%s busy %.2f, %,.0f records, tasks %s", shortName(name), busy, processed,
          t.activeTasks().stream().map(m -> m.taskId().toString()).sorted().collect(Collectors.joining(" "))));
    }
    return String.join("; ", out);
  }

  /** "StreamThread-N" of a stream thread's full name ("<appId>-<uuid>-StreamThread-N"). */
  static String shortName(String thread) {
    return thread.substring(thread.lastIndexOf("StreamThread"));
  }

  /** When each stream thread processed its first record, in seconds from the start of the pass. */
  static String firstRecords(List<Mark> marks) {
    Map<String, Double> at = new TreeMap<>();
    for (Mark m : marks) {
      m.processed().forEach((thread, n) -> {
        if (n > 0) {
          at.putIfAbsent(shortName(thread), m.nanos() / 1e9);
        }
      });
    }
    return at.entrySet().stream().map(e -> String.format("%s %.2f s", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** Streams' {@code process-total} of each stream thread, by thread name. */
  static Map<String, Metric> processTotals(KafkaStreams streams) {
    Map<String, Metric> out = new TreeMap<>();
    streams.metrics().forEach((name, metric) -> {
      if (name.group().equals("stream-thread-metrics") && name.name().equals("process-total")) {
        out.put(name.tags().get("thread-id"), metric);
      }
    });
    return out;
  }

  static Map<String, Double> processed(Map<String, Metric> processTotals) {
    Map<String, Double> out = new TreeMap<>();
    processTotals.forEach((thread, metric) -> out.put(thread,
        metric.metricValue() instanceof Double d ? d : 0.0));
    return out;
  }

  /** The records each stream thread had processed ({@code process-total}) at a moment of a pass, in ns from its start. */
  record Mark(long nanos, Map<String, Double> processed) {
    double total() {
      return processed.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /** A thread is done with its share once it is this close to its count at the end of the pass. */
  static final double DONE_SHARE = 0.99;

  /**
   * Records per second while every stream thread had input left to do: from the first mark at or after
   * {@code tenthNanos} at which each thread has processed some records, to the first at which one has done
   * {@link #DONE_SHARE} of what it did in the whole pass (its last records may be a repartition hop's, which arrive a
   * commit later). NaN when there is no such time of at least half a second. Why: a thread whose tasks start later than
   * the other's (the group leader's rejoin on a first start, waited out for a 3 s heartbeat) leaves
   * part of the steady window to the other thread alone, and so does a thread whose share is smaller; this rate shows
   * what both together do.
   */
  static double allThreadsAtWork(List<Mark> marks, long tenthNanos) {
    if (marks.isEmpty() || marks.get(marks.size() - 1).processed().size() < 2) {
      return Double.NaN;
    }
    Map<String, Double> finals = marks.get(marks.size() - 1).processed();
    int from = -1;
    int to = -1;
    for (int k = 0; k < marks.size() && to < 0; k++) {
      boolean allStarted = true;
      boolean oneDone = false;
      for (Map.Entry<String, Double> share : finals.entrySet()) {
        double count = marks.get(k).processed().getOrDefault(share.getKey(), 0.0);
        allStarted &= count > 0;
        oneDone |= count >= DONE_SHARE * share.getValue();
      }
      if (from < 0 && allStarted && marks.get(k).nanos() >= tenthNanos) {
        from = k;
      }
      if (from >= 0 && oneDone) {
        to = k;
      }
    }
    if (from < 0 || to <= from || marks.get(to).nanos() - marks.get(from).nanos() < 500_000_000L) {
      return Double.NaN;
    }
    return (marks.get(to).total() - marks.get(from).total())
        / ((marks.get(to).nanos() - marks.get(from).nanos()) / 1e9);
  }
}
