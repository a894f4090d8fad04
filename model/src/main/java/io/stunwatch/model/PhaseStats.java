package io.stunwatch.model;

import java.time.Instant;

/**
 * Averages of the workload over one phase of a migration (before, during or after). Each figure is absent when no
 * sample of that kind fell in the phase.
 *
 * @param from               phase start (inclusive)
 * @param to                 phase end (exclusive)
 * @param gpuSamples         GPU samples that fell in the phase
 * @param gpuUtilizationPct  average GPU utilization, percent
 * @param fbUsedMiB          average framebuffer used, MiB
 * @param fbTotalMiB         framebuffer size, MiB
 * @param rdmaBytesPerSec    average RDMA rate, rx plus tx, bytes per second
 * @param throughput         average training throughput, in the job's unit
 */
public record PhaseStats(
    Instant from,
    Instant to,
    long gpuSamples,
    Double gpuUtilizationPct,
    Double fbUsedMiB,
    Double fbTotalMiB,
    Double rdmaBytesPerSec,
    Double throughput) {

  public PhaseStats {
    Checks.required(from, "phase.from");
    Checks.required(to, "phase.to");
    Checks.range(gpuUtilizationPct, 0, 100, "phase.gpuUtilizationPct");
    Checks.nonNegative(rdmaBytesPerSec, "phase.rdmaBytesPerSec");
  }
}
