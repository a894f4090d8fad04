package io.stunwatch.collectors.hostvgpu;

import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.topic.Topics;
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

  /** Parses and publishes one output: the live path, which replay takes as well. */
  public static void accept(String text, Instant at, String source, Inputs inputs) {
    try {
      for (HostVgpuSample s : new VgpuQueryParser().parse(text, inputs.identity().hostname(), at, source)) {
        inputs.sample(CollectorInput.HOST_VGPU, Topics.HOST_VGPU_SAMPLES, s.key(), s, s.timestamp());
      }
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.HOST_VGPU, e);
    }
  }

  /**
   * Replays a recorded output: one {@code nvidia-smi vgpu -q}, or many, as {@code nvidia-smi vgpu -q -l 5} writes them,
   * each after its {@code ==============NVSMI LOG==============} banner. Each is stamped with its {@code Timestamp}
   * line (the host's local time, in {@code zone}), or with the file's modification time when it has none.
   */
  public static void replay(Path file, ZoneId zone, Inputs inputs) throws IOException {
    String text = Files.readString(file, StandardCharsets.UTF_8);
    Instant modified = Files.getLastModifiedTime(file).toInstant();
    LocalTimes times = new LocalTimes(zone, inputs.clock());
    String[] lines = text.split("\\R", -1);
    StringBuilder block = new StringBuilder();
    int blockLine = 1;
    for (int i = 0; i <= lines.length; i++) {
      boolean banner = i < lines.length && lines[i].startsWith("==============NVSMI LOG");
      if ((banner || i == lines.length) && !block.toString().isBlank()) {
        acceptBlock(block.toString(), blockLine, file, modified, times, inputs);
        block.setLength(0);
      }
      if (banner) {
        blockLine = i + 1;
      }
      if (i < lines.length) {
        block.append(lines[i]).append('\n');
      }
    }
  }

  private static void acceptBlock(String text, int firstLine, Path file, Instant modified, LocalTimes times,
      Inputs inputs) {
    Instant at = modified;
    for (String line : text.split("\n")) {
      if (line.startsWith("GPU ")) {
        break; // the header ends where the first GPU begins
      }
      int colon = line.indexOf(" : ");
      if (colon > 0 && line.substring(0, colon).strip().equalsIgnoreCase("Timestamp")) {
        String raw = line.substring(colon + 3).strip().replaceAll("\\s+", " ");
        try {
          at = times.resolve(LocalDateTime.parse(raw, TIMESTAMP));
        } catch (DateTimeParseException e) {
          inputs.parseError(CollectorInput.HOST_VGPU, new InputParseException(file.toString(), firstLine,
              "Timestamp '" + raw + "' is not like 'Fri Nov 27 10:00:05 2026': the block is skipped"));
          return;
        }
        break;
      }
    }
    accept(text, at, file + " (block at line " + firstLine + ")", inputs);
  }
}
