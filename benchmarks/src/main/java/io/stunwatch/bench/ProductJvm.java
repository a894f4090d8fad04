package io.stunwatch.bench;

import io.stunwatch.launcher.Stunwatch;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code stunwatch} command in a JVM of its own, run from the product jar as a site runs it
 * ({@code java -Xmx<heap> -jar stunwatch.jar ARGS}), and what it costs: its heap live set, its RSS, its CPU time.
 * The benchmarks measure the product, not themselves: their own jar is never the one a child runs.
 */
final class ProductJvm {

  /**
   * What a process holds.
   *
   * @param heapBytes the heap in use after a full GC (its live set)
   * @param rssBytes  its resident set, or -1 when {@code /proc} does not say
   */
  record Memory(long heapBytes, long rssBytes) {
  }

  private final Process process;

  private ProductJvm(Process process) {
    this.process = process;
  }

  /** The product jar: where the {@code stunwatch} command's classes come from ({@code ./stunwatch bench} puts it). */
  static Path productJar() {
    Path jar = Path.of(URI.create(Stunwatch.class.getProtectionDomain().getCodeSource().getLocation().toString()));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("run the benchmarks with ./stunwatch bench, beside the product jar, not from "
          + jar);
    }
    return jar;
  }

  /**
   * Starts {@code stunwatch ARGS} with {@code -Xmx<heap>} and {@code env} added, its output to {@code logFile}. It
   * is never left running when this JVM goes, however it goes.
   */
  static ProductJvm start(String heap, Map<String, String> env, Path logFile, String... args) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heap, "-jar", productJar().toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logFile.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "bench-child-reaper"));
    return new ProductJvm(p);
  }

  /**
   * What a processor's log says of its start ({@code StartupTimeline}: from the JVM's start to the first RUNNING, by
   * part), or a note that it said nothing.
   */
  static String startupLine(Path logFile) throws IOException {
    try (var lines = Files.lines(logFile)) {
      return lines.filter(l -> l.contains("Running ") && l.contains(" ms after the JVM started"))
          .map(l -> l.substring(l.indexOf("Running "))).findFirst().orElse("(not in " + logFile.getFileName() + ")");
    }
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL: no shutdown hook, no flush, no commit. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** {@code jcmd GC.run}, then the heap in use and the RSS of process {@code pid}. */
  static Memory memory(long pid) throws Exception {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    Matcher m = Pattern.compile("used (\\d+)K").matcher(info);
    if (!m.find()) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info:\n" + info);
    }
    long heap = Long.parseLong(m.group(1)) * 1024;
    String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
    Matcher rss = Pattern.compile("VmRSS:\\s+(\\d+) kB").matcher(status);
    return new Memory(heap, rss.find() ? Long.parseLong(rss.group(1)) * 1024 : -1);
  }

  /** The CPU time (user and system) process {@code pid} has used, seconds, from {@code /proc/<pid>/stat}. */
  static double cpuSeconds(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields 14 and 15 of stat(5), counted after the command's closing parenthesis: utime, stime in clock ticks
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
  }

  private static String jcmd(long pid, String command) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd", String.valueOf(pid),
        command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + pid + " " + command + " failed:\n" + out);
    }
    return out;
  }
}
