package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.vmware.vim25.HostEventArgument;
import com.vmware.vim25.ManagedObjectReference;
import com.vmware.vim25.VmEventArgument;
import com.vmware.vim25.VmMigratedEvent;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.json.Json;
import io.stunwatch.testsupport.SharedFixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.GregorianCalendar;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class VimEventMapperTest {

  private static final String VC = "vc-uuid-1";
  private final VimEventMapper mapper = new VimEventMapper();

  private List<VcenterEvent> ownFixture() throws Exception {
    List<VcenterEvent> out = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("src/test/resources/vcenter/events-vi-json.jsonl"))) {
      mapper.map(Json.mapper().readTree(line), VC, null).ifPresent(out::add);
    }
    return out;
  }

  @Test
  void migrationEventsAreKeptAndOthersFilteredOnTheClient() throws Exception {
    List<VcenterEvent> events = ownFixture();
    assertThat(events).extracting(VcenterEvent::eventType).containsExactly("TaskEvent", "VmBeingHotMigratedEvent",
        "VmMigratedEvent", "VmFailedMigrateEvent", "EventEx");
    assertThat(events).extracting(VcenterEvent::category).containsExactly(VcenterEventCategory.MIGRATION_TASK,
        VcenterEventCategory.MIGRATION_STARTED, VcenterEventCategory.MIGRATION_COMPLETED,
        VcenterEventCategory.MIGRATION_FAILED, VcenterEventCategory.MIGRATION_STARTED);
  }

  @Test
  void sourceAndDestinationComeOutRightForEachEventType() throws Exception {
    List<VcenterEvent> e = ownFixture();
    VcenterEvent start = e.get(1);
    assertThat(start.sourceHost().value()).isEqualTo("host-1");
    assertThat(start.destHost().value()).isEqualTo("host-2");
    assertThat(start.computeResource()).isEqualTo(new EntityRef("ClusterComputeResource", "domain-c7", "gpu"));
    VcenterEvent done = e.get(2);
    assertThat(done.sourceHost().name()).isEqualTo("esx01");
    assertThat(done.destHost().name()).isEqualTo("esx02");
    assertThat(done.vmKey()).isEqualTo(VC + "/vm-42");
    assertThat(done.dedupeId()).isEqualTo(VC + ":9003");
    VcenterEvent failed = e.get(3);
    assertThat(failed.faultMessage()).startsWith("The vMotion failed because");
    assertThat(failed.faultType()).as("reason.fault's class").isEqualTo("MigrationFault");
    assertThat(failed.destHost().value()).isEqualTo("host-3");
  }

  @Test
  void aTaskEventCarriesItsTaskInfoAndInitiator() throws Exception {
    VcenterEvent task = ownFixture().get(0);
    assertThat(task.task().key()).isEqualTo("task-77");
    assertThat(task.task().descriptionId()).isEqualTo("VirtualMachine.relocate");
    assertThat(task.task().state()).isEqualTo("queued");
    assertThat(task.task().reasonType()).isEqualTo("TaskReasonUser");
    assertThat(task.task().userName()).isEqualTo("VSPHERE.LOCAL\\admin");
    assertThat(task.task().eventChainId()).isEqualTo(9001L);
    assertThat(task.task().queueTime()).isEqualTo(Instant.parse("2026-11-21T12:00:00.050Z"));
  }

  @Test
  void theGovmomiDialectOfTheSharedFixtureMapsToTheSameShape() throws Exception {
    Path dir = SharedFixtures.dir("vcenter");
    JsonNode veba = Json.mapper().readTree(
        Files.readString(dir.resolve("veba-kn-pcli-telegram-VmMigratedEvent-test-payload.json")));
    VcenterEvent e = mapper.map(veba, VC, "VmMigratedEvent").orElseThrow();
    assertThat(e.eventKey()).isEqualTo(5636626L);
    assertThat(e.chainId()).isEqualTo(5636613L);
    assertThat(e.createdTime()).isEqualTo(Instant.parse("2021-08-10T18:20:24.042999Z"));
    assertThat(e.vm()).isEqualTo(new EntityRef("VirtualMachine", "vm-15161", "TestVM-01"));
    assertThat(e.sourceHost()).isEqualTo(new EntityRef("HostSystem", "host-15150", "192.168.30.101"));
    assertThat(e.destHost()).isEqualTo(new EntityRef("HostSystem", "host-15147", "192.168.30.100"));
    assertThat(e.computeResource().value()).isEqualTo("domain-c15140");
    assertThat(e.userName()).isEqualTo("VSPHERE.LOCAL\\Administrator");
    assertThatThrownBy(() -> mapper.map(veba, VC, null)).hasMessageContaining("--event-type");
  }

  @Test
  void anEventFromTheSoapBindingMapsExactlyLikeItsViJsonForm() throws Exception {
    VmMigratedEvent ev = new VmMigratedEvent();
    ev.setKey(9003);
    ev.setChainId(9001);
    GregorianCalendar t = new GregorianCalendar(TimeZone.getTimeZone("UTC"));
    t.setTimeInMillis(Instant.parse("2026-11-21T12:03:01Z").toEpochMilli());
    ev.setCreatedTime(t);
    ev.setVm(vmArg("train-01", "vm-42"));
    ev.setHost(hostArg("esx02", "host-2"));
    ev.setSourceHost(hostArg("esx01", "host-1"));
    ev.setFullFormattedMessage("Migration of virtual machine train-01 from esx01 to esx02 completed");

    Optional<VcenterEvent> fromSoap = mapper.map(VimObjects.toViJson(ev), VC, null);

    assertThat(fromSoap).contains(ownFixture().get(2));
  }

  @Test
  void anEmptyEntityArgumentIsAbsentAndABadValueIsAMappingErrorNotACrash() throws Exception {
    VcenterEvent e = mapper.map(Json.mapper().readTree("{\"_typeName\":\"VmMigratedEvent\",\"key\":5,"
        + "\"createdTime\":\"2026-11-21T12:00:00Z\",\"host\":{\"name\":\"\",\"host\":{\"type\":\"\","
        + "\"value\":\"\"}}}"), VC, null).orElseThrow();
    assertThat(e.host()).isNull();
    assertThatThrownBy(() -> mapper.map(Json.mapper().readTree("{\"_typeName\":\"TaskEvent\",\"key\":6,"
        + "\"createdTime\":\"2026-11-21T12:00:00Z\",\"info\":{\"key\":\"task-1\",\"descriptionId\":"
        + "\"VirtualMachine.relocate\",\"state\":\" \"}}"), VC, null))
        .isInstanceOf(VimEventMapper.MappingException.class);
  }

  @Test
  void aMalformedEventSaysWhatIsWrong() throws Exception {
    assertThatThrownBy(() -> mapper.map(Json.mapper().readTree(
        "{\"_typeName\":\"VmMigratedEvent\",\"key\":1,\"createdTime\":\"yesterday\"}"), VC, null))
        .hasMessage("'createdTime' is not an ISO-8601 time: 'yesterday'");
    assertThatThrownBy(() -> mapper.map(Json.mapper().readTree("{\"_typeName\":\"VmMigratedEvent\"}"), VC, null))
        .hasMessage("'key' is missing");
    assertThatThrownBy(() -> mapper.map(Json.mapper().readTree("[1]"), VC, null))
        .hasMessage("an event must be a JSON object");
  }

  private static VmEventArgument vmArg(String name, String moref) {
    VmEventArgument a = new VmEventArgument();
    a.setName(name);
    ManagedObjectReference m = new ManagedObjectReference();
    m.setType("VirtualMachine");
    m.setVal(moref);
    a.setVm(m);
    return a;
  }

  private static HostEventArgument hostArg(String name, String moref) {
    HostEventArgument a = new HostEventArgument();
    a.setName(name);
    ManagedObjectReference m = new ManagedObjectReference();
    m.setType("HostSystem");
    m.setVal(moref);
    a.setHost(m);
    return a;
  }

  @Test
  void aHostEnteringMaintenanceModeIsReadForTheGuardAndIsNoMigration() throws Exception {
    String json = "{\"_typeName\":\"EnteringMaintenanceModeEvent\",\"chainId\":54,\"createdTime\":"
        + "\"2026-11-28T16:47:37.808Z\",\"host\":{\"_typeName\":\"HostEventArgument\",\"host\":{\"_typeName\":"
        + "\"ManagedObjectReference\",\"type\":\"HostSystem\",\"value\":\"host-50\"},\"name\":\"DC0_C0_H2\"},"
        + "\"key\":54,\"userName\":\"user\"}";
    var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    VimEventMapper m = new VimEventMapper();
    assertThat(m.maintenance(node)).hasValueSatisfying(x -> {
      assertThat(x.host().value()).isEqualTo("host-50");
      assertThat(x.host().name()).isEqualTo("DC0_C0_H2");
      assertThat(x.entering()).isTrue();
      assertThat(x.at()).isEqualTo(java.time.Instant.parse("2026-11-28T16:47:37.808Z"));
    });
    assertThat(m.map(node, "vc", null)).isEmpty();
  }
}
