package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class VmotionLinkSpeedTest {

  private static JsonNode host(int line) throws Exception {
    return Json.mapper().readTree(Files.readAllLines(Path.of("src/test/resources/vcenter/inventory-vi-json.jsonl"))
        .get(line)).path("config");
  }

  @Test
  void noVmknicSelectedForVmotionOrNoLinkIsUnknownNotZero() throws Exception {
    JsonNode config = host(0).deepCopy();
    ((ObjectNode) config.path("virtualNicManagerInfo").path("netConfig").get(1)).putArray("selectedVnic");
    assertThat(VmotionLinkSpeed.mbps(config.get("virtualNicManagerInfo"), config.get("network"))).isNull();

    JsonNode down = host(0).deepCopy();
    for (JsonNode pnic : down.path("network").path("pnic")) {
      ((ObjectNode) pnic).remove("linkSpeed");
    }
    assertThat(VmotionLinkSpeed.mbps(down.get("virtualNicManagerInfo"), down.get("network"))).isNull();
    assertThat(VmotionLinkSpeed.mbps(null, null)).isNull();
  }

  @Test
  void theActiveUplinksOfTheVmotionPortGroupCountAndTheStandbyDoesNot() throws Exception {
    JsonNode config = host(0);
    assertThat(VmotionLinkSpeed.mbps(config.get("virtualNicManagerInfo"), config.get("network"))).isEqualTo(25_000L);
  }
}
