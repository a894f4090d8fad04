package io.stunwatch.bench;

import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.Environment;
import org.apache.sshd.server.ExitCallback;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.channel.ChannelSession;
import org.apache.sshd.server.command.Command;

/**
 * {@code stunwatch bench hosts}: one real {@code stunwatch collect hosts} process (its own JVM) reading N simulated
 * ESXi hosts, all served by one Apache MINA SSHD server in this JVM, each printing {@code nvidia-smi vgpu -q -l}
 * blocks of V vGPUs every interval, to an embedded broker. Two passes, the baseline first: the same process reading
 * one host, then N. Each pass warms up, then measures the collector's CPU (its {@code /proc} ticks over the
 * measured time), the newest reading's age of every host (its own gauge, read every second), and its heap live set
 * after a full GC.
 */
public final class HostsBenchmark {

  /**
   * @param hosts    simulated hosts of the measured pass
   * @param vgpus    vGPUs each prints
   * @param interval {@code -l} of every host
   * @param warmup   before each pass's measurement
   * @param measure  each pass's measurement
   * @param heap     the collector's {@code -Xmx}
   * @param dir      working directory
   */
  public record Settings(int hosts, int vgpus, Duration interval, Duration warmup, Duration measure, String heap,
      Path dir) {
  }

  /**
   * One pass.
   *
   * @param hosts          hosts followed
   * @param streaming      hosts streaming at the end
   * @param cores          the collector's CPU over the measured time, in cores
   * @param heapLiveBytes  its heap after a full GC
   * @param rssBytes       its resident set
   * @param ageMaxSeconds  the oldest newest-reading of any host at any read
   * @param ageP99Seconds  the 99th percentile of every host's age at every read
   * @param samplesPerSec  samples it read a second
   */
  public record Pass(int hosts, long streaming, double cores, long heapLiveBytes, long rssBytes, double ageMaxSeconds,
      double ageP99Seconds, double samplesPerSec) {
  }

  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy",
      Locale.ENGLISH);
  private static final Pattern AGE = Pattern.compile(
      "^stunwatch_collector_host_reading_age_seconds\\{host=\"[^\"]+\"} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern STREAMING = Pattern.compile(
      "^stunwatch_collector_hosts\\{state=\"streaming\"} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern READ = Pattern.compile(
      "^stunwatch_collector_samples_read_total\\{input=\"host-vgpu\"} (\\S+)$", Pattern.MULTILINE);

  private final Settings settings;
  private final PrintWriter log;
  private final HttpClient http = HttpClient.newHttpClient();
  private final ScheduledExecutorService printers = Executors.newScheduledThreadPool(2, r -> {
    Thread t = new Thread(r, "bench-esx");
    t.setDaemon(true);
    return t;
  });
  private final AtomicInteger sessions = new AtomicInteger();

  public HostsBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  /** Runs the baseline pass (one host), then the measured one. */
  public List<Pass> run() throws Exception {
    Path dir = settings.dir();
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair client = g.generateKeyPair();
    KeyPair hostKey = g.generateKeyPair();
    Path identity = dir.resolve("id_ecdsa");
    try (OutputStream out = Files.newOutputStream(identity)) {
      OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(client, "stunwatch-bench", null, out);
    }
    SshServer server = SshServer.setUpDefaultServer();
    server.setHost("127.0.0.1");
    server.setPort(0);
    server.setKeyPairProvider(KeyPairProvider.wrap(hostKey));
    PublicKey allowed = client.getPublic();
    server.setPublickeyAuthenticator((user, key, session) -> key.equals(allowed));
    server.setPasswordAuthenticator(null);
    server.setKeyboardInteractiveAuthenticator(null);
    server.setCommandFactory((channel, command) -> new SimulatedNvidiaSmi(command));
    server.start();
    BrokerConfig bc = new BrokerConfig(dir.resolve("broker"), "localhost", 0, 0, 6, true);
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(bc)) {
      Path knownHosts = dir.resolve("known_hosts");
      Files.writeString(knownHosts, "[127.0.0.1]:" + server.getPort() + " "
          + PublicKeyEntry.toString(hostKey.getPublic()) + "\n");
      List<Pass> passes = new ArrayList<>();
      for (int n : List.of(1, settings.hosts())) {
        passes.add(pass(n, broker.bootstrapServers(), server.getPort(), identity, knownHosts));
      }
      return passes;
    } finally {
      server.stop(true);
      printers.shutdownNow();
    }
  }

  private Pass pass(int n, String bootstrap, int port, Path identity, Path knownHosts) throws Exception {
    Path dir = settings.dir();
    Path hosts = dir.resolve("hosts-" + n);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(String.format("esx-%04d 127.0.0.1:%d", i, port));
    }
    Files.write(hosts, lines);
    int metricsPort = freePort();
    Path config = dir.resolve("hosts-" + n + ".properties");
    Files.writeString(config, "kafka.bootstrap-servers=" + bootstrap + "\nhosts.source=file\nhosts.file=" + hosts
        + "\nhosts.ssh.user=bench\nhosts.ssh.identity-file=" + identity + "\nhosts.ssh.known-hosts=" + knownHosts
        + "\nhosts.interval=" + settings.interval().toSeconds() + "s\nhosts.metrics-port=" + metricsPort + "\n");
    ProductJvm p = ProductJvm.start(settings.heap(), Map.of(), dir.resolve("collector-" + n + ".log"), "collect",
        "hosts", "--config", config.toString());
    try {
      log.printf("pass of %d hosts: warming up %d s%n", n, settings.warmup().toSeconds());
      log.flush();
      Thread.sleep(settings.warmup().toMillis());
      long ticks0 = ticks(p.pid());
      double read0 = gauge(metrics(metricsPort), READ);
      long t0 = System.nanoTime();
      List<Double> ages = new ArrayList<>();
      double max = 0;
      while (System.nanoTime() - t0 < settings.measure().toNanos()) {
        Thread.sleep(1000);
        Matcher m = AGE.matcher(metrics(metricsPort));
        int seen = 0;
        while (m.find()) {
          double age = Double.parseDouble(m.group(1));
          seen++;
          // a host with no reading yet is as old as the measurement
          double a = Double.isNaN(age) ? (System.nanoTime() - t0) / 1e9 + settings.warmup().toSeconds() : age;
          ages.add(a);
          max = Math.max(max, a);
        }
        if (seen < n) {
          throw new IllegalStateException(seen + " of " + n + " hosts followed");
        }
      }
      double seconds = (System.nanoTime() - t0) / 1e9;
      long ticks = ticks(p.pid()) - ticks0;
      String page = metrics(metricsPort);
      double read = gauge(page, READ) - read0;
      long streaming = (long) gauge(page, STREAMING);
      ProductJvm.Memory memory = ProductJvm.memory(p.pid());
      Collections.sort(ages);
      double p99 = ages.get(Math.min(ages.size() - 1, (int) Math.ceil(ages.size() * 0.99) - 1));
      Pass pass = new Pass(n, streaming, ticks / (double) ProcessCpu.TICKS_PER_SECOND / seconds, memory.heapBytes(),
          memory.rssBytes(),
          max, p99, read / seconds);
      log.printf("pass of %d hosts: %s%n", n, pass);
      log.flush();
      return pass;
    } finally {
      p.kill();
    }
  }

  /** The markdown rows for docs/performance.md. */
  public static String table(Settings s, List<Pass> passes) {
    Pass base = passes.get(0);
    Pass run = passes.get(passes.size() - 1);
    StringBuilder b = new StringBuilder();
    b.append(String.format("| `collect hosts`, %d vGPUs a host every %d s | %d hosts | 1 host (baseline) |%n",
        s.vgpus(), s.interval().toSeconds(), run.hosts()));
    b.append("|---|---|---|\n");
    b.append(String.format("| hosts streaming | %d | %d |%n", run.streaming(), base.streaming()));
    b.append(String.format("| CPU | %.3f cores | %.3f cores |%n", run.cores(), base.cores()));
    b.append(String.format("| heap live set (after a full GC) | %.0f MiB | %.0f MiB |%n",
        run.heapLiveBytes() / 1048576.0, base.heapLiveBytes() / 1048576.0));
    b.append(String.format("| RSS | %.0f MiB | %.0f MiB |%n", run.rssBytes() / 1048576.0,
        base.rssBytes() / 1048576.0));
    b.append(String.format("| newest reading's age, p99 / max over every host and second | %.1f s / %.1f s | "
        + "%.1f s / %.1f s |%n", run.ageP99Seconds(), run.ageMaxSeconds(), base.ageP99Seconds(),
        base.ageMaxSeconds()));
    b.append(String.format("| samples read | %.0f /s | %.1f /s |%n", run.samplesPerSec(), base.samplesPerSec()));
    return b.toString();
  }

  private String metrics(int port) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  private static double gauge(String page, Pattern p) {
    Matcher m = p.matcher(page);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** utime + stime of every thread of the process, ended ones included, in clock ticks. */
  private static long ticks(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** A host's {@code nvidia-smi}: {@code vgpu -q -l N} prints a block every N seconds; {@code vgpu -ss} once. */
  private final class SimulatedNvidiaSmi implements Command {
    private final String command;
    private final int session = sessions.incrementAndGet();
    private OutputStream out;
    private ExitCallback exit;
    private ScheduledFuture<?> loop;

    SimulatedNvidiaSmi(String command) {
      this.command = command;
    }

    @Override
    public void setInputStream(InputStream in) {
    }

    @Override
    public void setOutputStream(OutputStream out) {
      this.out = out;
    }

    @Override
    public void setErrorStream(OutputStream err) {
    }

    @Override
    public void setExitCallback(ExitCallback callback) {
      this.exit = callback;
    }

    @Override
    public void start(ChannelSession channel, Environment env) {
      if (command.contains("-ss")) {
        printers.execute(() -> {
          write("GPU 00000000:3B:00.0\n    vGPU Scheduler State\n        Scheduler Policy : Equal Share\n");
          exit.onExit(0);
        });
        return;
      }
      long every = settings.interval().toMillis();
      loop = printers.scheduleAtFixedRate(this::block, 0, every, TimeUnit.MILLISECONDS);
    }

    private void block() {
      StringBuilder b = new StringBuilder(256 + 512 * settings.vgpus());
      b.append("\n==============NVSMI LOG==============\n\nTimestamp                                 : ")
          .append(TIMESTAMP.format(ZonedDateTime.now(ZoneOffset.UTC)))
          .append("\nDriver Version                            : 550.90.05\n\nGPU 00000000:3B:00.0\n")
          .append("    Product Name                          : NVIDIA A16\n")
          .append("    Active vGPUs                          : ").append(settings.vgpus()).append('\n');
      for (int v = 0; v < settings.vgpus(); v++) {
        int util = (session * 7 + v * 13 + (int) (System.currentTimeMillis() / 1000 % 30)) % 100;
        b.append("    vGPU ID                               : ").append(3_251_634_000L + session * 10L + v)
            .append("\n        VM ID                             : ").append(2_100_000 + session * 10 + v)
            .append("\n        VM Name                           : bench-vm-").append(session).append('-').append(v)
            .append("\n        vGPU Name                         : NVIDIA A16-4C")
            .append("\n        GPU Instance ID                   : N/A")
            .append("\n        FB Memory Usage\n            Total                         : 4096 MiB")
            .append("\n            Used                          : ").append(1024 + 100 * v).append(" MiB")
            .append("\n        Utilization\n            Gpu                           : ").append(util).append(" %")
            .append("\n            Memory                        : ").append(util / 2).append(" %\n");
      }
      write(b.toString());
    }

    private void write(String s) {
      try {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException e) {
        if (loop != null) {
          loop.cancel(false);
        }
      }
    }

    @Override
    public void destroy(ChannelSession channel) {
      if (loop != null) {
        loop.cancel(false);
      }
    }
  }
}
