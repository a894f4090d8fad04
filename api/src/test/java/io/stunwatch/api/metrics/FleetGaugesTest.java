package io.stunwatch.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.readmodel.CurrentLoad;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FleetGaugesTest {

  static final String VM = "4211c0de-0001-aaaa-bbbb-ccccddddeeee";

  static Map<String, String> map(Tags tags) {
    return tags.stream().collect(Collectors.toMap(Tag::getKey, Tag::getValue));
  }

  @Test
  void aVmOfTheInventoryIsLabelledWithItsIdHostClusterAndVcenter() {
    var load = new CurrentLoad(VM, Map.of(), "esx-old", "trainer-01", true);
    var entry = new VmInventoryEntry("vc-b", "vm-17", "trainer-01", VM, null,
        new EntityRef("HostSystem", "host-9", "esx-09"), new EntityRef("ClusterComputeResource", "domain-c7", "gpu-a"),
        "dc-1", null, null, List.of(), null, Instant.parse("2026-11-26T10:00:00Z"));
    assertThat(map(FleetGauges.tags(load, entry))).containsExactlyInAnyOrderEntriesOf(Map.of("vm", "trainer-01",
        "vm_id", VM, "host", "esx-09", "cluster", "gpu-a", "vcenter", "vc-b"));
  }

  @Test
  void aVmTheInventoryDoesNotKnowKeepsItsIdAndSaysWhatIsUnresolved() {
    var load = new CurrentLoad(VM, Map.of(), null, null, false);
    assertThat(map(FleetGauges.tags(load, null))).containsExactlyInAnyOrderEntriesOf(Map.of("vm", VM, "vm_id", VM,
        "host", "unresolved", "cluster", "unresolved", "vcenter", "unresolved"));
  }
}
