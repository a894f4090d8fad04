package io.stunwatch.model;

/**
 * A GPU reading that names a host's device rather than a VM: the ESXi host's view of a vGPU, or a GPU exporter's
 * sample. The processor resolves each to its VM through the inventory, and it becomes a {@link GpuSample}.
 */
public sealed interface HostGpuReading permits HostVgpuSample, ExporterGpuSample {
}
