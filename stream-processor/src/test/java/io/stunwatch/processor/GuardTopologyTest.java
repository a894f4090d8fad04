package io.stunwatch.processor;

import static io.stunwatch.processor.StunwatchTopologyTest.input;
import static io.stunwatch.processor.StunwatchTopologyTest.vmUuid;
import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRS guard's decisions, through the production topology and topics: who is protected, held and released, and
 * that the same readings give the same decisions however they are fed.
 */
class GuardTopologyTest {

  static final String VC = StunwatchTopologyTest.VC;
  static final Instant T0 = StunwatchTopologyTest.T0;
  static final ProcessorConfig GUARDED = ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO)
      .withGuard(GuardConfig.OFF.withEnabled(true));

  @TempDir
  Path dir;

  /** A decision as a test compares it: the VM, what, and when. */
  record Said(String vm, GuardDecision.Action action, Instant at) {
  }

  private static TopologyTestDriver driver(ProcessorConfig config, Path stateDir) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "guard-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    StunwatchTopology.errorHandling(p, StunwatchTopologyTest.CLOCK);
    return new TopologyTestDriver(StunwatchTopology.build(config, StunwatchTopologyTest.CLOCK), p);
  }

  private static void inventory(TopologyTestDriver d, String version, int... vms) {
    HostInventoryEntry h = new HostInventoryEntry(VC, "host-1", "esx01", null, List.of(), 25_000L, T0, version,
        version);
    input(d, Topics.HOST_INVENTORY).pipeInput(h.key(), h);
    TestInputTopic<String, VmInventoryEntry> inv = input(d, Topics.VM_INVENTORY);
    for (int i : vms) {
      VmInventoryEntry e = new VmInventoryEntry(VC, "vm-" + i, "train-" + i, vmUuid(i), null,
          new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", "[ds1] train-" + i + "/train-" + i + ".vmx",
          65536L, List.of("grid_t4-16c"), VgpuProfile.parse("grid_t4-16c").orElseThrow(), T0);
      inv.pipeInput(e.key(), e);
    }
  }

  /** VM {@code vm}'s readings, one a second for {@code seconds} from {@code from}. */
  private static List<GpuSample> readings(int vm, Instant from, int seconds, double util, long fbUsedMiB) {
    List<GpuSample> out = new ArrayList<>();
    for (int s = 0; s < seconds; s++) {
      Instant t = from.plusSeconds(s);
      out.add(new GpuSample(vmUuid(vm), "guest-" + vm, t, 0, "GPU-" + vm, "GRID T4-16C", null, util, 20.0,
          fbUsedMiB, 16384L, null, null, 1590L, "P0", VgpuProfile.parse("GRID T4-16C").orElseThrow()));
    }
    return out;
  }

  private static void pipe(TopologyTestDriver d, List<GpuSample> samples) {
    TestInputTopic<String, GpuSample> in = input(d, Topics.GPU_SAMPLES);
    for (GpuSample s : samples) {
      in.pipeInput(s.vmId(), s, s.timestamp());
    }
  }

  private static List<GuardDecision> decisions(TopologyTestDriver d) {
    return d.createOutputTopic(Topics.GUARD_DECISIONS.name(), new StringDeserializer(),
        Topics.GUARD_DECISIONS.valueSerde().deserializer()).readRecordsToList().stream().map(TestRecord::value)
        .toList();
  }

  private static List<Said> said(List<GuardDecision> decisions) {
    return decisions.stream().map(d -> new Said(d.vmId(), d.action(), d.at())).toList();
  }

  /** A busy VM, 12 GiB of framebuffer in use (p95 on vSphere 7's figure: 12 × 2 × 1.5 = 36 s), then idle. */
  private static List<GpuSample> busyThenIdle(int vm, Instant from, int busySeconds, int idleSeconds) {
    List<GpuSample> out = new ArrayList<>(readings(vm, from, busySeconds, 95.0, 12288));
    out.addAll(readings(vm, from.plusSeconds(busySeconds), idleSeconds, 2.0, 12288));
    return out;
  }

  @Test
  void aBusyVmWithAForecastOverTheLimitIsProtectedHeldAndReleasedAfterItsIdleTime() {
    try (TopologyTestDriver d = driver(GUARDED, dir)) {
      inventory(d, "7.0.3", 1);
      pipe(d, busyThenIdle(1, T0, 150, 15 * 60));
      List<GuardDecision> out = decisions(d);

      // protected at the first reading whose window holds a reading; said again every minute of its readings
      assertThat(said(out)).startsWith(new Said(vmUuid(1), GuardDecision.Action.PROTECT, T0.plusSeconds(1)),
          new Said(vmUuid(1), GuardDecision.Action.HOLD, T0.plusSeconds(61)),
          new Said(vmUuid(1), GuardDecision.Action.HOLD, T0.plusSeconds(121)));
      GuardDecision protect = out.get(0);
      assertThat(protect.reasons()).containsExactly(MigrationAlert.Reason.GPU_UTILIZATION);
      assertThat(protect.load().gpuUtilizationAvgPct()).isEqualTo(95.0);
      assertThat(protect.forecast().basis()).isEqualTo(StunForecast.Basis.VMWARE_REFERENCE);
      assertThat(protect.forecast().p95Seconds()).isEqualTo(36.0);
      assertThat(protect.maxStunSeconds()).isEqualTo(30.0);

      // busy by the 60 s average until half of the window is idle; released ten minutes of readings after that
      GuardDecision release = out.get(out.size() - 1);
      assertThat(release.action()).isEqualTo(GuardDecision.Action.RELEASE);
      assertThat(release.protectedSince()).isEqualTo(T0.plusSeconds(1));
      Instant lastBusy = release.at().minus(GUARDED.guard().releaseAfter());
      assertThat(lastBusy).isBetween(T0.plusSeconds(150), T0.plusSeconds(150 + 60));
      assertThat(release.reasons()).isEmpty();
      assertThat(out).filteredOn(x -> x.action() == GuardDecision.Action.PROTECT).hasSize(1);
    }
  }

  @Test
  void aVmWhoseForecastIsUnderTheLimitOrThatIsIdleIsNotProtected() {
    try (TopologyTestDriver d = driver(GUARDED, dir)) {
      inventory(d, "7.0.3", 1, 2, 3);
      pipe(d, readings(1, T0, 300, 95.0, 4096));   // busy, 4 GiB: p95 12 s
      pipe(d, readings(2, T0, 300, 5.0, 12288));   // 12 GiB but idle
      assertThat(decisions(d)).isEmpty();
    }
  }

  @Test
  void onVsphere67TheSameFramebufferIsProtectedSoonerAndADipShorterThanTheReleaseTimeKeepsIt() {
    try (TopologyTestDriver d = driver(GUARDED, dir)) {
      inventory(d, "6.7.0", 1);
      // 4 GiB on 6.7: 4 × 9 × 1.5 = 54 s
      List<GpuSample> readings = new ArrayList<>(readings(1, T0, 120, 95.0, 4096));
      readings.addAll(readings(1, T0.plusSeconds(120), 300, 2.0, 4096)); // five idle minutes
      readings.addAll(readings(1, T0.plusSeconds(420), 120, 95.0, 4096));
      pipe(d, readings);
      List<GuardDecision> out = decisions(d);
      assertThat(out.get(0).action()).isEqualTo(GuardDecision.Action.PROTECT);
      assertThat(out.get(0).forecast().p95Seconds()).isEqualTo(54.0);
      assertThat(out).extracting(GuardDecision::action).doesNotContain(GuardDecision.Action.RELEASE)
          .contains(GuardDecision.Action.HOLD);
      assertThat(out.get(out.size() - 1).protectedSince()).isEqualTo(T0.plusSeconds(1));
    }
  }

  @Test
  void theSameReadingsGiveTheSameDecisionsWhetherFedVmByVmOrInterleavedAtTheirPace() {
    List<GpuSample> one = busyThenIdle(1, T0, 200, 12 * 60);
    List<GpuSample> two = busyThenIdle(2, T0.plusSeconds(37), 400, 11 * 60);
    List<Said> byVm;
    try (TopologyTestDriver d = driver(GUARDED, dir.resolve("by-vm"))) {
      inventory(d, "7.0.3", 1, 2);
      pipe(d, one);  // one recording, then the other, as one replay process per VM feeds them
      pipe(d, two);
      byVm = said(decisions(d));
    }
    List<Said> interleaved;
    try (TopologyTestDriver d = driver(GUARDED, dir.resolve("live"))) {
      inventory(d, "7.0.3", 1, 2);
      List<GpuSample> live = new ArrayList<>(one);
      live.addAll(two);
      live.sort(java.util.Comparator.comparing(GpuSample::timestamp));
      TestInputTopic<String, GpuSample> in = input(d, Topics.GPU_SAMPLES);
      for (GpuSample s : live) {
        in.pipeInput(s.vmId(), s, s.timestamp());
        d.advanceWallClockTime(Duration.ofMillis(1000)); // live: a second of wall time per reading
      }
      interleaved = said(decisions(d));
    }
    assertThat(byVm).hasSizeGreaterThan(6)
        .extracting(Said::action).contains(GuardDecision.Action.PROTECT, GuardDecision.Action.RELEASE);
    assertThat(interleaved.stream().filter(s -> s.vm().equals(vmUuid(1))).toList())
        .isEqualTo(byVm.stream().filter(s -> s.vm().equals(vmUuid(1))).toList());
    assertThat(interleaved.stream().filter(s -> s.vm().equals(vmUuid(2))).toList())
        .isEqualTo(byVm.stream().filter(s -> s.vm().equals(vmUuid(2))).toList());
  }

  @Test
  void theGuardIsOffByDefault() {
    try (TopologyTestDriver d = driver(ProcessorConfig.defaults().withInventoryRefresh(Duration.ZERO), dir)) {
      inventory(d, "7.0.3", 1);
      pipe(d, busyThenIdle(1, T0, 150, 60));
      assertThat(decisions(d)).isEmpty();
      assertThat(d.getAllStateStores()).doesNotContainKey("guard-state");
    }
  }

  private static GuardAction action(String vm, GuardAction.Kind kind, GuardAction.Result result, Instant at) {
    return new GuardAction(vm, VC, "vm-" + vm.hashCode(), "train", new EntityRef("ClusterComputeResource",
        "domain-c7", "gpu"), kind, result, kind == GuardAction.Kind.PROTECT ? DrsOverride.MANUAL : null, null, null,
        kind + " " + result, at);
  }

  @Test
  void eachVmsAuditTrailIsTheSameInWhateverOrderItsActionsArriveAndOnceEach() {
    List<GuardAction> actions = new java.util.ArrayList<>();
    for (int i = 0; i < GuardTrail.KEPT + 10; i++) {
      actions.add(action(vmUuid(1), i % 2 == 0 ? GuardAction.Kind.PROTECT : GuardAction.Kind.RELEASE,
          GuardAction.Result.APPLIED, T0.plusSeconds(60L * i)));
    }
    // two of one instant, told apart by what they are
    actions.add(action(vmUuid(1), GuardAction.Kind.PROTECT, GuardAction.Result.REFUSED, T0.plusSeconds(60)));
    List<GuardAction> shuffled = new java.util.ArrayList<>(actions);
    java.util.Collections.shuffle(shuffled, new java.util.Random(7));
    shuffled.addAll(actions.subList(0, 20)); // read again, as after a replay of the topic
    List<GuardTrail> trails = new java.util.ArrayList<>();
    for (List<GuardAction> feed : List.of(actions, shuffled)) {
      try (TopologyTestDriver d = driver(GUARDED, dir.resolve("trail-" + trails.size()))) {
        TestInputTopic<String, GuardAction> in = input(d, Topics.GUARD_ACTIONS);
        feed.forEach(a -> in.pipeInput(a.vmId(), a));
        trails.add(d.<String, GuardTrail>getKeyValueStore(StoreNames.GUARD_TRAIL).get(vmUuid(1)));
      }
    }
    assertThat(trails.get(0).actions()).hasSize(GuardTrail.KEPT).isSortedAccordingTo(GuardTrail.ORDER)
        .as("the newest kept").contains(actions.get(GuardTrail.KEPT + 9)).doesNotContain(actions.get(0));
    assertThat(trails.get(1)).isEqualTo(trails.get(0));
  }
}
