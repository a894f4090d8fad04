package io.stunwatch.processor.readmodel;

import io.stunwatch.model.LoadSource;

/**
 * The keys a VM's load is kept under in the load stores ({@link StoreNames#VM_SAMPLES},
 * {@link StoreNames#VM_LIVE}, the load windows and {@link StoreNames#UTILIZATION_DAILY}): the VM id for the
 * guest's own readings, the VM id and {@link #HOST_SUFFIX} for the ESXi host's. The two views are kept apart rather
 * than folded together, so that the same GPU is never counted twice, and a reader chooses between them: the guest's
 * when it has readings, else the host's. The choice is made when reading, so it does not depend on which view's
 * records arrived first.
 */
public final class LoadKeys {

  /** What follows the VM id in the key of the host's view. A VM id is a UUID, so it never holds a {@code |}. */
  public static final String HOST_SUFFIX = "|host";

  private LoadKeys() {
  }

  /** The key of the VM's load as {@code source} reads it. */
  public static String of(String vmId, LoadSource source) {
    return source == LoadSource.HOST ? vmId + HOST_SUFFIX : vmId;
  }

  /** The VM id of a load key. */
  public static String vmId(String key) {
    return key.endsWith(HOST_SUFFIX) ? key.substring(0, key.length() - HOST_SUFFIX.length()) : key;
  }

  /** The view a load key holds. */
  public static LoadSource source(String key) {
    return key.endsWith(HOST_SUFFIX) ? LoadSource.HOST : LoadSource.GUEST;
  }
}
