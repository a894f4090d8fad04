package io.stunwatch.model;

/**
 * Kafka key formats shared by producers and consumers. vCenter morefs are unique only within one vCenter, so every
 * vCenter-side key is qualified by the vCenter's instance UUID.
 */
public final class Keys {

  /** Stands for "no VM" in {@link #vm}. */
  public static final String NO_VM = "-";

  private Keys() {
  }

  /** {@code <vcenterUuid>/<moref>}, e.g. {@code 0b6e.../vm-42}. */
  public static String vm(String vcenterUuid, String vmMoref) {
    return Checks.requiredText(vcenterUuid, "vcenterUuid") + "/" + (vmMoref == null ? NO_VM : vmMoref);
  }

  /**
   * The Kafka key of a vCenter-side record about a VM (an event, a stun observation): the VM id (SMBIOS UUID) when the
   * producer's inventory knows it, so that the record lands on the partition of the VM's samples; else the VM's
   * {@code <vcenterUuid>/<moref>}, which the processor resolves through its inventory.
   *
   * @param vmId   the VM's SMBIOS UUID, or null when unknown
   * @param vmKey  {@link #vm} of the VM
   */
  public static String byVm(String vmId, String vmKey) {
    return vmId == null || vmId.isBlank() ? vmKey : vmId;
  }

  /** Whether a key from {@link #byVm} is a VM id rather than a {@code <vcenterUuid>/<moref>}. */
  public static boolean isVmId(String key) {
    return key != null && !key.isEmpty() && key.indexOf('/') < 0 && !key.startsWith("vc:");
  }

  /** {@code <vcenterUuid>/<moref>} of a host. */
  public static String host(String vcenterUuid, String hostMoref) {
    return Checks.requiredText(vcenterUuid, "vcenterUuid") + "/" + Checks.requiredText(hostMoref, "hostMoref");
  }

  /** A migration id: {@code <vcenterUuid>/<chainId>} of the migration's task or first event. */
  public static String migration(String vcenterUuid, long chainId) {
    return Checks.requiredText(vcenterUuid, "vcenterUuid") + "/" + chainId;
  }
}
