package io.stunwatch.collectors.hostvgpu;

import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
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

/** Runs {@code nvidia-smi vgpu -q} (or the configured command) on a hypervisor host every interval. */
public final class NvidiaSmiVgpuSource extends PeriodicSource {

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
  static void accept(String text, Instant at, String source, Inputs inputs) {
    try {
      for (HostVgpuSample s : new VgpuQueryParser().parse(text, inputs.identity().hostname(), at, source)) {
        inputs.sample(CollectorInput.HOST_VGPU, Topics.HOST_VGPU_SAMPLES, s.key(), s, s.timestamp());
      }
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.HOST_VGPU, e);
    }
  }

  /** Replays a recorded output, stamped with the file's modification time (when it was taken). */
  public static void replay(Path file, Inputs inputs) throws IOException {
    accept(Files.readString(file, StandardCharsets.UTF_8), Files.getLastModifiedTime(file).toInstant(),
        file.toString(), inputs);
  }
}
