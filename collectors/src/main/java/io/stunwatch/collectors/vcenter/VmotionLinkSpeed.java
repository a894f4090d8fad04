package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The link speed a host gives vMotion, from the VI/JSON of its {@code config.virtualNicManagerInfo} and
 * {@code config.network} (live, or recorded in a replayed inventory):
 * <ol>
 *   <li>the vmknics selected for the {@code vmotion} NIC type;</li>
 *   <li>each one's uplinks: those of its distributed switch ({@code proxySwitch} of the port's {@code switchUuid}),
 *       or of its port group's standard switch, only the active NICs of the teaming order when it names them;</li>
 *   <li>each uplink's {@code linkSpeed.speedMb}; a vmknic runs over one uplink at a time, its fastest, and several
 *       vmknics (multi-NIC vMotion) add up, each uplink counted once however many vmknics share it.</li>
 * </ol>
 * Unknown (null), never 0, when no vmknic is selected for vMotion or no uplink of one has a link.
 */
final class VmotionLinkSpeed {

  private VmotionLinkSpeed() {
  }

  /** Mbit/s, or null when unknown. */
  static Long mbps(JsonNode virtualNicManagerInfo, JsonNode network) {
    if (virtualNicManagerInfo == null || network == null) {
      return null;
    }
    Map<String, Long> uplinks = new HashMap<>();
    for (JsonNode config : virtualNicManagerInfo.path("netConfig")) {
      if (!"vmotion".equals(config.path("nicType").asText())) {
        continue;
      }
      Set<String> selected = new HashSet<>();
      config.path("selectedVnic").forEach(k -> selected.add(k.asText()));
      for (JsonNode vnic : config.path("candidateVnic")) {
        if (selected.contains(vnic.path("key").asText())) {
          JsonNode fastest = fastestUplink(vnic, network);
          if (fastest != null) {
            uplinks.put(fastest.path("key").asText(), fastest.path("linkSpeed").path("speedMb").asLong());
          }
        }
      }
    }
    return uplinks.isEmpty() ? null : uplinks.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The vmknic's fastest uplink with a link, as its PhysicalNic tree; null when none has one. */
  private static JsonNode fastestUplink(JsonNode vnic, JsonNode network) {
    Set<String> pnicKeys = new HashSet<>();
    Set<String> activeDevices = null;
    String dvs = vnic.path("spec").path("distributedVirtualPort").path("switchUuid").asText("");
    if (!dvs.isEmpty()) {
      for (JsonNode proxy : network.path("proxySwitch")) {
        if (dvs.equals(proxy.path("dvsUuid").asText())) {
          proxy.path("pnic").forEach(k -> pnicKeys.add(k.asText()));
        }
      }
    } else {
      String portgroup = vnic.path("portgroup").asText(vnic.path("spec").path("portgroup").asText(""));
      for (JsonNode pg : network.path("portgroup")) {
        if (!portgroup.equals(pg.path("spec").path("name").asText())) {
          continue;
        }
        JsonNode active = pg.path("computedPolicy").path("nicTeaming").path("nicOrder").path("activeNic");
        if (active.isArray() && !active.isEmpty()) {
          activeDevices = new HashSet<>();
          for (JsonNode d : active) {
            activeDevices.add(d.asText());
          }
        }
        String vswitch = pg.path("spec").path("vswitchName").asText();
        for (JsonNode sw : network.path("vswitch")) {
          if (vswitch.equals(sw.path("name").asText())) {
            sw.path("pnic").forEach(k -> pnicKeys.add(k.asText()));
          }
        }
      }
    }
    JsonNode fastest = null;
    for (JsonNode pnic : network.path("pnic")) {
      if (!pnicKeys.contains(pnic.path("key").asText())
          || activeDevices != null && !activeDevices.contains(pnic.path("device").asText())) {
        continue;
      }
      JsonNode speed = pnic.path("linkSpeed").path("speedMb");
      if (speed.canConvertToLong() && speed.asLong() > 0 // no linkSpeed: the link is down
          && (fastest == null || speed.asLong() > fastest.path("linkSpeed").path("speedMb").asLong())) {
        fastest = pnic;
      }
    }
    return fastest;
  }
}
