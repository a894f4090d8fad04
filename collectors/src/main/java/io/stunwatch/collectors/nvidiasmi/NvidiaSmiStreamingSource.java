package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.Backoff;
import io.stunwatch.collectors.worker.CollectorSource;
import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.LineReader;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU samples from ONE long-running {@code nvidia-smi --query-gpu=... --format=csv,noheader,nounits -lms N} child:
 * nvidia-smi keeps NVML open and prints a line per GPU per interval, which costs a fraction of forking it for every
 * sample. When the child exits, it is restarted with exponential backoff; lines it prints that do not parse are
 * counted and skipped. A child that prints nothing for longer than its {@link SilenceWatchdog} allows (three intervals,
 * at least 10 s; {@link #STARTUP_GRACE} for its first line, as NVML initialises), which is a hung driver call, is
 * killed with all it started, and restarted the same way. A stun of the whole VM, as every vMotion makes, is not
 * the child's silence: it keeps its child, and the readings right after the migration.
 */
public final class NvidiaSmiStreamingSource implements CollectorSource {

  private static final Logger LOG = LoggerFactory.getLogger(NvidiaSmiStreamingSource.class);
  private static final int MAX_LINE = 64 * 1024;
  private static final Duration HEALTHY_RUN = Duration.ofSeconds(30);
  /** How long a new child may take to print its first line: NVML starts slowly without persistence mode. */
  static final Duration STARTUP_GRACE = Duration.ofSeconds(30);

  private final NvidiaSmiConfig config;
  private final ZoneId zone;
  private final Inputs inputs;
  private final Backoff backoff;
  private final Thread thread;
  private final ScheduledExecutorService watchdog;
  private final Duration checkEvery;
  private final SilenceWatchdog silence;
  private volatile boolean running;
  private volatile Process child;

  /**
   * @param config its settings
   * @param zone   the zone of nvidia-smi's timestamps
   * @param inputs where samples and errors go
   */
  public NvidiaSmiStreamingSource(NvidiaSmiConfig config, ZoneId zone, Inputs inputs) {
    this(config, zone, inputs, SilenceWatchdog.FLOOR);
  }

  /** As the public constructor, with the silence limit's floor given (tests of a hung child). */
  NvidiaSmiStreamingSource(NvidiaSmiConfig config, ZoneId zone, Inputs inputs, Duration silenceFloor) {
    this.config = config;
    this.zone = zone;
    this.inputs = inputs;
    this.backoff = new Backoff(Duration.ofSeconds(1).compareTo(config.restartBackoffMax()) > 0
        ? config.restartBackoffMax() : Duration.ofSeconds(1), config.restartBackoffMax());
    this.checkEvery = Duration.ofMillis(Math.max(50, Math.min(1000, config.interval().toMillis() / 2)));
    this.silence = new SilenceWatchdog(config.interval(), STARTUP_GRACE, silenceFloor, checkEvery, inputs.clock());
    this.thread = new Thread(this::run, "stunwatch-nvidia-smi");
    this.thread.setDaemon(true);
    this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "stunwatch-nvidia-smi-watchdog");
      t.setDaemon(true);
      return t;
    });
  }

  /** How long a child may print nothing, after its first line. */
  Duration silenceLimit() {
    return silence.limit();
  }

  /** Kills the child when it has been silent too long: its reader then sees the end and restarts it. */
  private void watch() {
    Process p = child;
    SilenceWatchdog.Verdict verdict = silence.check();
    if (verdict == SilenceWatchdog.Verdict.PAUSED) {
      LOG.info("This VM or process did not run for {} ms (a vMotion stun, or a paused JVM): nvidia-smi's silence "
          + "counts from now", silence.pausedMs());
    }
    if (p == null || !p.isAlive() || verdict != SilenceWatchdog.Verdict.HUNG) {
      return;
    }
    LOG.warn("nvidia-smi printed nothing for {} ms (limit {} ms); killing it to restart", silence.silentMs(),
        silence.currentLimit().toMillis());
    Commands.kill(p);
  }

  @Override
  public String name() {
    return "nvidia-smi";
  }

  @Override
  public void start() {
    running = true;
    watchdog.scheduleWithFixedDelay(this::watch, checkEvery.toMillis(), checkEvery.toMillis(),
        TimeUnit.MILLISECONDS);
    thread.start();
  }

  private void run() {
    boolean first = true;
    while (running) {
      if (!first) {
        inputs.metrics().restart(CollectorInput.NVIDIA_SMI);
        Duration delay = backoff.nextDelay();
        LOG.warn("nvidia-smi exited; restarting in {} ms", delay.toMillis());
        if (!sleep(delay)) {
          return;
        }
      }
      first = false;
      long started = System.nanoTime();
      try {
        NvidiaSmiQuery query = learnQuery();
        streamOnce(query);
      } catch (IOException e) {
        if (running) {
          LOG.warn("nvidia-smi failed: {}", e.getMessage());
        }
      }
      if (System.nanoTime() - started > HEALTHY_RUN.toNanos()) {
        backoff.reset();
      }
    }
  }

  /** Asks the driver which fields it knows; on failure queries them all and lets nvidia-smi say what is wrong. */
  NvidiaSmiQuery learnQuery() {
    try {
      byte[] out = Commands.run(List.of(config.executable(), "--help-query-gpu"), Duration.ofSeconds(30));
      NvidiaSmiQuery query = NvidiaSmiQuery.fromHelp(new String(out, StandardCharsets.UTF_8));
      if (!query.missing().isEmpty()) {
        LOG.info("This nvidia-smi lacks {}: those values will be absent",
            query.missing().stream().map(GpuField::queryName).toList());
      }
      return query;
    } catch (IOException | IllegalArgumentException e) {
      LOG.warn("Cannot learn the supported fields from {} --help-query-gpu ({}); querying all", config.executable(),
          e.getMessage());
      return NvidiaSmiQuery.all();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return NvidiaSmiQuery.all();
    }
  }

  private void streamOnce(NvidiaSmiQuery query) throws IOException {
    NvidiaSmiCsvParser parser = NvidiaSmiCsvParser.forQuery(query, zone, inputs.identity(), inputs.clock());
    Process p = new ProcessBuilder(command(query))
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    silence.started();
    child = p;
    LineReader lines = new LineReader(p.getInputStream(), MAX_LINE);
    long lineNumber = 0;
    try {
      String line;
      while ((line = lines.readLine()) != null) {
        silence.line();
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        accept(parser, line, lineNumber, lines.truncated(), inputs);
      }
    } finally {
      child = null;
      Commands.kill(p);
    }
  }

  /**
   * Parses and publishes one CSV line, or counts and logs why it is not a sample: the live path, which replay and
   * the demo's simulated workers take as well.
   */
  public static void accept(NvidiaSmiCsvParser parser, String line, long lineNumber, boolean truncated,
      Inputs inputs) {
    try {
      if (truncated) {
        throw new InputParseException("nvidia-smi stdout", lineNumber, "line longer than " + MAX_LINE + " bytes");
      }
      GpuSample s = parser.parse(line, lineNumber);
      inputs.sample(CollectorInput.NVIDIA_SMI, Topics.GPU_SAMPLES, s.vmId(), s, s.timestamp());
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.NVIDIA_SMI, e);
    }
  }

  List<String> command(NvidiaSmiQuery query) {
    return List.of(config.executable(), "--query-gpu=" + query.queryArgument(), "--format=csv,noheader,nounits",
        "-lms", Long.toString(config.interval().toMillis()));
  }

  private boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return running;
    } catch (InterruptedException e) {
      return false;
    }
  }

  /** The sampling thread (for per-thread CPU accounting in the benchmark). */
  Thread thread() {
    return thread;
  }

  @Override
  public void close() {
    running = false;
    watchdog.shutdownNow();
    Process p = child;
    if (p != null) {
      Commands.kill(p);
    }
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
