package io.stunwatch.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The CPU time of every thread of this process, the JVM's own (JIT compilers, GC) included, by kind of thread, from
 * {@code /proc/self/task}. Why: on a 2-core machine the benchmark's broker, clients, compilers and collector share
 * the cores with the stream threads, and a pass whose stream threads are less than busy may be short of CPU rather
 * than waiting on the broker. The whole process's share tells the two apart. The kernel keeps only the first 15
 * characters of a thread's name, so kinds are told by those.
 *
 * <p>Outside Linux (no {@code /proc/self/task}) a snapshot is empty and {@link #since} says so.
 */
final class ProcessCpu {

  /** Kinds of thread by the start of their kernel name (first match wins), and what everything else is called. */
  private static final List<Map.Entry<String, String>> KINDS = List.of(
      Map.entry("C1 CompilerThre", "JIT"), Map.entry("C2 CompilerThre", "JIT"),
      Map.entry("GC Thread", "GC and VM"), Map.entry("G1 ", "GC and VM"), Map.entry("VM Thread", "GC and VM"),
      Map.entry("data-plane-kafk", "broker requests"),
      Map.entry("kafka-producer-", "client network"), Map.entry("kafka-admin-cli", "client network"),
      Map.entry("kafka-coordinat", "client network"));
  private static final String OTHER = "other";

  /** Clock ticks a second of {@code /proc}'s utime and stime: USER_HZ, 100 on every Linux this runs on. */
  static final long TICKS_PER_SECOND = 100;

  private final Path taskDir;

  ProcessCpu(Path taskDir) {
    this.taskDir = taskDir;
  }

  static ProcessCpu self() {
    return new ProcessCpu(Path.of("/proc/self/task"));
  }

  /**
   * CPU ticks so far by kind of thread, of the threads alive now. A thread that ended between two snapshots takes
   * its time with it, so a pass's figures are a floor.
   */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    if (!Files.isDirectory(taskDir)) {
      return out;
    }
    try (Stream<Path> tasks = Files.list(taskDir)) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          String stat = Files.readString(t.resolve("stat"), StandardCharsets.US_ASCII);
          // "tid (name) state ppid ..." where the name may hold spaces and parentheses: the fields after the last ')'.
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name's closing parenthesis.
          out.merge(kind(name), Long.parseLong(f[11]) + Long.parseLong(f[12]), Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended while it was read: its time is not counted, as for one that ended before
        }
      }
    } catch (IOException e) {
      return out;
    }
    return out;
  }

  /**
   * The process's minor page faults so far (threads that ended included), from {@code stat} beside the task
   * directory ({@code /proc/self/stat}), or -1 where unknown. Why: a fault costs about 20 us of CPU on this project's
   * virtual machines (a 1 KB RocksDB put into fresh memtable memory took 7 us against 2-3 us into reused memory), so a
   * pass that maps new memory pays for it in CPU that no profile frame names.
   */
  long minorFaults() {
    try {
      String stat = Files.readString(taskDir.resolveSibling("stat"), StandardCharsets.US_ASCII);
      // minflt is field 10 of the line, 8 after the name's closing parenthesis.
      return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[7]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** The faults from {@code before} to {@code after} a thousand records, or "unknown" where either is unknown. */
  static String faultsSince(long before, long after, double records) {
    if (before < 0 || after < 0 || records <= 0) {
      return "minor page faults: unknown";
    }
    return String.format("minor page faults: %,d (%.1f per 1,000 records)", after - before,
        (after - before) * 1000.0 / records);
  }

  static String kind(String kernelName) {
    for (Map.Entry<String, String> k : KINDS) {
      if (kernelName.startsWith(k.getKey())) {
        return k.getValue();
      }
    }
    return OTHER;
  }

  /**
   * The process's CPU from {@code before} to {@code after} as shares of {@code wallNanos} (of one core), the whole
   * first and then each kind, largest first; {@code streamThreadNanos} (the stream threads' CPU over the same time,
   * from the JVM, which names them in full) is taken out of "other" and shown by itself.
   */
  static String since(Map<String, Long> before, Map<String, Long> after, long streamThreadNanos, long wallNanos) {
    if (after.isEmpty()) {
      return "process CPU: unknown (no /proc/self/task)";
    }
    double wallSeconds = Math.max(1, wallNanos) / 1e9;
    Map<String, Double> shares = new TreeMap<>();
    after.forEach((kind, ticks) -> shares.put(kind,
        (ticks - before.getOrDefault(kind, 0L)) / (double) TICKS_PER_SECOND / wallSeconds));
    double streams = streamThreadNanos / 1e9 / wallSeconds;
    shares.merge(OTHER, -streams, Double::sum);
    shares.put("stream threads", streams);
    double total = shares.values().stream().mapToDouble(Double::doubleValue).sum();
    return String.format("process CPU (cores): %.2f in all; ", total) + shares.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(e -> String.format("%s %.2f", e.getKey(), Math.max(0, e.getValue())))
        .collect(Collectors.joining(", "));
  }
}
