package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.DrsOverride;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.testsupport.Vcsim;
import java.io.FileNotFoundException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Per-VM DRS overrides through the yavijava binding against the real vCenter simulator: each change read back from
 * the cluster's {@code ConfigurationEx}.
 */
class DrsOverrideIT {

  static Vcsim vcsim;

  @BeforeAll
  static void start() {
    vcsim = Vcsim.start(true);
  }

  @AfterAll
  static void stop() {
    if (vcsim != null) {
      vcsim.close();
    }
  }

  private VcenterConnection connect() throws Exception {
    return new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(), vcsim.password().toCharArray(),
        VcenterTrust.pinned(vcsim.sha256())).connect();
  }

  @Test
  void anOverrideIsAddedEditedAndRemovedAloneAndReadBackFromTheCluster() throws Exception {
    try (VcenterConnection c = connect()) {
      List<VmInventoryEntry> inCluster = c.vms(Instant.now()).stream()
          .filter(vm -> vm.cluster() != null && vm.cluster().type().equals("ClusterComputeResource")).toList();
      assertThat(inCluster).hasSizeGreaterThanOrEqualTo(2);
      String cluster = inCluster.get(0).cluster().value();
      List<VmInventoryEntry> vms = inCluster.stream().filter(vm -> vm.cluster().value().equals(cluster)).toList();
      assertThat(vms).hasSizeGreaterThanOrEqualTo(2);
      String busy = vms.get(0).moref();
      String admins = vms.get(1).moref();
      assertThat(c.drsOverrides(cluster)).doesNotContainKeys(busy, admins);

      DrsOverride adminsOwn = new DrsOverride(DrsOverride.Behavior.PARTIALLY_AUTOMATED, true);
      c.setDrsOverride(cluster, admins, null, adminsOwn);
      c.setDrsOverride(cluster, busy, null, DrsOverride.MANUAL);
      assertThat(c.drsOverrides(cluster)).containsEntry(busy, DrsOverride.MANUAL).containsEntry(admins, adminsOwn);

      // an add for a VM that has one is refused, named by its fault, and changes nothing
      assertThatThrownBy(() -> c.setDrsOverride(cluster, busy, null,
          new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, true)))
          .isInstanceOf(VcenterRefusedException.class).hasMessageContaining("adding the DRS override of " + busy)
          .satisfies(e -> assertThat(((VcenterRefusedException) e).fault()).isNotBlank());
      assertThat(c.drsOverrides(cluster)).containsEntry(busy, DrsOverride.MANUAL);

      DrsOverride fully = new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, true);
      c.setDrsOverride(cluster, busy, DrsOverride.MANUAL, fully);
      assertThat(c.drsOverrides(cluster)).containsEntry(busy, fully);

      c.setDrsOverride(cluster, busy, fully, null);
      assertThat(c.drsOverrides(cluster)).doesNotContainKey(busy).containsEntry(admins, adminsOwn);
    }
  }

  @Test
  void aClusterVcenterDoesNotKnowIsNamed() throws Exception {
    try (VcenterConnection c = connect()) {
      assertThatThrownBy(() -> c.drsOverrides("domain-c999999")).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("no cluster domain-c999999");
    }
  }
}
