package io.stunwatch.metrics;

import java.util.Locale;

/** The worker collector's inputs: the values of tag {@link Meters#TAG_INPUT}. */
public enum CollectorInput {
  /** The streaming {@code nvidia-smi --query-gpu} child. */
  NVIDIA_SMI,
  /** Periodic {@code nvidia-smi -q -x} snapshots. */
  NVIDIA_SMI_SNAPSHOT,
  /** {@code nvidia-smi vgpu -q} on a hypervisor host. */
  HOST_VGPU,
  /** RDMA port counters from sysfs. */
  RDMA,
  /** Training throughput from a log file. */
  THROUGHPUT,
  /** GPU readings scraped from dcgm-exporter or nvidia_gpu_exporter ({@code stunwatch collect prometheus}). */
  EXPORTER,
  /** vMotions' precopy bandwidth from an ESXi host's {@code vmkernel.log} ({@code stunwatch collect hosts}). */
  VMKERNEL_LOG;

  /** The tag value: lower case with dashes, e.g. {@code nvidia-smi}. */
  public String tag() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
