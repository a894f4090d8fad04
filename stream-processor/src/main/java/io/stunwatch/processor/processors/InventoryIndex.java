package io.stunwatch.processor.processors;

import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.readmodel.VmPlacement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The global VM inventory looked up by VM id (SMBIOS UUID) instead of by its key {@code <vcenter>/<moref>}, and
 * by the names a sample without a VM id carries ({@link #resolve}).
 *
 * <p>Kafka Streams cannot read one topic twice in a topology, and a global store is restored without its
 * processor, so no second store can be keyed by VM id. This index is rebuilt from the global store instead, at most
 * once per {@code refresh} (of the injected clock) and shared by every task of the instance. It only places VMs on
 * hosts for the utilization audit and tells samples of unknown VMs apart; nothing exactly-once depends on it.
 */
public final class InventoryIndex {

  private final Clock clock;
  private final Duration refresh;
  private volatile Map<String, VmPlacement> byVmId = Map.of();
  /**
   * VM ids by name keys ({@code host:<host>/<vm name>}, {@code name:<vm name>}, {@code guest:<guest host name>} and
   * {@code short:<its first label>}), lower-cased; {@link #AMBIGUOUS} where several VMs share one.
   */
  private volatile Map<String, String> byName = Map.of();
  private volatile long builtAt = Long.MIN_VALUE / 2; // "never", without overflowing now - builtAt

  public InventoryIndex(Clock clock, Duration refresh) {
    this.clock = clock;
    this.refresh = refresh;
  }

  /** The VM with this id, or null when the inventory does not know it; a miss rebuilds a stale index first. */
  VmPlacement get(String vmId, ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory) {
    VmPlacement e = byVmId.get(vmId);
    long now = clock.millis();
    // A hit may be stale (the VM moved): rebuilt once per refresh. A miss may be a VM added since: rebuilt once per
    // tenth of it, so that a new VM's samples are placed within a second of the default refresh.
    if (now - builtAt >= refresh.toMillis()) {
      rebuild(inventory, now, refresh.toMillis());
      e = byVmId.get(vmId);
    } else if (e == null && now - builtAt >= refresh.toMillis() / 10) {
      rebuild(inventory, now, refresh.toMillis() / 10);
      e = byVmId.get(vmId);
    }
    return e;
  }

  /** What {@link #resolve} found. */
  public enum Outcome {
    /** One VM has those names. */
    RESOLVED,
    /** No VM of the inventory has them. */
    UNKNOWN,
    /** Several VMs have them: the sample is not attributed to any, rather than to a guess. */
    AMBIGUOUS
  }

  /** The VM id a sample without one belongs to, or null, and why. */
  public record Resolution(String vmId, Outcome outcome) {
  }

  private static final String AMBIGUOUS = "";

  /**
   * The VM that names point at. A host name and VM name are tried together first (VM names are unique within a
   * folder, not across vCenters), then the VM name alone (a sample recorded on the host the VM left), then the
   * guest's host name as VMware Tools reports it ({@code guest.hostName}), whole and then by its first label. A
   * name several VMs share resolves to none.
   *
   * @param host          the ESXi host that reported the sample, or null
   * @param vmName        the VM's name in vCenter, or null
   * @param guestHostName the guest's own host name, or null
   */
  public Resolution resolve(String host, String vmName, String guestHostName,
      ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory) {
    long now = clock.millis();
    if (now - builtAt >= refresh.toMillis()) {
      rebuild(inventory, now, refresh.toMillis()); // names change too: a renamed VM, a new guest host name
    }
    Resolution r = lookup(host, vmName, guestHostName);
    if (r.outcome() != Outcome.RESOLVED && now - builtAt >= refresh.toMillis() / 10) {
      rebuild(inventory, now, refresh.toMillis() / 10);
      r = lookup(host, vmName, guestHostName);
    }
    return r;
  }

  private Resolution lookup(String host, String vmName, String guestHostName) {
    Map<String, String> names = byName;
    List<String> keys = new ArrayList<>(4);
    if (vmName != null) {
      if (host != null) {
        keys.add("host:" + lower(host) + "/" + lower(vmName));
      }
      keys.add("name:" + lower(vmName));
    }
    if (guestHostName != null) {
      keys.add("guest:" + lower(guestHostName));
      keys.add("short:" + shortName(guestHostName));
    }
    boolean ambiguous = false;
    for (String k : keys) {
      String id = names.get(k);
      if (id == null) {
        continue;
      }
      if (id.equals(AMBIGUOUS)) {
        ambiguous = true;
        continue;
      }
      return new Resolution(id, Outcome.RESOLVED);
    }
    return new Resolution(null, ambiguous ? Outcome.AMBIGUOUS : Outcome.UNKNOWN);
  }

  private static String lower(String s) {
    return s.trim().toLowerCase(Locale.ROOT);
  }

  private static String shortName(String hostName) {
    String h = lower(hostName);
    int dot = h.indexOf('.');
    return dot > 0 ? h.substring(0, dot) : h;
  }

  private static void index(Map<String, String> names, String key, String vmId) {
    names.merge(key, vmId, (a, b) -> a.equals(b) ? a : AMBIGUOUS);
  }

  /** Rebuilds the index unless it was built less than {@code minAgeMillis} ago (by another task's thread). */
  private synchronized void rebuild(ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory,
      long now, long minAgeMillis) {
    if (now - builtAt < minAgeMillis && minAgeMillis > 0) {
      return; // another task's thread just did
    }
    Map<String, VmPlacement> m = new HashMap<>();
    Map<String, String> names = new HashMap<>();
    try (KeyValueIterator<String, ValueAndTimestamp<VmInventoryEntry>> it = inventory.all()) {
      while (it.hasNext()) {
        VmInventoryEntry v = it.next().value.value();
        if (v != null && v.biosUuid() != null) {
          m.put(v.biosUuid(), new VmPlacement(v.name(), v.host() == null ? null : v.host().name(), v.vcenterUuid(),
              v.host()));
          if (v.name() != null) {
            index(names, "name:" + lower(v.name()), v.biosUuid());
            if (v.host() != null && v.host().name() != null) {
              index(names, "host:" + lower(v.host().name()) + "/" + lower(v.name()), v.biosUuid());
            }
          }
          if (v.guestHostName() != null) {
            index(names, "guest:" + lower(v.guestHostName()), v.biosUuid());
            index(names, "short:" + shortName(v.guestHostName()), v.biosUuid());
          }
        }
      }
    }
    byVmId = m;
    byName = names;
    builtAt = now;
  }
}
