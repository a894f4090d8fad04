package io.stunwatch.launcher.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleFilesTest {

  static final String VM = "42000000-0000-4000-8000-000000000011";

  @TempDir
  Path dir;

  private Path write(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @Test
  void eachFileGoesToItsPartByContentAndBelongsWhereItLies() throws Exception {
    write("vc/inventory.json", "[\n  {\n    \"_typeName\" : \"HostSystem\",\n    \"moref\" : \"host-1\"\n  }\n]\n");
    write("vc/all-events.txt", "{\n\t\"Key\": 1,\n\t\"_typeName\": \"VmMigratedEvent\"\n}\n");
    write("vc/govc.txt", "[Mon Nov 30 14:05:44 2026] [info] Task: Migrate virtual machine\n");
    write("vc/vm-42/vmware-1.log", "2026-11-30T14:05:12.100Z| vmx| I125: Log for VMware ESX\n");
    write("renamed/vm-43/old.txt", "2026-11-30T14:05:12.100Z In(05) vmx - Checkpoint_Unstun: vm stopped for 1 us\n");
    write(VM + "/gpu.csv", "timestamp, index, utilization.gpu [%]\n");
    write(VM + "-train.log", "1\timages/sec: 245.3 +/- 0.0 (jitter = 0.0)\t7.5\n");
    write("esx01/vgpu.txt", "GPU 00000000:3B:00.0\n    Active vGPUs : 0\n");
    write("esx01/vmkernel.log", "2026-11-30T14:05:12.100Z cpu3:2099543)VMotion: 5426: 11 S: Pre-copy iteration 3\n");
    write("esx02/var/run/log/vmkernel.1", "2026-11-30T14:05:12.100Z In(182) vmkernel: cpu3:2)NetPort: 1\n");
    Files.createDirectories(dir.resolve(VM + "/sys/mlx5_0/ports/1/counters"));
    Files.writeString(dir.resolve(VM + "/sys/mlx5_0/ports/1/counters/port_xmit_data"), "1\n");
    Map<String, BundleFiles.Entry> e = BundleFiles.list(dir).stream()
        .collect(Collectors.toMap(BundleFiles.Entry::name, x -> x));
    assertThat(e.get("vc/inventory.json").part()).isEqualTo(BundleFiles.Part.INVENTORY);
    assertThat(e.get("vc/all-events.txt").part()).isEqualTo(BundleFiles.Part.EVENTS);
    assertThat(e.get("vc/govc.txt").part()).as("to be refused with its advice").isEqualTo(BundleFiles.Part.EVENTS);
    assertThat(e.get("vc/vm-42/vmware-1.log").part()).isEqualTo(BundleFiles.Part.VMWARE_LOG);
    assertThat(e.get("vc/vm-42/vmware-1.log").moref()).contains("vm-42");
    assertThat(e.get("renamed/vm-43/old.txt").part()).as("an ESXi 8 log, renamed").isEqualTo(
        BundleFiles.Part.VMWARE_LOG);
    assertThat(e.get(VM + "/gpu.csv").vmId()).contains(VM);
    assertThat(e.get(VM + "-train.log").vmId()).contains(VM);
    assertThat(e.get(VM + "-train.log").part()).isEqualTo(BundleFiles.Part.WORKER);
    assertThat(e.get("esx01/vgpu.txt").hostname()).contains("esx01");
    assertThat(e.get("esx01/vgpu.txt").vmId()).isEmpty();
    assertThat(e.get("esx01/vmkernel.log").part()).isEqualTo(BundleFiles.Part.VMKERNEL_LOG);
    assertThat(e.get("esx01/vmkernel.log").hostname()).contains("esx01");
    assertThat(e.get("esx02/var/run/log/vmkernel.1").part()).as("a support bundle's rotated one")
        .isEqualTo(BundleFiles.Part.VMKERNEL_LOG);
    assertThat(e.get("esx02/var/run/log/vmkernel.1").hostname()).as("the host above var/run/log").contains("esx02");
    BundleFiles.Entry sysfs = e.get(VM + "/sys");
    assertThat(sysfs.sysfs()).isTrue();
    assertThat(sysfs.vmId()).contains(VM);
    assertThat(e.keySet()).as("the tree is one entry, not its files").noneMatch(n -> n.contains("port_xmit_data"));
  }

  @Test
  void aLinkIsNeverFollowed() throws Exception {
    Path secret = write("outside/secret.txt", "not the bundle's");
    Path bundle = Files.createDirectories(dir.resolve("bundle"));
    Files.createSymbolicLink(bundle.resolve("link.txt"), secret);
    List<BundleFiles.Entry> e = BundleFiles.list(bundle);
    assertThat(e).isEmpty();
  }
}
