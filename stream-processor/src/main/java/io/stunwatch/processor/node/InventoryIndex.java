package io.stunwatch.processor.node;

import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.view.VmPlacement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The global VM inventory looked up by VM id (SMBIOS UUID) instead of by its key {@code <vcenter>/<moref>}.
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
  private volatile long builtAt = Long.MIN_VALUE / 2; // "never", without overflowing now - builtAt

  public InventoryIndex(Clock clock, Duration refresh) {
    this.clock = clock;
    this.refresh = refresh;
  }

  /** The VM with this id, or null when the inventory does not know it; a miss rebuilds a stale index first. */
  VmPlacement get(String vmId, ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory) {
    VmPlacement e = byVmId.get(vmId);
    long now = clock.millis();
    // A hit may be stale (the VM moved); a miss may be a VM added since: both rebuild, at most once per refresh.
    if (now - builtAt >= refresh.toMillis() || (e == null && now - builtAt >= refresh.toMillis() / 10)) {
      rebuild(inventory, now);
      e = byVmId.get(vmId);
    }
    return e;
  }

  private synchronized void rebuild(ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory,
      long now) {
    if (now - builtAt < refresh.toMillis() && refresh.toMillis() > 0) {
      return; // another task's thread just did
    }
    Map<String, VmPlacement> m = new HashMap<>();
    try (KeyValueIterator<String, ValueAndTimestamp<VmInventoryEntry>> it = inventory.all()) {
      while (it.hasNext()) {
        VmInventoryEntry v = it.next().value.value();
        if (v != null && v.biosUuid() != null) {
          m.put(v.biosUuid(), new VmPlacement(v.name(), v.host() == null ? null : v.host().name()));
        }
      }
    }
    byVmId = m;
    builtAt = now;
  }
}
