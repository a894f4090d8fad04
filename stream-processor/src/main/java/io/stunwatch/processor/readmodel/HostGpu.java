package io.stunwatch.processor.readmodel;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One physical GPU of an ESXi host as {@code nvidia-smi vgpu -q} last showed it: the value of
 * {@link StoreNames#HOST_GPUS}. Each of a GPU's vGPUs may be read in another partition, so a GPU can be held by several
 * tasks; a reader takes the newest ({@link #newer}).
 *
 * @param host            the ESXi host
 * @param pciBusId        the GPU's PCI bus id
 * @param gpuName         its product name, when the host printed it
 * @param schedulerPolicy its vGPU scheduler as the driver names it (best effort, equal share, fixed share), or null
 *                        when the driver did not print it
 * @param seenAt          when the host last reported it
 */
@Schema(name = "store.host-gpu")
public record HostGpu(String host, String pciBusId, String gpuName, String schedulerPolicy, Instant seenAt) {

  /** The newer of two readings of one GPU. */
  public static HostGpu newer(HostGpu a, HostGpu b) {
    return a == null ? b : b == null || !b.seenAt().isAfter(a.seenAt()) ? a : b;
  }

  /** This reading as seen at {@code at}. */
  public HostGpu withSeenAt(Instant at) {
    return new HostGpu(host, pciBusId, gpuName, schedulerPolicy, at);
  }

  /** The store key: {@code <host>|<pci bus id>}. */
  public static String key(String host, String pciBusId) {
    return host + "|" + pciBusId;
  }
}
