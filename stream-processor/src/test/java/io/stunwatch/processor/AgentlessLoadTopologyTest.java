package io.stunwatch.processor;

import static io.stunwatch.processor.StunwatchTopologyTest.CLOCK;
import static io.stunwatch.processor.StunwatchTopologyTest.T0;
import static io.stunwatch.processor.StunwatchTopologyTest.VC;
import static io.stunwatch.processor.StunwatchTopologyTest.userMigration;
import static io.stunwatch.processor.StunwatchTopologyTest.vmUuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.ExporterGpuSample;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.StoreNames;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * GPU load of VMs without a Stunwatch worker: the ESXi host's {@code nvidia-smi vgpu -q} readings and an exporter's,
 * resolved to their VM through the inventory, give its migrations alerts and impacts, and say which view they came
 * from. Readings every 5 s, as a host collector takes them.
 */
class AgentlessLoadTopologyTest {

  @TempDir
  Path stateDir;

  private TopologyTestDriver driver;

  @BeforeEach
  void setUp() {
    setUp(stateDir);
  }

  private void setUp(Path state) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "agentless-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    StunwatchTopology.errorHandling(p, CLOCK);
    driver = new TopologyTestDriver(StunwatchTopology.build(ProcessorConfig.defaults()
        .withInventoryRefresh(Duration.ZERO), CLOCK), p);
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  private <V> TestInputTopic<String, V> in(Topic<String, V> topic) {
    return StunwatchTopologyTest.input(driver, topic);
  }

  private <V> Map<String, V> latest(Topic<String, V> topic) {
    return StunwatchTopologyTest.latest(driver, topic);
  }

  private void inventory(int vm, String host, String guestHostName) {
    VmInventoryEntry e = new VmInventoryEntry(VC, "vm-" + vm, "train-" + vm, vmUuid(vm), null,
        new EntityRef("HostSystem", "host-x", host), null, "dc", null, 65536L, List.of("grid_t4-16c"),
        VgpuProfile.parse("grid_t4-16c").orElseThrow(), T0, guestHostName);
    in(Topics.VM_INVENTORY).pipeInput(e.key(), e);
  }

  /** The host's readings of VM {@code vm}'s vGPU, every 5 s over {@code [from, from + seconds)}. */
  private void host(int vm, String host, Instant from, int seconds, double util, long fbUsed) {
    TestInputTopic<String, HostVgpuSample> in = in(Topics.HOST_VGPU_SAMPLES);
    for (int s = 0; s < seconds; s += 5) {
      Instant t = from.plusSeconds(s);
      HostVgpuSample h = new HostVgpuSample(null, host, t, "00000000:3B:00.0", "Tesla T4", "train-" + vm,
          "325163421" + vm, "GRID T4-16C", VgpuProfile.parse("GRID T4-16C").orElseThrow(), 16384L, fbUsed, util, 30.0,
          "Best Effort", null, null);
      in.pipeInput(h.key(), h, t);
    }
  }

  private void guest(int vm, Instant from, int seconds, double util, long fbUsed) {
    TestInputTopic<String, GpuSample> in = in(Topics.GPU_SAMPLES);
    for (int s = 0; s < seconds; s += 5) {
      Instant t = from.plusSeconds(s);
      in.pipeInput(vmUuid(vm), new GpuSample(vmUuid(vm), "guest-" + vm, t, 0, "GPU-" + vm, "GRID T4-16C", null,
          util, 20.0, fbUsed, 16384L, null, null, null, null, VgpuProfile.parse("GRID T4-16C").orElseThrow()), t);
    }
  }

  private void exporter(String vmName, String guestHostName, Instant from, int seconds, double util, long fbUsed) {
    TestInputTopic<String, ExporterGpuSample> in = in(Topics.EXPORTER_GPU_SAMPLES);
    for (int s = 0; s < seconds; s += 5) {
      Instant t = from.plusSeconds(s);
      ExporterGpuSample e = new ExporterGpuSample(null, vmName, guestHostName, "dcgm-exporter", "http://x:9400/metrics",
          t, 0, "GPU-e", "NVIDIA A100-SXM4-40GB", null, util, null, fbUsed, 40960L);
      in.pipeInput(e.key(), e, t);
    }
  }

  private void pipe(List<VcenterEvent> events) {
    TestInputTopic<String, VcenterEvent> in = in(Topics.VCENTER_EVENTS);
    for (VcenterEvent e : events) {
      in.pipeInput(e.vmKey(), e, e.createdTime());
    }
  }

  @Test
  void theRecordingOfTheHostAVmLeftReadAfterTheOtherHostsWholeRecordingStillGivesItsImpactAndAlert() {
    inventory(1, "esx02", null);
    TestInputTopic<String, VcenterEvent> events = in(Topics.VCENTER_EVENTS);
    for (VcenterEvent e : userMigration(1, 100, T0, 60)) {
      events.pipeInput(vmUuid(1), e, e.createdTime());               // keyed by VM id: read first
    }
    host(1, "esx02", T0.plusSeconds(60), 7200, 85.0, 15360);        // the host it moved to: two hours
    host(1, "esx01", T0.minusSeconds(600), 660, 90.0, 15360);       // then the host it left, up to the end
    driver.advanceWallClockTime(Duration.ofSeconds(10));

    MigrationImpact i = latest(Topics.MIGRATION_IMPACTS).get(VC + "/100");
    assertThat(i.loadSource()).isEqualTo(LoadSource.HOST);
    assertThat(i.before().gpuSamples()).as("the left host's readings before: %s", i).isEqualTo(60);
    assertThat(i.before().gpuUtilizationPct()).isEqualTo(90.0);
    assertThat(i.after().gpuUtilizationPct()).isEqualTo(85.0);
    MigrationAlert a = latest(Topics.MIGRATION_ALERTS).get(VC + "/100");
    assertThat(a).as("raised from the left host's readings once they came").isNotNull();
    assertThat(a.load().gpuUtilizationAvgPct()).isEqualTo(90.0);
    assertThat(a.state()).isEqualTo(MigrationAlert.AlertState.RESOLVED);
  }

  @Test
  void aVmSeenOnlyByItsHostHasAnAlertAndAnImpactFromTheHostsViewFollowingItToTheDestination() {
    inventory(1, "esx02", null); // the inventory already has it on the destination: the source's readings still count
    host(1, "esx01", T0.minusSeconds(120), 120, 90.0, 15360);
    pipe(userMigration(1, 100, T0, 60).subList(0, 2));
    host(1, "esx01", T0, 60, 40.0, 15360); // the alert waits for readings past its window's end
    MigrationAlert a = latest(Topics.MIGRATION_ALERTS).get(VC + "/100");
    assertThat(a).as("raised from the host's readings").isNotNull();
    assertThat(a.load().source()).isEqualTo(LoadSource.HOST);
    assertThat(a.load().gpuUtilizationAvgPct()).isEqualTo(90.0);
    assertThat(a.load().fbUsedMiB()).isEqualTo(15360L);

    pipe(userMigration(1, 100, T0, 60).subList(2, 4));
    host(1, "esx02", T0.plusSeconds(60), 130, 85.0, 15360);
    MigrationImpact i = latest(Topics.MIGRATION_IMPACTS).get(VC + "/100");
    assertThat(i).as("settled by the host's readings after the end").isNotNull();
    assertThat(i.loadSource()).isEqualTo(LoadSource.HOST);
    assertThat(i.before().gpuUtilizationPct()).isEqualTo(90.0);
    assertThat(i.during().gpuUtilizationPct()).as("twelve readings at 40 %, and the end's second on the destination")
        .isEqualTo((12 * 40.0 + 85) / 13);
    assertThat(i.after().gpuUtilizationPct()).isEqualTo(85.0);
    assertThat(i.stun()).as("a gap in the host's readings is no stun").isEqualTo(new StunTime(null,
        StunTime.Source.UNKNOWN));
    assertThat(latest(Topics.MIGRATION_ALERTS).get(VC + "/100").state()).isEqualTo(MigrationAlert.AlertState.RESOLVED);
    KeyValueStore<String, MigrationRow> rows = driver.getKeyValueStore(StoreNames.MIGRATIONS_BY_VM);
    try (KeyValueIterator<String, MigrationRow> it = rows.all()) {
      assertThat(it.next().value.summary().loadSource()).as("the list row says it too").isEqualTo(LoadSource.HOST);
    }

    KeyValueStore<String, HostGpu> gpus = driver.getKeyValueStore(StoreNames.HOST_GPUS);
    assertThat(gpus.get(HostGpu.key("esx01", "00000000:3B:00.0")).schedulerPolicy()).isEqualTo("Best Effort");
    assertThat(LiveStoreView.current(driver, vmUuid(1))).as("no guest view").isNull();
    assertThat(LiveStoreView.current(driver, LoadKeys.of(vmUuid(1), LoadSource.HOST)).gpuUtilizationAvgPct())
        .isEqualTo(85.0);
  }

  /** A host-only VM's migration fed live (events among the readings) or with every event before any reading. */
  private Map<String, Object> hostOnly(boolean eventsFirst) {
    inventory(7, "esx02", null);
    List<VcenterEvent> events = userMigration(7, 700, T0, 60);
    if (eventsFirst) {
      pipe(events);
    }
    host(7, "esx01", T0.minusSeconds(120), 120, 90.0, 15360);
    if (!eventsFirst) {
      pipe(events.subList(0, 2));
    }
    host(7, "esx01", T0, 60, 45.0, 15360);
    if (!eventsFirst) {
      pipe(events.subList(2, 4));
    }
    host(7, "esx02", T0.plusSeconds(60), 130, 85.0, 15360);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("impact", latest(Topics.MIGRATION_IMPACTS).get(VC + "/700"));
    out.put("alert", latest(Topics.MIGRATION_ALERTS).get(VC + "/700"));
    return out;
  }

  @Test
  void aHostOnlyVmsImpactAndAlertAreTheSameLiveAndWithEveryEventFirst() {
    Map<String, Object> live = hostOnly(false);
    assertThat(((MigrationImpact) live.get("impact")).loadSource()).isEqualTo(LoadSource.HOST);
    assertThat(((MigrationAlert) live.get("alert")).load().source()).isEqualTo(LoadSource.HOST);
    driver.close();
    setUp(stateDir.resolve("events-first"));
    assertThat(hostOnly(true)).isEqualTo(live);
  }

  @Test
  void whenTheGuestReadsItsGpuTooItsViewIsTheOneUsedWhicheverArrivedFirst() {
    inventory(2, "esx01", null);
    host(2, "esx01", T0.minusSeconds(120), 120, 50.0, 8000); // the host's view first
    guest(2, T0.minusSeconds(120), 120, 95.0, 15000);
    pipe(userMigration(2, 200, T0, 30).subList(0, 2));
    host(2, "esx01", T0, 10, 50.0, 8000);
    guest(2, T0, 10, 95.0, 15000);
    MigrationAlert a = latest(Topics.MIGRATION_ALERTS).get(VC + "/200");
    assertThat(a.load().source()).isEqualTo(LoadSource.GUEST);
    assertThat(a.load().gpuUtilizationAvgPct()).as("the guest's, not a mix").isEqualTo(95.0);
    assertThat(LiveStoreView.current(driver, vmUuid(2)).fbUsedMiB()).isEqualTo(15000L);
    assertThat(LiveStoreView.current(driver, LoadKeys.of(vmUuid(2), LoadSource.HOST)).fbUsedMiB())
        .as("kept beside it").isEqualTo(8000L);
  }

  @Test
  void anExportersReadingsFindTheirVmByNameOrByTheGuestsHostNameAndNeverByAnAmbiguousOne() {
    inventory(3, "esx01", "trainer-3.lab.example");
    inventory(4, "esx01", "shared");
    inventory(5, "esx01", "shared");
    exporter(null, "trainer-3", T0.minusSeconds(120), 120, 97.0, 39000); // short host name
    exporter("train-4", null, T0.minusSeconds(120), 120, 96.0, 39000);   // a label mapped to the VM name
    exporter(null, "shared", T0.minusSeconds(120), 120, 99.0, 39000);    // two VMs' guests say "shared"
    pipe(userMigration(3, 300, T0, 30).subList(0, 2));
    pipe(userMigration(4, 400, T0, 30).subList(0, 2));
    pipe(userMigration(5, 500, T0, 30).subList(0, 2));
    exporter(null, "trainer-3", T0, 10, 97.0, 39000);
    exporter("train-4", null, T0, 10, 96.0, 39000);
    exporter(null, "shared", T0, 10, 99.0, 39000);
    Map<String, MigrationAlert> alerts = latest(Topics.MIGRATION_ALERTS);
    assertThat(alerts).containsOnlyKeys(VC + "/300", VC + "/400");
    assertThat(alerts.get(VC + "/300").load().source()).isEqualTo(LoadSource.GUEST);
    assertThat(alerts.get(VC + "/300").load().gpuUtilizationAvgPct()).isEqualTo(97.0);
    assertThat(alerts.get(VC + "/400").load().gpuUtilizationAvgPct()).isEqualTo(96.0);
    assertThat(driver.metrics().entrySet().stream()
        .filter(e -> e.getKey().name().equals("unresolved-gpu-samples-total"))
        .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum())
        .as("each of the ambiguous readings counted").isEqualTo(26.0);
  }
}
