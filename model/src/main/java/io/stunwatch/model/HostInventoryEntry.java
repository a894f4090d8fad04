package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * The current inventory facts of one ESXi host. Compacted topic keyed by {@code <vcenterUuid>/<moref>}; a removed
 * host is a tombstone.
 *
 * @param vcenterUuid        instance UUID of the owning vCenter
 * @param moref              host moref value, e.g. {@code host-12}
 * @param name               host name
 * @param cluster            its cluster
 * @param gpus               physical GPUs of the host
 * @param vmotionNicSpeedMbps link speed of the vMotion vmknic's uplink, Mbit/s, when known
 * @param observedAt         when the collector read these properties
 * @param esxiVersion        the host's ESXi version ({@code summary.config.product.version}), when known
 * @param vcenterVersion     the version of the vCenter that reported it ({@code about.version}), when known: what
 *                           VMware's published stun figure is chosen by
 */
@Schema(name = "host-inventory")
public record HostInventoryEntry(
    String vcenterUuid,
    String moref,
    String name,
    EntityRef cluster,
    List<HostGpu> gpus,
    Long vmotionNicSpeedMbps,
    Instant observedAt,
    String esxiVersion,
    String vcenterVersion) {

  /** An entry without versions. */
  public HostInventoryEntry(String vcenterUuid, String moref, String name, EntityRef cluster, List<HostGpu> gpus,
      Long vmotionNicSpeedMbps, Instant observedAt) {
    this(vcenterUuid, moref, name, cluster, gpus, vmotionNicSpeedMbps, observedAt, null, null);
  }

  public HostInventoryEntry {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(moref, "moref");
    Checks.required(observedAt, "observedAt");
    gpus = Checks.list(gpus);
    Checks.nonNegative(vmotionNicSpeedMbps, "vmotionNicSpeedMbps");
  }

  /** This entry as read at another time: what tells whether anything else changed. */
  public HostInventoryEntry withObservedAt(Instant at) {
    return new HostInventoryEntry(vcenterUuid, moref, name, cluster, gpus, vmotionNicSpeedMbps, at, esxiVersion,
        vcenterVersion);
  }

  /** The Kafka key. */
  public String key() {
    return Keys.host(vcenterUuid, moref);
  }

  /**
   * One physical GPU of a host ({@code HostGraphicsInfo} or the PCI device list).
   *
   * @param pciId      PCI address, e.g. {@code 0000:3b:00.0}
   * @param deviceName e.g. {@code NVIDIA Tesla T4}
   * @param vendorName e.g. {@code NVIDIA Corporation}
   * @param memoryMiB  framebuffer, MiB, when known
   */
  public record HostGpu(String pciId, String deviceName, String vendorName, Long memoryMiB) {

    public HostGpu {
      Checks.requiredText(pciId, "gpu.pciId");
      Checks.nonNegative(memoryMiB, "gpu.memoryMiB");
    }
  }
}
