package io.stunwatch.collectors.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.collectors.worker.WorkerIdentity.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerIdentityTest {

  /** vCenter's config.uuid of the VM. */
  private static final String CONFIG_UUID = "421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506";
  /** What Linux prints in product_uuid for that VM on SMBIOS older than 2.6: the first three groups swapped. */
  private static final String OLD_SMBIOS_PRODUCT_UUID = "3A9F1C42-6C5B-8E7D-9FA0-B1C2D3E4F506";

  @TempDir
  Path dir;

  private Path productUuid(String value) throws Exception {
    Path f = dir.resolve("product_uuid");
    Files.writeString(f, value + "\n");
    return f;
  }

  private Path entryPoint(int... bytes) throws Exception {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    Path f = dir.resolve("smbios_entry_point");
    Files.write(f, b);
    return f;
  }

  @Test
  void onSmbiosBefore26TheByteOrderIsNormalizedToVcentersConfigUuid() throws Exception {
    Path ep = entryPoint('_', 'S', 'M', '_', 0x1f, 0x1f, 2, 4); // SMBIOS 2.4
    WorkerIdentity id = WorkerIdentity.resolve(Optional.empty(), productUuid(OLD_SMBIOS_PRODUCT_UUID), ep,
        ByteOrder.AUTO, Optional.of("gpu-vm"));
    assertThat(id.vmId()).isEqualTo(CONFIG_UUID);
  }

  @Test
  void onSmbios26AndLaterProductUuidAlreadyMatches() throws Exception {
    Path ep = entryPoint('_', 'S', 'M', '3', '_', 0x00, 0x18, 3, 3); // 3.3
    WorkerIdentity id = WorkerIdentity.resolve(Optional.empty(), productUuid(CONFIG_UUID.toUpperCase()), ep,
        ByteOrder.AUTO, Optional.of("gpu-vm"));
    assertThat(id.vmId()).isEqualTo(CONFIG_UUID);
    assertThat(WorkerIdentity.smbiosVersion(ep)).contains(0x0303);
  }

  @Test
  void explicitOrderAndOverrideWinAndAnUnreadableEntryPointMeansAsIs() throws Exception {
    Path missing = dir.resolve("none");
    assertThat(WorkerIdentity.resolve(Optional.empty(), productUuid(OLD_SMBIOS_PRODUCT_UUID), missing,
        ByteOrder.SWAPPED, Optional.of("h")).vmId()).isEqualTo(CONFIG_UUID);
    assertThat(WorkerIdentity.resolve(Optional.empty(), productUuid(CONFIG_UUID), missing, ByteOrder.AUTO,
        Optional.of("h")).vmId()).isEqualTo(CONFIG_UUID);
    assertThat(WorkerIdentity.resolve(Optional.of("4C4C4544-0042-3510-8052-B4C04F4E3232"), missing, missing,
        ByteOrder.AUTO, Optional.of("h")).vmId()).isEqualTo("4c4c4544-0042-3510-8052-b4c04f4e3232");
  }

  @Test
  void anUnreadableProductUuidSaysWhatToDo() {
    assertThatThrownBy(() -> WorkerIdentity.resolve(Optional.empty(), dir.resolve("product_uuid"),
        dir.resolve("x"), ByteOrder.AUTO, Optional.of("h")))
        .hasMessageContaining("product_uuid").hasMessageContaining("--vm-id");
  }
}
