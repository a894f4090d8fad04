package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.VcenterCheckpoint.Maintenance;
import io.stunwatch.model.VcenterCheckpoint.Protection;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GuardApplierTest {

  static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
  static final String BUSY = "42000000-0000-4000-8000-000000000001";
  static final String ADMINS = "42000000-0000-4000-8000-000000000002";
  static final EntityRef CLUSTER = new EntityRef("ClusterComputeResource", "domain-c7", "gpu");

  /** A cluster's overrides, as vCenter keeps them; refuses every change while {@link #refuse} is set. */
  static final class Cluster extends FakeVcenter {
    final Map<String, DrsOverride> overrides = new HashMap<>();
    final List<String> changes = new ArrayList<>();
    boolean refuse;

    @Override
    public Map<String, DrsOverride> drsOverrides(String clusterMoref) {
      return Map.copyOf(overrides);
    }

    @Override
    public void setDrsOverride(String clusterMoref, String vmMoref, DrsOverride from, DrsOverride to)
        throws VcenterRefusedException {
      if (refuse) {
        throw new VcenterRefusedException("NoPermission", "no permission Host.Inventory.EditCluster");
      }
      assertThat(overrides.get(vmMoref)).as("the override the change starts from").isEqualTo(from);
      changes.add(vmMoref + " " + from + " -> " + to);
      if (to == null) {
        overrides.remove(vmMoref);
      } else {
        overrides.put(vmMoref, to);
      }
    }
  }

  private final ManualClock clock = new ManualClock(NOW);
  private final Cluster vcenter = new Cluster();
  private final List<GuardAction> audit = new ArrayList<>();
  private List<Protection> recorded = List.of();
  private final List<List<Protection>> commits = new ArrayList<>();

  private static VmInventoryEntry vm(String id, String moref) {
    return new VmInventoryEntry("vc", moref, "train-" + moref, id, null, new EntityRef("HostSystem", "host-1",
        "esx01"), CLUSTER, "dc", null, null, List.of(), null, NOW);
  }

  private static final Map<String, VmInventoryEntry> VMS = Map.of(BUSY, vm(BUSY, "vm-1"), ADMINS, vm(ADMINS, "vm-2"));

  private static GuardDecision decision(String vm, GuardDecision.Action action, Instant at) {
    return new GuardDecision(vm, action, action == GuardDecision.Action.RELEASE ? List.of()
        : List.of(MigrationAlert.Reason.GPU_UTILIZATION), new MigrationAlert.Load(95.0, 60L, 12288L, 75.0, null,
        LoadSource.GUEST), new StunForecast(24.0, 36.0, 2.0, 12.0, 0, StunForecast.Basis.VMWARE_REFERENCE), 30.0,
        at.minusSeconds(300), at);
  }

  private void pass(GuardApplier g) throws Exception {
    recorded = g.pass(vcenter, VMS::get, recorded, (actions, protections) -> {
      audit.addAll(actions);
      commits.add(protections);
    });
  }

  private GuardApplier applier(GuardApplyConfig.Mode mode) {
    return new GuardApplier(new GuardApplyConfig(true, mode, Duration.ofMinutes(30), Duration.ofMinutes(2)), clock,
        "vc");
  }

  @Test
  void aProtectionIsRecordedBeforeItIsSetAndReleasingRemovesTheOverrideItAdded() throws Exception {
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW.minusSeconds(5)));
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
    assertThat(commits.get(0)).as("recorded before vCenter was asked").hasSize(1);
    assertThat(audit).singleElement().satisfies(a -> {
      assertThat(a.result()).isEqualTo(GuardAction.Result.APPLIED);
      assertThat(a.kind()).isEqualTo(GuardAction.Kind.PROTECT);
      assertThat(a.previous()).isNull();
      assertThat(a.why()).contains("forecast stun p95 36 s over 30 s");
    });
    pass(g);
    assertThat(vcenter.changes).as("set once").hasSize(1);

    clock.advance(Duration.ofMinutes(10));
    g.decided(decision(BUSY, GuardDecision.Action.RELEASE, clock.instant()));
    pass(g);
    assertThat(vcenter.overrides).doesNotContainKey("vm-1");
    assertThat(recorded).isEmpty();
    assertThat(audit.get(audit.size() - 1).kind()).isEqualTo(GuardAction.Kind.RELEASE);
  }

  @Test
  void anAdminsOverrideIsNeverChangedAndIsReportedOnce() throws Exception {
    DrsOverride own = new DrsOverride(DrsOverride.Behavior.PARTIALLY_AUTOMATED, true);
    vcenter.overrides.put("vm-2", own);
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(ADMINS, GuardDecision.Action.PROTECT, NOW));
    pass(g);
    pass(g);
    assertThat(vcenter.changes).isEmpty();
    assertThat(vcenter.overrides).containsEntry("vm-2", own);
    assertThat(audit).singleElement().extracting(GuardAction::result).isEqualTo(GuardAction.Result.LEFT_TO_ADMIN);
  }

  @Test
  void anOverrideTheAdminChangedWhileProtectedIsLeftAsItIsOnRelease() throws Exception {
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW));
    pass(g);
    DrsOverride admins = new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, false);
    vcenter.overrides.put("vm-1", admins);
    g.decided(decision(BUSY, GuardDecision.Action.RELEASE, NOW.plusSeconds(1)));
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", admins);
    assertThat(audit.get(audit.size() - 1).result()).isEqualTo(GuardAction.Result.LEFT_TO_ADMIN);
    assertThat(recorded).isEmpty();
  }

  @Test
  void aDecisionOlderThanTheMaxAgeStartsNothingAndAProtectionWithoutDecisionsIsReleased() throws Exception {
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW.minus(Duration.ofDays(30)))); // a replay
    pass(g);
    assertThat(vcenter.changes).isEmpty();
    assertThat(audit).isEmpty();

    g.decided(decision(BUSY, GuardDecision.Action.HOLD, NOW));
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
    clock.advance(Duration.ofMinutes(31)); // no decision since: readings or processor stopped
    pass(g);
    assertThat(vcenter.overrides).doesNotContainKey("vm-1");
    assertThat(audit.get(audit.size() - 1).why()).contains("no decision for 30 min");
  }

  @Test
  void dryRunRecordsAndReportsButLeavesVcenterUntouched() throws Exception {
    GuardApplier g = applier(GuardApplyConfig.Mode.DRY_RUN);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW));
    pass(g);
    g.decided(decision(BUSY, GuardDecision.Action.RELEASE, NOW.plusSeconds(60)));
    pass(g);
    assertThat(vcenter.changes).isEmpty();
    assertThat(audit).extracting(GuardAction::kind, GuardAction::result).containsExactly(
        org.assertj.core.groups.Tuple.tuple(GuardAction.Kind.PROTECT, GuardAction.Result.DRY_RUN),
        org.assertj.core.groups.Tuple.tuple(GuardAction.Kind.RELEASE, GuardAction.Result.DRY_RUN));
  }

  @Test
  void aRefusalIsReportedAndNotTriedAgainInALoop() throws Exception {
    vcenter.refuse = true;
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW));
    for (int i = 0; i < 5; i++) {
      pass(g);
      clock.advance(Duration.ofSeconds(10));
    }
    assertThat(audit).singleElement().satisfies(a -> {
      assertThat(a.result()).isEqualTo(GuardAction.Result.REFUSED);
      assertThat(a.why()).contains("Host.Inventory.EditCluster");
    });
    assertThat(recorded).isEmpty();
  }

  @Test
  void aProtectionRecordedButNotSetBeforeACrashIsSetOnceTheCollectorIsBack() throws Exception {
    recorded = List.of(new Protection(BUSY, "vm-1", CLUSTER.value(), null, DrsOverride.MANUAL, NOW, false));
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.HOLD, NOW));
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
    assertThat(vcenter.changes).hasSize(1);
    assertThat(recorded).hasSize(1);
  }

  @Test
  void aHostEnteringMaintenanceHasItsVmsReleasedAtOnceAndNoneProtectedUntilItLeaves() throws Exception {
    GuardApplier g = applier(GuardApplyConfig.Mode.ENFORCE);
    g.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW));
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
    EntityRef host = new EntityRef("HostSystem", "host-1", "esx01");
    assertThat(g.maintenance(new VimEventMapper.Maintenance(host, true, NOW.plusSeconds(1)))).isTrue();
    assertThat(g.maintenance(new VimEventMapper.Maintenance(host, true, NOW.plusSeconds(1))))
        .as("the same event read again in a poll's overlap window").isFalse();
    g.decided(decision(BUSY, GuardDecision.Action.HOLD, NOW.plusSeconds(2)));
    pass(g);
    assertThat(vcenter.overrides).doesNotContainKey("vm-1");
    assertThat(audit.get(audit.size() - 1).why()).contains("esx01 is entering maintenance mode");
    pass(g);
    assertThat(vcenter.overrides).as("not protected again while in maintenance").doesNotContainKey("vm-1");

    assertThat(g.maintenance(new VimEventMapper.Maintenance(host, false, NOW.plusSeconds(60)))).isTrue();
    assertThat(g.maintenance(new VimEventMapper.Maintenance(host, true, NOW.plusSeconds(1))))
        .as("an entering older than the leaving, read again").isFalse();
    pass(g);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
  }

  @Test
  void aHostInMaintenanceAsTheCheckpointRecordedItStaysSoForACollectorThatStartsAgainLongAfter() throws Exception {
    GuardApplier before = applier(GuardApplyConfig.Mode.ENFORCE);
    EntityRef host = new EntityRef("HostSystem", "host-1", "esx01");
    before.maintenance(new VimEventMapper.Maintenance(host, true, NOW.minus(Duration.ofHours(3))));
    List<Maintenance> saved = before.hostsInMaintenance();
    assertThat(saved).containsExactly(new Maintenance("host-1", "esx01", NOW.minus(Duration.ofHours(3))));

    // hours later, its event long out of the overlap window a start reads again
    GuardApplier after = applier(GuardApplyConfig.Mode.ENFORCE);
    after.restoreMaintenance(saved);
    after.decided(decision(BUSY, GuardDecision.Action.PROTECT, NOW));
    pass(after);
    assertThat(vcenter.overrides).as("no VM protected on a host being evacuated").doesNotContainKey("vm-1");
    assertThat(after.maintenance(new VimEventMapper.Maintenance(host, true, NOW.minus(Duration.ofHours(3)))))
        .as("its entering read again").isFalse();

    assertThat(after.maintenance(new VimEventMapper.Maintenance(host, false, NOW.minusSeconds(30)))).isTrue();
    assertThat(after.hostsInMaintenance()).isEmpty();
    pass(after);
    assertThat(vcenter.overrides).containsEntry("vm-1", DrsOverride.MANUAL);
  }
}
