package io.stunwatch.metrics;

/** Values of {@link Meters#TAG_SOURCE}: the inputs whose freshness {@link Meters#LAST_EVENT} shows. */
public enum PipelineSource {
  /** GPU samples from the worker collectors (the newest in this instance's stores). */
  gpu_sample,
  /** vCenter events from the vCenter collectors. */
  vcenter_event
}
