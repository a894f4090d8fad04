package io.stunwatch.model;

import java.util.Locale;

/**
 * Where a VM's GPU figures were read. The two views differ: the guest's driver sees its own vGPU (or MIG instance)
 * and stops reading while the VM is stunned; the hypervisor's {@code nvidia-smi vgpu -q} sees every vGPU of a
 * physical GPU and goes on through the stun.
 */
public enum LoadSource {
  /** The guest's own driver: a Stunwatch worker's nvidia-smi, or an exporter (dcgm-exporter, nvidia_gpu_exporter). */
  GUEST,
  /** The ESXi host's {@code nvidia-smi vgpu -q}, joined to the VM through the inventory. */
  HOST;

  /** The value of meter tag {@code load_source}: {@code guest} or {@code host}. */
  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code source}, or {@link #GUEST} when a record written before sources were told apart has none. */
  public static LoadSource orGuest(LoadSource source) {
    return source == null ? GUEST : source;
  }
}
