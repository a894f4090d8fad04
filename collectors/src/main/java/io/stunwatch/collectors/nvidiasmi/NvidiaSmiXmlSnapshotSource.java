package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.Commands;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * {@code nvidia-smi -q -x} every {@link NvidiaSmiConfig#snapshotInterval()}: what the streamed CSV lacks (processes,
 * MIG devices, virtualization mode). A fork per snapshot is fine at one a minute.
 */
public final class NvidiaSmiXmlSnapshotSource extends PeriodicSource {

  private final NvidiaSmiConfig config;
  private final NvidiaSmiXmlParser parser;
  private final Inputs inputs;

  public NvidiaSmiXmlSnapshotSource(NvidiaSmiConfig config, ZoneId zone, Inputs inputs) {
    super("nvidia-smi-snapshot", config.snapshotInterval());
    this.config = config;
    this.parser = new NvidiaSmiXmlParser(zone, inputs.identity(), inputs.clock());
    this.inputs = inputs;
  }

  @Override
  protected void poll() throws IOException, InterruptedException {
    byte[] xml = Commands.run(List.of(config.executable(), "-q", "-x"), Duration.ofSeconds(30));
    accept(parser, xml, config.executable() + " -q -x", inputs);
  }

  /** Parses and publishes one document: the live path, which replay takes as well. */
  static void accept(NvidiaSmiXmlParser parser, byte[] xml, String source, Inputs inputs) {
    try {
      GpuSnapshot s = parser.parse(xml, source);
      inputs.sample(CollectorInput.NVIDIA_SMI_SNAPSHOT, Topics.GPU_SNAPSHOTS, s.vmId(), s, s.timestamp());
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.NVIDIA_SMI_SNAPSHOT, e);
    }
  }
}
