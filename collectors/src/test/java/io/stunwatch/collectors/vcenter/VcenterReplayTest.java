package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VcenterReplayTest {

  @TempDir
  Path dir;

  private final List<InputParseException> errors = new ArrayList<>();
  private final VcenterReplay replay = new VcenterReplay("vc-1", errors::add);

  @Test
  void inventoryResolvesUuidHostClusterAndVgpuProfile() throws Exception {
    VcenterReplay.Inventory inv = replay.inventory(Path.of("src/test/resources/vcenter/inventory-vi-json.jsonl"),
        Instant.parse("2026-11-21T12:00:00Z"));
    assertThat(inv.hosts()).hasSize(2);
    // esx01: vmk1 on a standard switch, its active uplinks 25G and one with no link; the standby 100G is not used.
    // esx02: two vmknics on one distributed switch: both run over its fastest uplink, counted once.
    assertThat(inv.hosts()).extracting(HostInventoryEntry::name, HostInventoryEntry::vmotionNicSpeedMbps)
        .containsExactlyInAnyOrder(Tuple.tuple("esx01", 25_000L),
            Tuple.tuple("esx02", 100_000L));
    VmInventoryEntry vm = inv.vms().get(0);
    assertThat(vm.key()).isEqualTo("vc-1/vm-42");
    assertThat(vm.biosUuid()).isEqualTo("421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506");
    assertThat(vm.host().name()).isEqualTo("esx01");
    assertThat(vm.cluster().name()).isEqualTo("gpu");
    assertThat(vm.vgpuProfile().name()).isEqualTo("T4-16C");
    assertThat(vm.memoryMiB()).isEqualTo(65536L);
    assertThat(vm.vmPathName()).isEqualTo("[ds1] train-01/train-01.vmx");
    assertThat(errors).extracting(InputParseException::getMessage).containsExactly(
        "src/test/resources/vcenter/inventory-vi-json.jsonl:4: expected a VirtualMachine, HostSystem or AboutInfo, "
            + "found _typeName 'Folder'",
        "src/test/resources/vcenter/inventory-vi-json.jsonl:5: no moref (\"moref\" or \"self\")");
  }

  @Test
  void aMalformedEventLineIsReportedWithItsNumberAndTheRestGoesOn() throws Exception {
    Path f = dir.resolve("events.jsonl");
    List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("src/test/resources/vcenter/events-vi-json.jsonl")));
    lines.add(1, "{not json");
    lines.add(3, "{\"_typeName\":\"VmMigratedEvent\",\"createdTime\":\"2026-11-21T12:00:00Z\"}");
    Files.write(f, lines);
    List<VcenterEvent> events = replay.events(f, null);
    assertThat(events).hasSize(5);
    assertThat(errors).hasSize(2);
    assertThat(errors.get(0).getMessage()).startsWith(f + ":2: not JSON");
    assertThat(errors.get(1).getMessage()).isEqualTo(f + ":4: 'key' is missing");
  }

  @Test
  void theVcentersAboutInfoAndEachHostsProductGiveTheirVersionsWhereverTheAboutLineIs() throws Exception {
    Path f = dir.resolve("inventory.jsonl");
    Files.write(f, List.of(
        "{\"_typeName\":\"HostSystem\",\"moref\":\"host-1\",\"name\":\"esx01\",\"summary\":{\"config\":"
            + "{\"product\":{\"_typeName\":\"AboutInfo\",\"version\":\"6.7.0\"}}}}",
        "{\"_typeName\":\"HostSystem\",\"moref\":\"host-2\",\"name\":\"esx02\",\"config\":{\"product\":"
            + "{\"version\":\"8.0.2\"}}}",
        "{\"_typeName\":\"HostSystem\",\"moref\":\"host-3\",\"name\":\"esx03\"}",
        "{\"_typeName\":\"AboutInfo\",\"name\":\"VMware vCenter Server\",\"version\":\"8.0.2\","
            + "\"apiVersion\":\"8.0.2.0\",\"instanceUuid\":\"vc-1\"}"));
    VcenterReplay.Inventory inv = replay.inventory(f, Instant.parse("2026-11-21T12:00:00Z"));
    assertThat(inv.hosts()).extracting(HostInventoryEntry::name, HostInventoryEntry::esxiVersion,
        HostInventoryEntry::vcenterVersion).containsExactlyInAnyOrder(Tuple.tuple("esx01", "6.7.0", "8.0.2"),
        Tuple.tuple("esx02", "8.0.2", "8.0.2"), Tuple.tuple("esx03", null, "8.0.2"));
    assertThat(errors).isEmpty();
  }

  @Test
  void aHostWithoutAMorefIsAnErrorWithItsLineNumber() throws Exception {
    Path f = dir.resolve("inventory.jsonl");
    Files.write(f, List.of(
        "{\"_typeName\":\"HostSystem\",\"moref\":\"host-1\",\"name\":\"esx01\"}",
        "{\"_typeName\":\"HostSystem\",\"name\":\"esx02\"}"));
    VcenterReplay.Inventory inv = replay.inventory(f, Instant.parse("2026-11-21T12:00:00Z"));
    assertThat(inv.hosts()).extracting(h -> h.moref()).containsExactly("host-1");
    assertThat(errors).extracting(InputParseException::getMessage)
        .containsExactly(f + ":2: HostSystem without a moref (\"moref\" or \"self\"): its VMs' host has no name");
  }

  @Test
  void aSupportBundlesVmwareLogsAreReadOldestFirstThroughTheLiveParser() throws Exception {
    Path vm = Files.createDirectories(dir.resolve("bundle").resolve("vm-42"));
    Files.writeString(vm.resolve("vmware-1.log"),
        "2026-11-21T11:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 1500000 us\n");
    Files.writeString(vm.resolve("vmware.log"),
        "2026-11-21T12:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 2750000 us\n");
    Files.writeString(vm.resolve("vmware-2.log"),
        "2026-11-21T10:00:00.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 500000 us\n");
    Files.writeString(vm.resolve("vmx-zdump.000"), "not a log");
    var logs = VmwareLogFiles.vmwareLogs(dir.resolve("bundle"));
    assertThat(logs).containsOnlyKeys("vm-42");
    assertThat(logs.get("vm-42")).extracting(p -> p.getFileName().toString())
        .containsExactly("vmware-2.log", "vmware-1.log", "vmware.log");
    VcenterReplay.Inventory inv = replay.inventory(Path.of("src/test/resources/vcenter/inventory-vi-json.jsonl"),
        Instant.parse("2026-11-21T12:00:00Z"));
    var stuns = replay.stuns("vm-42", logs.get("vm-42"), inv);
    assertThat(stuns).extracting(s -> s.stunMicros()).containsExactly(500_000L, 1_500_000L, 2_750_000L);
    assertThat(stuns).allSatisfy(s -> {
      assertThat(s.vmName()).isEqualTo("train-01");
      assertThat(s.key()).isEqualTo("vc-1/vm-42");
    });
  }

  @Test
  void prettyPrintedGovmomiEventsBackToBackReadAndABrokenOneIsNamedByItsLine() throws Exception {
    List<VcenterEvent> events = replay.events(Path.of("src/test/resources/replay/events-pretty.json"), null);
    assertThat(events).extracting(VcenterEvent::eventType, VcenterEvent::eventKey).containsExactly(
        Tuple.tuple("VmBeingHotMigratedEvent", 5636620L),
        // no _typeName: its source host and message make it a VmMigratedEvent
        Tuple.tuple("VmMigratedEvent", 5636626L));
    assertThat(events.get(1).createdTime()).isEqualTo(Instant.parse("2026-11-30T14:06:41.042999Z"));
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0).line()).isBetween(12L, 17L);
    assertThat(errors.get(0).reason()).startsWith("not JSON");
  }

  @Test
  void cloudEventsEnvelopesInAnArrayGiveTheirEventsWithTheClassTheyName() throws Exception {
    List<VcenterEvent> events = replay.events(Path.of("src/test/resources/replay/events-cloudevents.json"), null);
    assertThat(events).extracting(VcenterEvent::eventType).containsExactly("VmMigratedEvent",
        "VmBeingHotMigratedEvent");
    assertThat(errors).isEmpty();
  }

  @Test
  void govcEventsTextIsRefusedWithTheCommandThatGivesFullEvents() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> replay.events(
        Path.of("src/test/resources/replay/govc-events.txt"), null))
        .isInstanceOf(io.stunwatch.collectors.worker.ReplayRefusedException.class)
        .hasMessageStartingWith("govc events text: ").hasMessageContaining("govc events -json -l");
  }

  @Test
  void theEventRoutersRealPayloadGivesItsMigration() throws Exception {
    Path f = io.stunwatch.testsupport.SharedFixtures.dir("field/vcenter-events")
        .resolve("veba-VmMigratedEvent-govmomi-json-lab.json");
    List<VcenterEvent> events = replay.events(f, null);
    assertThat(events).hasSize(1);
    assertThat(events.get(0).eventType()).isEqualTo("VmMigratedEvent");
    assertThat(events.get(0).vm().value()).isEqualTo("vm-15161");
    assertThat(errors).isEmpty();
  }

  @Test
  void aBinaryFileIsRefusedAsNotTextNotFailedWithADecoderMessage() throws Exception {
    Path f = dir.resolve("events.bin");
    Files.write(f, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, (byte) 0xc3, 0x28});
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> replay.events(f, null))
        .isInstanceOf(io.stunwatch.collectors.worker.ReplayRefusedException.class)
        .hasMessageStartingWith("not text: ");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> replay.inventory(f, Instant.EPOCH))
        .isInstanceOf(io.stunwatch.collectors.worker.ReplayRefusedException.class);
  }
}
