package io.stunwatch.collectors.throughput;

import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.topic.Topics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
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

  /**
   * Refuses a file that a replay would read as a training log but in which no line is a throughput line (built in,
   * or {@code throughput.pattern}): it is no recording Stunwatch reads (a README, a note, a format it does not
   * know), and its VM and job are beside the point.
   *
   * @throws ReplayRefusedException with the forms a worker's replay reads
   */
  public static void requireThroughput(Path file, ThroughputConfig config, ZoneId zone) throws IOException {
    ThroughputParser parser = new ThroughputParser(config.pattern(), config.unit(), zone);
    Instant any = Instant.EPOCH;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(Files.newInputStream(file),
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE)))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (parser.parse(line, any).isPresent()) {
          return;
        }
      }
    }
    throw new ReplayRefusedException("text in no form Stunwatch reads",
        "no line is nvidia-smi's (--query-gpu CSV, -q, -q -x, vgpu -q), an RDMA counter listing, or a training "
            + "log's throughput (tf_cnn_benchmarks' 'images/sec: 245.3 +/- 0.0', Horovod's 'Total img/sec on 8 "
            + "GPU(s): 2487.2'); for another framework's log set throughput.pattern, a regex with a named group "
            + "'value', or give --replay-as to read it as one form");
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
