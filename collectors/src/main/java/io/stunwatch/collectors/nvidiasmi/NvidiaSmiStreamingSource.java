package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.Backoff;
import io.stunwatch.collectors.worker.CollectorSource;
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
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPU samples from ONE long-running {@code nvidia-smi --query-gpu=... --format=csv,noheader,nounits -lms N} child:
 * nvidia-smi keeps NVML open and prints a line per GPU per interval, which costs a fraction of forking it for every
 * sample. When the child exits, it is restarted with exponential backoff; lines it prints that do not parse are
 * counted and skipped.
 */
public final class NvidiaSmiStreamingSource implements CollectorSource {

  private static final Logger LOG = LoggerFactory.getLogger(NvidiaSmiStreamingSource.class);
  private static final int MAX_LINE = 64 * 1024;
  private static final Duration HEALTHY_RUN = Duration.ofSeconds(30);

  private final NvidiaSmiConfig config;
  private final ZoneId zone;
  private final Inputs inputs;
  private final Backoff backoff;
  private final Thread thread;
  private volatile boolean running;
  private volatile Process child;

  /**
   * @param config its settings
   * @param zone   the zone of nvidia-smi's timestamps
   * @param inputs where samples and errors go
   */
  public NvidiaSmiStreamingSource(NvidiaSmiConfig config, ZoneId zone, Inputs inputs) {
    this.config = config;
    this.zone = zone;
    this.inputs = inputs;
    this.backoff = new Backoff(Duration.ofSeconds(1).compareTo(config.restartBackoffMax()) > 0
        ? config.restartBackoffMax() : Duration.ofSeconds(1), config.restartBackoffMax());
    this.thread = new Thread(this::run, "stunwatch-nvidia-smi");
    this.thread.setDaemon(true);
  }

  @Override
  public String name() {
    return "nvidia-smi";
  }

  @Override
  public void start() {
    running = true;
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
      Process p = new ProcessBuilder(config.executable(), "--help-query-gpu").redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readNBytes(1 << 20);
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
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
    child = p;
    LineReader lines = new LineReader(p.getInputStream(), MAX_LINE);
    long lineNumber = 0;
    try {
      String line;
      while ((line = lines.readLine()) != null) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        accept(parser, line, lineNumber, lines.truncated(), inputs);
      }
    } finally {
      p.destroy();
      child = null;
    }
  }

  /** Parses and publishes one line: the live path, which replay and tests take as well. */
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
    Process p = child;
    if (p != null) {
      p.destroy();
    }
    thread.interrupt();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
