package io.stunwatch.processor.node;

import io.stunwatch.model.HostInventoryEntry;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/** Reads hosts' facts from the global host inventory ({@code host-inventory}) by {@code <vcenter>/<moref>}. */
final class HostLinks {

  private HostLinks() {
  }

  /** A host's vMotion uplink speed, Mbit/s, or null when the inventory does not know it. */
  static Function<String, Long> of(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts) {
    return key -> {
      HostInventoryEntry h = entry(hosts, key);
      return h == null ? null : h.vmotionNicSpeedMbps();
    };
  }

  /** The host's entry, or null. */
  static HostInventoryEntry entry(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts, String key) {
    ValueAndTimestamp<HostInventoryEntry> v = hosts.get(key);
    return v == null ? null : v.value();
  }
}
