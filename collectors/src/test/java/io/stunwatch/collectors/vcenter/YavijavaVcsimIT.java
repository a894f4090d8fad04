package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.testsupport.Vcsim;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The yavijava binding against the real vCenter simulator, over TLS. */
class YavijavaVcsimIT {

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

  private YavijavaVcenterConnector connector(X509TrustManager trust) throws Exception {
    return new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(), vcsim.password().toCharArray(), trust);
  }

  @Test
  void aSelfSignedCertificateIsRejectedByDefaultAndAcceptedOncePinned() throws Exception {
    assertThatThrownBy(() -> connector(VcenterTrust.system()).connect())
        .isInstanceOf(IOException.class).hasMessageContaining("cannot log in to " + vcsim.sdk());
    assertThatThrownBy(() -> connector(VcenterTrust.pinned("00".repeat(32))).connect())
        .isInstanceOf(IOException.class);
    try (VcenterConnection c = connector(VcenterTrust.pinned(vcsim.sha256())).connect()) {
      assertThat(c.instanceUuid()).isNotBlank();
    }
  }

  @Test
  void inventoryListsVmsWithUuidHostClusterAndPath() throws Exception {
    try (VcenterConnection c = connector(VcenterTrust.pinned(vcsim.sha256())).connect()) {
      List<VmInventoryEntry> vms = c.vms(Instant.now());
      assertThat(vms).isNotEmpty();
      assertThat(vms).allSatisfy(vm -> {
        assertThat(vm.biosUuid()).isNotNull();
        assertThat(vm.host()).isNotNull();
        assertThat(vm.vmPathName()).startsWith("[");
        assertThat(vm.datacenter()).isNotBlank();
      });
      assertThat(c.hosts(Instant.now())).isNotEmpty();
      List<JsonNode> events = c.eventsSince(Instant.now().minusSeconds(3600));
      assertThat(events).allSatisfy(e -> assertThat(e.get("_typeName").asText()).isNotBlank());
    }
  }
}
