package io.stunwatch.collectors.throughput;

import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;

/** Follows a training job's log and publishes the throughput it reports. */
public final class LogTailThroughputSource extends PeriodicSource {

  private final ThroughputConfig config;
  private final ThroughputParser parser;
  private final Inputs inputs;
  private final LogTailer tailer;

  public LogTailThroughputSource(ThroughputConfig config, ZoneId zone, Inputs inputs) {
    super("throughput", config.interval());
    this.config = config;
    this.parser = new ThroughputParser(config.pattern(), config.unit(), zone);
    this.inputs = inputs;
    this.tailer = new LogTailer(config.logFile(), !config.fromBeginning());
  }

  @Override
  protected void poll() throws IOException {
    accept(tailer.poll(), parser, config.jobFor(config.logFile()), inputs);
  }

  /** Publishes the throughput of each line: the live path, which replay takes as well. */
  public static void accept(List<String> lines, ThroughputParser parser, String job, Inputs inputs) {
    for (String line : lines) {
      parser.parse(line, inputs.clock().instant()).ifPresent(f -> {
        ThroughputSample s = parser.sample(f, inputs.identity().vmId(), inputs.identity().hostname(), job);
        inputs.sample(CollectorInput.THROUGHPUT, Topics.THROUGHPUT_SAMPLES, s.vmId(), s, s.timestamp());
      });
    }
  }

  /** Replays a whole log file. */
  public static void replay(Path file, ThroughputConfig config, ZoneId zone, Inputs inputs) throws IOException {
    replay(file, config.jobFor(file), config, zone, inputs);
  }

  /** As {@link #replay(Path, ThroughputConfig, ZoneId, Inputs)}, the samples named for {@code job}. */
  public static void replay(Path file, String job, ThroughputConfig config, ZoneId zone, Inputs inputs)
      throws IOException {
    try (LogTailer t = new LogTailer(file, false)) {
      accept(t.poll(), new ThroughputParser(config.pattern(), config.unit(), zone), job, inputs);
    }
  }

  @Override
  public void close() {
    super.close();
    try {
      tailer.close();
    } catch (IOException e) {
      // closing a read-only file: nothing to recover
    }
  }
}
