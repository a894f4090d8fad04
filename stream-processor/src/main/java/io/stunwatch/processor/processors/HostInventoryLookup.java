package io.stunwatch.processor.processors;

import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Keys;
import io.stunwatch.processor.readmodel.ForecastInputs;
import java.util.function.Function;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/** Reads hosts' facts from the global host inventory ({@code host-inventory}) by {@code <vcenter>/<moref>}. */
final class HostInventoryLookup {

  private HostInventoryLookup() {
  }

  /** A host's vMotion uplink speed, Mbit/s, or null when the inventory does not know it. */
  static Function<String, Long> of(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts) {
    return key -> {
      HostInventoryEntry h = entry(hosts, key);
      return h == null ? null : h.vmotionNicSpeedMbps();
    };
  }

  /** The inventory as a forecast reads it. */
  static ForecastInputs.Hosts directory(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts) {
    return new ForecastInputs.Hosts() {
      @Override
      public HostInventoryEntry host(String vcenterUuid, String moref) {
        return entry(hosts, Keys.host(vcenterUuid, moref));
      }

      @Override
      public String vcenterVersion(String vcenterUuid) {
        return HostInventoryLookup.vcenterVersion(hosts, vcenterUuid);
      }
    };
  }

  /** The host's entry, or null. */
  static HostInventoryEntry entry(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts, String key) {
    ValueAndTimestamp<HostInventoryEntry> v = hosts.get(key);
    return v == null ? null : v.value();
  }

  /** The version of vCenter {@code vcenterUuid} as any of its hosts' entries give it, or null. */
  static String vcenterVersion(KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts,
      String vcenterUuid) {
    String prefix = vcenterUuid + "/"; // how every host key of that vCenter begins
    try (KeyValueIterator<String, ValueAndTimestamp<HostInventoryEntry>> it = hosts.prefixScan(prefix,
        new StringSerializer())) {
      while (it.hasNext()) {
        HostInventoryEntry h = it.next().value.value();
        if (h.vcenterVersion() != null) {
          return h.vcenterVersion();
        }
      }
    }
    return null;
  }
}
