package io.stunwatch.model;

import java.util.Arrays;

/**
 * A per-VM DRS override of a cluster (vim25 {@code ClusterDrsVmConfigInfo}): what DRS may do with that VM on its own,
 * whatever the cluster's automation level. With {@link Behavior#MANUAL}, DRS still recommends moving the VM but does
 * not move it.
 *
 * @param behavior what DRS does with the VM; null: the cluster's default
 * @param enabled  whether DRS takes the VM into account at all; null: vCenter's default (yes)
 */
public record DrsOverride(Behavior behavior, Boolean enabled) {

  /** The override that keeps DRS from moving a VM on its own. */
  public static final DrsOverride MANUAL = new DrsOverride(Behavior.MANUAL, true);

  /** vim25 {@code DrsBehavior}. */
  public enum Behavior {
    MANUAL("manual"), PARTIALLY_AUTOMATED("partiallyAutomated"), FULLY_AUTOMATED("fullyAutomated");

    private final String vimName;

    Behavior(String vimName) {
      this.vimName = vimName;
    }

    /** The name vim25 gives it. */
    public String vimName() {
      return vimName;
    }

    /** The behavior vim25 calls {@code name}. */
    public static Behavior ofVim(String name) {
      for (Behavior b : values()) {
        if (b.vimName.equalsIgnoreCase(name)) {
          return b;
        }
      }
      throw new IllegalArgumentException("not a DRS behavior: " + name + " (expected "
          + String.join(", ", Arrays.stream(values()).map(Behavior::vimName).toList()) + ")");
    }
  }
}
