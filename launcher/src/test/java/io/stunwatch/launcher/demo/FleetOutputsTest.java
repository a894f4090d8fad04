package io.stunwatch.launcher.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.hostvgpu.VgpuQueryParser;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiCsvParser;
import io.stunwatch.collectors.rdma.SysfsRdmaReader;
import io.stunwatch.collectors.throughput.ThroughputParser;
import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.collectors.vcenter.VimEventMapper;
import io.stunwatch.collectors.vcenter.VmwareLogParser;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's fleet reaches Kafka only through the collectors' parsers, so each rendering must be the parser's exact
 * inverse: every record of a scenario, printed in its tool's format and parsed back, is the record itself.
 */
class FleetOutputsTest {

  static final List<Object> RECORDS = new ArrayList<>();
  static final Clock NEVER = Clock.fixed(Instant.EPOCH, ZoneOffset.UTC);

  @TempDir
  Path dir;

  @BeforeAll
  static void scenario() {
    new FleetScenario(new FleetScenario.Settings(5, 8, 3, Instant.parse("2026-11-21T10:00:00Z"),
        Duration.ofMinutes(20), Duration.ofSeconds(40)), 1000, Duration.ofSeconds(5)).run(new FleetScenario.Sink() {
          @Override
          public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
            RECORDS.add(value);
          }
        });
  }

  static <T> List<T> all(Class<T> type) {
    List<T> out = RECORDS.stream().filter(type::isInstance).map(type::cast).toList();
    assertThat(out).as(type.getSimpleName() + " records").isNotEmpty();
    return out;
  }

  @Test
  void everyGpuSampleReadsBackFromItsNvidiaSmiCsvLine() throws Exception {
    long n = 1;
    for (GpuSample g : all(GpuSample.class)) {
      NvidiaSmiCsvParser p = NvidiaSmiCsvParser.forHeader(FleetOutputs.NVIDIA_SMI_HEADER, ZoneOffset.UTC,
          new WorkerIdentity(g.vmId(), g.hostname()), NEVER, "test");
      assertThat(p.parse(FleetOutputs.nvidiaSmiCsv(g), ++n)).isEqualTo(g);
    }
  }

  @Test
  void everyHostsVgpuReadingReadsBackFromItsVgpuQuery() throws Exception {
    List<HostVgpuSample> all = all(HostVgpuSample.class);
    for (HostVgpuSample h : all) {
      assertThat(new VgpuQueryParser().parse(FleetOutputs.vgpuQuery(h), h.hostname(), h.timestamp(), "test"))
          .containsExactly(h);
    }
    assertThat(all).extracting(HostVgpuSample::schedulerPolicy).as("a policy per host")
        .containsOnly("Best Effort", "Equal Share", "Fixed Share");
  }

  @Test
  void vgpuGuestsReportPowerAndTemperatureAsUnavailableNotZero() throws Exception {
    GpuSample g = all(GpuSample.class).get(0);
    String line = FleetOutputs.nvidiaSmiCsv(g);
    assertThat(line).contains("[N/A]").contains(" %").contains(" MiB");
    GpuSample read = NvidiaSmiCsvParser.forHeader(FleetOutputs.NVIDIA_SMI_HEADER, ZoneOffset.UTC,
        new WorkerIdentity(g.vmId(), g.hostname()), NEVER, "test").parse(line, 2);
    assertThat(read.powerDrawW()).isNull();
    assertThat(read.temperatureC()).isNull();
  }

  @Test
  void everyThroughputSampleReadsBackFromItsTrainingLogLine() {
    ThroughputParser p = new ThroughputParser(null, "images/sec", ZoneOffset.UTC);
    for (ThroughputSample t : all(ThroughputSample.class)) {
      var found = p.parse(FleetOutputs.trainingLog(t), Instant.EPOCH).orElseThrow();
      assertThat(p.sample(found, t.vmId(), t.hostname(), t.job())).isEqualTo(t);
    }
  }

  @Test
  void everyRdmaSampleReadsBackFromItsSysfsTree() throws Exception {
    for (RdmaCounterSample r : all(RdmaCounterSample.class)) {
      Path root = dir.resolve(r.hostname());
      FleetOutputs.sysfsPort(root, r);
      var read = new SysfsRdmaReader(root, new WorkerIdentity(r.vmId(), r.hostname())).read(r.timestamp());
      assertThat(read.problems()).isEmpty();
      assertThat(read.samples()).containsExactly(r);
    }
  }

  @Test
  void everyVcenterEventReadsBackFromItsViJson() throws Exception {
    VcenterReplay replay = new VcenterReplay(FleetScenario.VCENTER, e -> {
      throw new AssertionError(e);
    });
    VimEventMapper mapper = new VimEventMapper();
    List<VcenterEvent> events = all(VcenterEvent.class);
    assertThat(events).extracting(VcenterEvent::eventType).contains("TaskEvent", "VmBeingHotMigratedEvent",
        VcenterEvent.TASK_INFO, "VmMigratedEvent", "DrsVmMigratedEvent", "VmFailedMigrateEvent");
    for (VcenterEvent e : events) {
      VcenterEvent read = VcenterEvent.TASK_INFO.equals(e.eventType())
          ? mapper.taskChange(Json.mapper().readTree(FleetOutputs.taskInfo(e.task()).toString()),
              FleetScenario.VCENTER, e.eventKey(), e.chainId(), e.vm())
          : replay.event(FleetOutputs.vimEvent(e), null, "test", 1).orElseThrow();
      assertThat(read).as(FleetOutputs.vimEvent(e)).isEqualTo(e);
    }
  }

  @Test
  void everyInventoryEntryReadsBackFromItsViJson() throws Exception {
    VcenterReplay replay = new VcenterReplay(FleetScenario.VCENTER, e -> {
      throw new AssertionError(e);
    });
    for (VmInventoryEntry vm : all(VmInventoryEntry.class)) {
      Path file = dir.resolve("inventory.json");
      Files.write(file, List.of(FleetOutputs.inventoryHost(vm.host(), vm.cluster()), FleetOutputs.inventoryVm(vm)));
      var read = replay.inventory(file, vm.observedAt());
      assertThat(read.vms()).containsExactly(vm);
      assertThat(read.hosts()).singleElement().satisfies(h -> {
        assertThat(h.moref()).isEqualTo(vm.host().value());
        assertThat(h.name()).isEqualTo(vm.host().name());
      });
    }
  }

  @Test
  void everyStunReadsBackFromItsVmwareLogLines() {
    VmwareLogParser parser = new VmwareLogParser();
    for (StunObservation o : all(StunObservation.class)) {
      List<VmwareLogParser.Stun> stuns = parser.parse(String.join("\n", FleetOutputs.vmwareLog(o, "10.0.0.7")));
      assertThat(stuns).singleElement().satisfies(s -> {
        StunObservation read = s.observation(o.vcenterUuid(), o.vmMoref(), o.vmName(), o.logFile());
        assertThat(read).usingRecursiveComparison().ignoringFields("lineNumber").isEqualTo(o);
        assertThat(read.lineNumber()).isEqualTo(2);
      });
    }
  }

  @Test
  void anEventLineNamesItsTypeAndRefsAsVim25Does() throws Exception {
    VcenterEvent migrated = all(VcenterEvent.class).stream()
        .filter(e -> e.eventType().endsWith("VmMigratedEvent")).findFirst().orElseThrow();
    JsonNode j = Json.mapper().readTree(FleetOutputs.vimEvent(migrated));
    // VmMigratedEvent: host is the destination, sourceHost the source; no destHost field
    assertThat(j.path("host").path("host").path("value").asText()).isEqualTo(migrated.destHost().value());
    assertThat(j.path("sourceHost").path("host").path("value").asText()).isEqualTo(migrated.sourceHost().value());
    assertThat(j.has("destHost")).isFalse();
    assertThat(Map.of("type", j.path("vm").path("vm").path("type").asText())).containsEntry("type",
        "VirtualMachine");
  }
}
