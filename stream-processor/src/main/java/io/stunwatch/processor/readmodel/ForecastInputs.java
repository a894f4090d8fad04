package io.stunwatch.processor.readmodel;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;

/**
 * The inputs of a stun forecast for moving one VM, read from the host inventory the same way wherever a forecast is
 * made: the alert ({@code MigrationAlerting}) and the plans (the API's {@code Planner}). A host is found by its
 * vCenter and moref, never by its name alone, so that two vCenters with hosts of the same names give each VM its
 * own vCenter's link speeds and version.
 */
public final class ForecastInputs {

  private ForecastInputs() {
  }

  /** The host inventory, by vCenter. */
  public interface Hosts {

    /** The entry of host {@code moref} of vCenter {@code vcenterUuid}, or null. */
    HostInventoryEntry host(String vcenterUuid, String moref);

    /** The version of vCenter {@code vcenterUuid} as any of its hosts' entries gives it, or null. */
    String vcenterVersion(String vcenterUuid);
  }

  /**
   * The query for moving a VM of vCenter {@code vcenterUuid} from {@code source} to {@code dest}.
   *
   * @param dest the destination, or null when none is chosen: then the source's uplink alone bounds the copy
   * @return the query: the host pair by name when both ends are known; the slower of the two hosts' vMotion uplinks
   *         (the source's alone without a destination), null when one is unknown; the version of the source host's
   *         vCenter, else any of that vCenter's hosts'
   */
  public static Forecasts.Query query(String profile, double fbUsedGiB, String vcenterUuid, EntityRef source,
      EntityRef dest, Hosts hosts) {
    HostInventoryEntry src = source == null ? null : hosts.host(vcenterUuid, source.value());
    HostInventoryEntry dst = dest == null ? null : hosts.host(vcenterUuid, dest.value());
    Long link = src == null ? null : src.vmotionNicSpeedMbps();
    if (dest != null) {
      link = link == null || dst == null || dst.vmotionNicSpeedMbps() == null ? null
          : Math.min(link, dst.vmotionNicSpeedMbps());
    }
    String version = src != null && src.vcenterVersion() != null ? src.vcenterVersion()
        : hosts.vcenterVersion(vcenterUuid);
    return new Forecasts.Query(profile, fbUsedGiB, hostPair(source, dest), link, version);
  }

  /** {@code <source>-><destination>} by host name (the moref where a name is missing), or null unless both are known. */
  public static String hostPair(EntityRef source, EntityRef dest) {
    return source != null && dest != null ? name(source) + "->" + name(dest) : null;
  }

  private static String name(EntityRef e) {
    return e.name() != null ? e.name() : e.value();
  }
}
