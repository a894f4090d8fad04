package io.stunwatch.collectors.hostvgpu;

import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.topic.Topics;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.function.UnaryOperator;

/** Runs {@code nvidia-smi vgpu -q} (or the configured command) on a hypervisor host every interval. */
public final class NvidiaSmiVgpuSource extends PeriodicSource {

  /** nvidia-smi's {@code Timestamp}: "Fri Nov 27 10:00:05 2026" (a day below 10 padded with a space or not). */
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy",
      Locale.ENGLISH);

  private final HostVgpuConfig config;
  private final Inputs inputs;

  public NvidiaSmiVgpuSource(HostVgpuConfig config, Inputs inputs) {
    super("host-vgpu", config.interval());
    this.config = config;
    this.inputs = inputs;
  }

  @Override
  protected void poll() throws IOException, InterruptedException {
    Instant at = inputs.clock().instant();
    byte[] out = Commands.run(config.command(), Duration.ofSeconds(30));
    accept(new String(out, StandardCharsets.UTF_8), at, String.join(" ", config.command()), inputs);
  }

  /** Parses and publishes one output of this worker's host: the live path, which replay takes as well. */
  public static void accept(String text, Instant at, String source, Inputs inputs) {
    accept(text, inputs.identity().hostname(), at, source, inputs);
  }

  /** Parses and publishes one output of {@code hostname}. */
  public static void accept(String text, String hostname, Instant at, String source, Inputs inputs) {
    accept(text, hostname, at, source, inputs, UnaryOperator.identity());
  }

  /** Parses one output of {@code hostname}, completes each sample with {@code complete} and publishes it. */
  public static void accept(String text, String hostname, Instant at, String source, Inputs inputs,
      UnaryOperator<HostVgpuSample> complete) {
    try {
      for (HostVgpuSample parsed : new VgpuQueryParser().parse(text, hostname, at, source)) {
        HostVgpuSample s = complete.apply(parsed);
        inputs.sample(CollectorInput.HOST_VGPU, Topics.HOST_VGPU_SAMPLES, s.key(), s, s.timestamp());
      }
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.HOST_VGPU, e);
    }
  }

  /**
   * Publishes one block of a {@code -l} loop, stamped with its {@code Timestamp} line (the host's local time, read
   * by {@code times}), or with {@code fallback} when it has none. A block whose timestamp does not parse is reported
   * with its line and skipped.
   */
  public static void acceptBlock(VgpuBlockSplitter.Block block, String hostname, Instant fallback, String source,
      LocalTimes times, Inputs inputs) {
    acceptBlock(block, hostname, fallback, source, times, inputs, UnaryOperator.identity());
  }

  /** As {@link #acceptBlock(VgpuBlockSplitter.Block, String, Instant, String, LocalTimes, Inputs)}, each sample
   * completed with {@code complete}. */
  public static void acceptBlock(VgpuBlockSplitter.Block block, String hostname, Instant fallback, String source,
      LocalTimes times, Inputs inputs, UnaryOperator<HostVgpuSample> complete) {
    Instant at = fallback;
    if (block.timestamp() != null) {
      try {
        at = times.resolve(LocalDateTime.parse(block.timestamp(), TIMESTAMP));
      } catch (DateTimeParseException e) {
        inputs.parseError(CollectorInput.HOST_VGPU, new InputParseException(source, block.firstLine(),
            "Timestamp '" + block.timestamp() + "' is not like 'Fri Nov 27 10:00:05 2026': the block is skipped"));
        return;
      }
    }
    accept(block.text(), hostname, at, source + " (block at line " + block.firstLine() + ")", inputs, complete);
  }

  /**
   * Replays a recorded output: one {@code nvidia-smi vgpu -q}, or many, as {@code nvidia-smi vgpu -q -l 5} writes
   * them, cut as {@link VgpuBlockSplitter} says. Each is stamped with its {@code Timestamp} line (the host's local
   * time, in {@code zone}), or with the file's modification time when it has none.
   */
  public static void replay(Path file, ZoneId zone, Inputs inputs) throws IOException {
    Instant modified = Files.getLastModifiedTime(file).toInstant();
    LocalTimes times = new LocalTimes(zone, inputs.clock());
    String hostname = inputs.identity().hostname();
    VgpuBlockSplitter splitter = new VgpuBlockSplitter(
        b -> acceptBlock(b, hostname, modified, file.toString(), times, inputs));
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        splitter.line(line);
      }
    }
    splitter.finish();
  }
}
