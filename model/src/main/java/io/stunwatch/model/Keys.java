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

  /** {@code <vcenterUuid>/<moref>} of a host. */
  public static String host(String vcenterUuid, String hostMoref) {
    return Checks.requiredText(vcenterUuid, "vcenterUuid") + "/" + Checks.requiredText(hostMoref, "hostMoref");
  }

  /** A migration id: {@code <vcenterUuid>/<chainId>} of the migration's task or first event. */
  public static String migration(String vcenterUuid, long chainId) {
    return Checks.requiredText(vcenterUuid, "vcenterUuid") + "/" + chainId;
  }
}
