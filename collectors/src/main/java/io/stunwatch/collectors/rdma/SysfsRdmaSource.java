package io.stunwatch.collectors.rdma;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.PeriodicSource;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.topic.Topics;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the RDMA port counters from sysfs every interval. */
public final class SysfsRdmaSource extends PeriodicSource {

  private final Path root;
  private final Inputs inputs;
  /** One reader for the source's life: it remembers which counter files are extended-width (64-bit). */
  private final SysfsRdmaReader reader;

  public SysfsRdmaSource(RdmaConfig config, Inputs inputs) {
    super("rdma", config.interval());
    this.root = config.root();
    this.inputs = inputs;
    this.reader = new SysfsRdmaReader(root, inputs.identity());
  }

  @Override
  protected void poll() {
    if (Files.isDirectory(root)) { // a machine without RDMA devices: nothing to read, nothing wrong
      readOnce(reader, inputs);
    }
  }

  /** Reads and publishes every port once, as replay of a sysfs tree does. */
  public static void readOnce(Path root, Inputs inputs) {
    readOnce(new SysfsRdmaReader(root, inputs.identity()), inputs);
  }

  /** Reads and publishes every port once: the live path. */
  private static void readOnce(SysfsRdmaReader reader, Inputs inputs) {
    try {
      SysfsRdmaReader.Result r = reader.read(inputs.clock().instant());
      for (RdmaCounterSample s : r.samples()) {
        inputs.sample(CollectorInput.RDMA, Topics.RDMA_SAMPLES, s.vmId(), s, s.timestamp());
      }
      r.problems().forEach(p -> inputs.parseError(CollectorInput.RDMA, p));
    } catch (InputParseException e) {
      inputs.parseError(CollectorInput.RDMA, e);
    }
  }
}
