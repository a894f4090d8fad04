package io.stunwatch.model;

import java.time.Instant;

/**
 * One point of a migration's downsampled timeline (at most one per second). Absent figures had no sample.
 *
 * @param t                 second the point stands for
 * @param gpuUtilizationPct average GPU utilization, percent
 * @param fbUsedMiB         framebuffer used, MiB
 * @param rdmaBytesPerSec   RDMA rate, rx plus tx, bytes per second
 * @param throughput        training throughput
 */
public record TimelinePoint(
    Instant t,
    Double gpuUtilizationPct,
    Double fbUsedMiB,
    Double rdmaBytesPerSec,
    Double throughput) {

  public TimelinePoint {
    Checks.required(t, "timeline.t");
  }
}
