package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * The current inventory facts of one VM. Published to a compacted topic keyed by {@code <vcenterUuid>/<moref>};
 * a removed VM is a tombstone (null value).
 *
 * @param vcenterUuid  instance UUID of the owning vCenter
 * @param moref        VM moref value, e.g. {@code vm-42}
 * @param name         VM name
 * @param biosUuid     canonical {@code config.uuid} (SMBIOS UUID, see {@link VmIds}): the join key to worker samples
 * @param instanceUuid {@code config.instanceUuid}
 * @param host         current host
 * @param cluster      current cluster (compute resource)
 * @param datacenter   datacenter name
 * @param vmPathName   {@code config.files.vmPathName}, e.g. {@code [ds1] vm01/vm01.vmx}: where vmware.log lives
 * @param memoryMiB    configured memory, MiB
 * @param vgpuBackings vGPU backing names of its {@code VirtualPCIPassthroughVmiopBackingInfo} devices, e.g.
 *                     {@code grid_t4-16c}
 * @param vgpuProfile  profile parsed from the first backing, absent for a VM with no vGPU
 * @param observedAt   when the collector read these properties
 * @param guestHostName {@code guest.hostName}: the host name VMware Tools reports from inside the guest, which an
 *                     exporter's {@code Hostname} label carries; absent without Tools or while the VM is off. The
 *                     guest writes it, so it only ever names a VM whose samples carry no VM id of their own
 */
@Schema(name = "vm-inventory")
public record VmInventoryEntry(
    String vcenterUuid,
    String moref,
    String name,
    String biosUuid,
    String instanceUuid,
    EntityRef host,
    EntityRef cluster,
    String datacenter,
    String vmPathName,
    Long memoryMiB,
    List<String> vgpuBackings,
    VgpuProfile vgpuProfile,
    Instant observedAt,
    String guestHostName) {

  /** An entry without the guest's host name. */
  public VmInventoryEntry(String vcenterUuid, String moref, String name, String biosUuid, String instanceUuid,
      EntityRef host, EntityRef cluster, String datacenter, String vmPathName, Long memoryMiB,
      List<String> vgpuBackings, VgpuProfile vgpuProfile, Instant observedAt) {
    this(vcenterUuid, moref, name, biosUuid, instanceUuid, host, cluster, datacenter, vmPathName, memoryMiB,
        vgpuBackings, vgpuProfile, observedAt, null);
  }

  public VmInventoryEntry {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(moref, "moref");
    Checks.required(observedAt, "observedAt");
    if (biosUuid != null) {
      biosUuid = VmIds.canonical(biosUuid);
    }
    Checks.nonNegative(memoryMiB, "memoryMiB");
    vgpuBackings = Checks.list(vgpuBackings);
    if (guestHostName != null && guestHostName.isBlank()) {
      guestHostName = null;
    }
  }

  /** This entry as read at another time: what tells whether anything else changed. */
  public VmInventoryEntry withObservedAt(Instant at) {
    return new VmInventoryEntry(vcenterUuid, moref, name, biosUuid, instanceUuid, host, cluster, datacenter,
        vmPathName, memoryMiB, vgpuBackings, vgpuProfile, at, guestHostName);
  }

  /** The Kafka key. */
  public String key() {
    return Keys.vm(vcenterUuid, moref);
  }
}
