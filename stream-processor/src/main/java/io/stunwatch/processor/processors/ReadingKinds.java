package io.stunwatch.processor.processors;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Duration;
import java.time.Instant;

/**
 * The kinds of a VM's samples as bits ({@link #GPU}, {@link #THROUGHPUT}, {@link #RDMA}), and what a VM's history
 * says of which kinds have arrived. Each kind comes in order on its own partition, so once a kind has a sample past
 * a range, the history holds all of that kind the range will ever have.
 */
final class ReadingKinds {

  static final int GPU = 1;
  static final int THROUGHPUT = 2;
  static final int RDMA = 4;
  static final int ALL = GPU | THROUGHPUT | RDMA;

  private ReadingKinds() {
  }

  /** The kind of sample a record's value is, or 0 for any other value. */
  static int of(Object value) {
    return value instanceof GpuSample ? GPU
        : value instanceof ThroughputSample ? THROUGHPUT
        : value instanceof RdmaCounterSample ? RDMA : 0;
  }

  /** The kinds a second of the history holds. */
  static int of(VmSamples.Point p) {
    return (p.samples() > 0 ? GPU : 0) | (p.throughput() != null ? THROUGHPUT : 0)
        | (p.rdmaBytesPerSec() != null ? RDMA : 0);
  }

  /** The kinds a range of the history holds. */
  static int of(VmSamples samples) {
    int kinds = 0;
    for (VmSamples.Point p : samples.points()) {
      kinds |= of(p);
    }
    return kinds;
  }

  /**
   * Whether the VM's samples of the alert window ({@code alertWindow} long) before {@code start} have all arrived,
   * so that the alert is never judged on part of its window (samples behind their events: a replay, a lagging
   * collector). Each kind the alert reads (GPU, RDMA) that the window holds must have passed the window's last second,
   * with one exception that keeps a live alert within a second of its event: the GPU samples of that last second are
   * whole when they cover every GPU the second before had (a multi-GPU VM reports a second GPU by GPU).
   */
  static boolean windowKnown(SampleHistory samples, String vmKey, Instant start, Duration alertWindow) {
    Instant last = start.minus(MigrationRanges.ALERT_WINDOW_END);
    VmSamples tail = samples.range(vmKey, last.minusSeconds(1),
        start.plusMillis(MigrationRanges.CLOSE_FALLBACK_MILLIS));
    VmSamples.Point previous = null;
    VmSamples.Point lastSecond = null;
    int passed = 0;
    for (VmSamples.Point p : tail.points()) {
      if (p.epochSecond() < last.getEpochSecond()) {
        previous = p;
      } else if (p.epochSecond() == last.getEpochSecond()) {
        lastSecond = p;
      } else {
        passed |= of(p);
      }
    }
    int known = passed & (GPU | RDMA);
    if (previous != null && lastSecond != null && previous.samples() > 0 && lastSecond.samples() > 0
        && (lastSecond.gpuMask() & previous.gpuMask()) == previous.gpuMask()) {
      known |= GPU;
    }
    if (known == 0) {
      return false;
    }
    int held = of(samples.range(vmKey, start.minus(alertWindow), last)) & (GPU | RDMA);
    return (known & held) == held;
  }
}
