package io.stunwatch.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Where a Streams pass waits, as differences between two snapshots: the clients' cumulative blocking times (the
 * producer's flushes and transaction calls, the thread's total time blocked on Kafka) and, from the embedded broker in
 * this JVM, how long each kind of request took and in which stage. Under exactly-once a stream thread that is less
 * than fully busy is waiting on one of these; this says which, and whether the broker was slow to start a request
 * (queue), to do it (local), or held it (remote, a purgatory).
 */
final class WaitBreakdown {

  /** Client totals (nanoseconds), summed over the application's clients. */
  private static final List<String> CLIENT_TOTALS = List.of("blocked-time-ns-total", "flush-time-ns-total",
      "txn-commit-time-ns-total", "txn-send-offsets-time-ns-total", "txn-begin-time-ns-total");
  /**
   * Producer counts, summed likewise: the records and bytes a pass wrote (its changelogs, mostly), and the retries of
   * produce requests that the broker turned away.
   */
  private static final List<String> CLIENT_COUNTS = List.of("record-send-total", "outgoing-byte-total",
      "record-retry-total", "record-error-total", "request-total");
  private static final List<String> REQUESTS = List.of("Produce", "EndTxn", "TxnOffsetCommit", "AddOffsetsToTxn",
      "AddPartitionsToTxn", "Fetch", "WriteTxnMarkers");
  private static final List<String> STAGES = List.of("TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs",
      "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs");

  /**
   * The clients' time waiting on their sockets, by kind of client. Streams' {@code blocked-time-ns-total} sums the
   * main, restore and admin clients' waits with the producer's flushes and transaction calls: this says which client
   * it was. Only the main consumer's wait is the stream thread's own (it waits in poll).
   */
  private static final String IO_WAIT = "io-wait-time-ns-total";
  /**
   * The fetch requests the clients sent. A pass whose main consumers wait on their sockets sends 1.3 to 3 times as
   * many as the fast passes of the same run, and with a zero fetch wait
   * thousands: the count says whether the consumers were fetching or waiting on a fetch.
   */
  private static final String FETCHES = "fetch-total";
  private static final List<String> CLIENT_KINDS = List.of("main consumer", "restore consumer", "global consumer",
      "producer", "admin", "other");

  private final Map<String, Double> values;
  private final long atNanos;

  private WaitBreakdown(Map<String, Double> values, long atNanos) {
    this.values = values;
    this.atNanos = atNanos;
  }

  static WaitBreakdown of(KafkaStreams streams) {
    return of(streams.metrics(), System.nanoTime());
  }

  /** A snapshot of {@code metrics} (an application's client metrics) and of the in-process broker's, if any. */
  static WaitBreakdown of(Map<MetricName, ? extends Metric> metrics, long atNanos) {
    Map<String, Double> v = new LinkedHashMap<>();
    metrics.forEach((name, metric) -> {
      // The consumer also keeps a fetch-total per topic; the client's own has no topic tag.
      if ((name.name().equals(IO_WAIT) || name.name().equals(FETCHES)) && !name.tags().containsKey("topic")
          && metric.metricValue() instanceof Double d) {
        v.merge(name.name() + "." + clientKind(name.tags().get("client-id")), d, Double::sum);
      }
      if ((CLIENT_TOTALS.contains(name.name()) || CLIENT_COUNTS.contains(name.name())
          && name.group().equals("producer-metrics")) && metric.metricValue() instanceof Double d) {
        v.merge(name.name(), d, Double::sum);
      }
    });
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    for (String r : REQUESTS) {
      for (String s : STAGES) {
        try {
          ObjectName n = new ObjectName("kafka.network:type=RequestMetrics,name=" + s + ",request=" + r);
          long count = ((Number) jmx.getAttribute(n, "Count")).longValue();
          double mean = ((Number) jmx.getAttribute(n, "Mean")).doubleValue();
          v.put(r + "." + s + ".count", (double) count);
          v.put(r + "." + s + ".sum", mean * count);
        } catch (JMException e) {
          // not registered: the broker has served no such request
        }
      }
      try {
        for (ObjectName n : jmx.queryNames(new ObjectName("kafka.network:type=RequestMetrics,name=ErrorsPerSec,request="
            + r + ",*"), null)) {
          String error = n.getKeyProperty("error");
          if (!"NONE".equals(error)) {
            v.put(r + ".error." + error, ((Number) jmx.getAttribute(n, "Count")).doubleValue());
          }
        }
      } catch (JMException e) {
        // no errors recorded
      }
    }
    return new WaitBreakdown(v, atNanos);
  }

  /** What happened between {@code before} and this snapshot, as lines for the log. */
  String since(WaitBreakdown before) {
    double wallNs = Math.max(1, atNanos - before.atNanos);
    StringBuilder out = new StringBuilder("    client waits (share of wall time): ");
    out.append(CLIENT_TOTALS.stream().filter(values::containsKey)
        .map(k -> String.format("%s %.3f", k.replace("-ns-total", ""), delta(before, k) / wallNs))
        .collect(Collectors.joining(", ")));
    out.append(CLIENT_COUNTS.stream().filter(values::containsKey)
        .map(k -> String.format(", %s %.0f", k, delta(before, k))).collect(Collectors.joining()));
    out.append(String.format("%n    io waits (share of wall time, by client): %s", byClient(before, IO_WAIT, wallNs,
        "%.3f")));
    out.append(String.format("%n    fetch requests (by client): %s", byClient(before, FETCHES, 1, "%.0f")));
    values.keySet().stream().filter(k -> k.contains(".error.") && delta(before, k) > 0)
        .forEach(k -> out.append(String.format("%n    broker %s: %.0f", k, delta(before, k))));
    for (String r : REQUESTS) {
      double n = delta(before, r + ".TotalTimeMs.count");
      if (n <= 0) {
        continue;
      }
      out.append(String.format("%n    broker %s: %.0f requests, mean ms", r, n));
      for (String s : STAGES) {
        out.append(String.format(" %s %.2f", s.replace("TimeMs", ""), delta(before, r + "." + s + ".sum") / n));
      }
    }
    return out.toString();
  }

  /** {@code metric}'s change since {@code before} over {@code per}, for each kind of client that has it. */
  private String byClient(WaitBreakdown before, String metric, double per, String format) {
    return CLIENT_KINDS.stream().filter(k -> values.containsKey(metric + "." + k))
        .map(k -> k + " " + String.format(format, delta(before, metric + "." + k) / per))
        .collect(Collectors.joining(", "));
  }

  /** Streams names its clients {@code <thread>-consumer}, {@code -restore-consumer}, {@code -producer} and so on. */
  static String clientKind(String clientId) {
    if (clientId == null) {
      return "other";
    }
    if (clientId.endsWith("-restore-consumer")) {
      return "restore consumer";
    }
    if (clientId.endsWith("-global-consumer")) {
      return "global consumer";
    }
    if (clientId.endsWith("-consumer")) {
      return "main consumer";
    }
    if (clientId.endsWith("-producer")) {
      return "producer";
    }
    return clientId.endsWith("-admin") ? "admin" : "other";
  }

  private double delta(WaitBreakdown before, String key) {
    return values.getOrDefault(key, 0.0) - before.values.getOrDefault(key, 0.0);
  }
}
