package io.stunwatch.api.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.FailureCause;
import io.stunwatch.model.MigrationFailure;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MigrationMetricsTest {

  static final Instant T0 = Instant.parse("2026-11-21T10:00:00Z");
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final MigrationMetrics metrics = new MigrationMetrics(registry, Clock.fixed(T0.plusSeconds(90), ZoneOffset.UTC));

  static Migration migration(String id, MigrationState state, Initiator initiator) {
    return new Migration(id, "vc", "vm-1", "train-1", "4210", "A100-40C", state, initiator, "admin", false,
        new EntityRef("HostSystem", "host-1", "esx01"), new EntityRef("HostSystem", "host-2", "esx02"), null, null,
        null, null, T0, T0.plusSeconds(40), null, T0.plusSeconds(40));
  }

  static MigrationImpact impact(String id, MigrationState state, StunTime stun) {
    return new MigrationImpact(migration(id, state, Initiator.DRS), 40.0, stun, null, null, null, null, List.of(),
        T0.plusSeconds(160));
  }

  static MigrationAlert alert(String id, MigrationAlert.AlertState state) {
    return new MigrationAlert(id, state, "vm-1", "train-1", "4210", null, null, Initiator.USER, "A100-40C",
        new MigrationAlert.Load(88.0, 60L, 15_000L, 37.0, null), List.of(MigrationAlert.Reason.GPU_UTILIZATION),
        null, T0, T0, null);
  }

  @Test
  void aMigrationIsCountedAndObservedOnceEvenWhenItsImpactIsRevised() {
    metrics.onImpact(impact("vc/1", MigrationState.SUCCEEDED, new StunTime(3.2, StunTime.Source.SAMPLE_GAP_ESTIMATE)));
    metrics.onImpact(impact("vc/1", MigrationState.SUCCEEDED, new StunTime(2.9, StunTime.Source.VMWARE_LOG)));
    var tags = new String[] {Meters.TAG_PROFILE, "A100-40C", Meters.TAG_INITIATOR, "DRS", Meters.TAG_RESULT,
        "SUCCEEDED"};
    assertThat(registry.get(Meters.MIGRATIONS).tags(tags).counter().count()).isEqualTo(1);
    var stun = registry.get(Meters.MIGRATION_STUN).tags(tags).summary();
    assertThat(stun.count()).isEqualTo(1);
    assertThat(stun.totalAmount()).isEqualTo(3.2);
    assertThat(registry.get(Meters.MIGRATION_DURATION).tags(tags).summary().totalAmount()).isEqualTo(40.0);
  }

  @Test
  void aFailureIsCountedOnceByItsCauseAndWhetherItStartedUnderLoad() {
    metrics.onAlert(alert("vc/3", MigrationAlert.AlertState.FIRING));
    MigrationFailure switchover = new MigrationFailure(FailureCause.SWITCHOVER_TIME_EXCEEDED,
        "msg.checkpoint.migration.maxSwitchoverTimeExceeded", "The migration has exceeded the maximum switchover time",
        MigrationFailure.Source.VMWARE_LOG);
    MigrationImpact busy = impact("vc/3", MigrationState.FAILED, new StunTime(null, StunTime.Source.UNKNOWN))
        .withVmotion(new MigrationImpact.VmotionDetail("77", null, null, null, switchover));
    metrics.onImpact(busy);
    metrics.onImpact(busy);
    metrics.onImpact(impact("vc/4", MigrationState.FAILED, new StunTime(null, StunTime.Source.UNKNOWN))
        .withVmotion(new MigrationImpact.VmotionDetail(null, null, null, null, new MigrationFailure(
            FailureCause.NETWORK, null, "destination unreachable", MigrationFailure.Source.VCENTER))));
    metrics.onImpact(impact("vc/5", MigrationState.SUCCEEDED, new StunTime(2.9, StunTime.Source.VMWARE_LOG)));
    assertThat(registry.get(Meters.MIGRATION_FAILURES).tags(Meters.TAG_CAUSE, "SWITCHOVER_TIME_EXCEEDED",
        Meters.TAG_UNDER_LOAD, "true", Meters.TAG_PROFILE, "A100-40C").counter().count()).isEqualTo(1);
    assertThat(registry.get(Meters.MIGRATION_FAILURES).tags(Meters.TAG_CAUSE, "NETWORK", Meters.TAG_UNDER_LOAD,
        "false").counter().count()).isEqualTo(1);
    assertThat(registry.find(Meters.MIGRATION_FAILURES).counters()).hasSize(2);
  }

  @Test
  void anUnknownStunIsNotObservedAsZero() {
    metrics.onImpact(impact("vc/2", MigrationState.FAILED, new StunTime(null, StunTime.Source.UNKNOWN)));
    assertThat(registry.get(Meters.MIGRATIONS).tag(Meters.TAG_RESULT, "FAILED").counter().count()).isEqualTo(1);
    assertThat(registry.find(Meters.MIGRATION_STUN).summaries()).isEmpty();
  }

  @Test
  void aFiringAlertCountsOnceAndHoldsTheUnderLoadGaugeUntilItsMigrationSettles() {
    metrics.onAlert(alert("vc/3", MigrationAlert.AlertState.FIRING));
    metrics.onAlert(alert("vc/3", MigrationAlert.AlertState.FIRING));
    metrics.onAlert(alert("vc/4", MigrationAlert.AlertState.FIRING));
    assertThat(registry.get(Meters.ALERTS).tag(Meters.TAG_INITIATOR, "USER").counter().count()).isEqualTo(2);
    assertThat(registry.get(Meters.MIGRATIONS_UNDER_LOAD).gauge().value()).isEqualTo(2);
    metrics.onAlert(alert("vc/3", MigrationAlert.AlertState.RESOLVED));
    metrics.onImpact(impact("vc/4", MigrationState.SUCCEEDED, new StunTime(1.0, StunTime.Source.VMWARE_LOG)));
    assertThat(registry.get(Meters.MIGRATIONS_UNDER_LOAD).gauge().value()).isZero();
  }

  @Test
  void deadLettersAreCountedBySourceTopicAndStage() {
    DeadLetter d = new DeadLetter("stunwatch.gpu-samples", 0, 17, T0, null, "ew==", "{", DeadLetter.Stage.DESERIALIZATION,
        "not JSON", "processor", T0);
    metrics.onDeadLetter(d);
    metrics.onDeadLetter(d);
    assertThat(registry.get(Meters.DEAD_LETTERS).tags(Meters.TAG_TOPIC, "stunwatch.gpu-samples", Meters.TAG_STAGE,
        "DESERIALIZATION").counter().count()).isEqualTo(2);
  }

  @Test
  void beforeAnyVcenterEventTheLastEventTimeIsUnknownNotZero() {
    assertThat(registry.get(Meters.LAST_EVENT).tag(Meters.TAG_SOURCE, "vcenter_event").gauge().value()).isNaN();
  }

  @Test
  void aCheckpointHeartbeatOfAQuietVcenterKeepsTheVcenterInputFresh() {
    // the last event is hours old, the collector saved its checkpoint a minute ago: quiet, not silent
    metrics.onVcenterEvent(new VcenterEvent("vc", 1, null, T0.minusSeconds(3 * 3600),
        "VmMigratedEvent", null, VcenterEventCategory.MIGRATION_COMPLETED, null,
        new EntityRef("VirtualMachine", "vm-1", "a"), null, null, null, null, null, null, null,
        null, null, null, null));
    metrics.onCheckpoint(new VcenterCheckpoint("vc", T0.minusSeconds(3 * 3600), List.of(1L),
        T0.plusSeconds(30), Map.of(), List.of()));
    assertThat(registry.get(Meters.LAST_EVENT).tag(Meters.TAG_SOURCE, "vcenter_event").gauge().value())
        .isEqualTo(T0.plusSeconds(30).getEpochSecond());
    assertThat(registry.get(Meters.VCENTER_CHECKPOINT_AGE).tag(Meters.TAG_VCENTER, "vc").gauge().value())
        .isEqualTo(60.0);
  }

  @Test
  void theGuardsMetersComeFromTheCheckpointsAndAgeWhileNoDecisionIsRead() {
    metrics.onCheckpoint(new VcenterCheckpoint("off", T0, List.of(1L), T0, Map.of(), List.of()));
    assertThat(registry.find(Meters.GUARD_PROTECTED).gauges()).as("no guard, no guard meters").isEmpty();

    List<VcenterCheckpoint.Protection> held = List.of(
        new VcenterCheckpoint.Protection("id-1", "vm-1", "domain-c7", null, DrsOverride.MANUAL, T0, false),
        new VcenterCheckpoint.Protection("id-2", "vm-2", "domain-c7", null, DrsOverride.MANUAL, T0, true));
    metrics.onCheckpoint(new VcenterCheckpoint("vc", T0, List.of(1L), T0.plusSeconds(60), Map.of(), List.of(),
        List.of(), held, T0.minusSeconds(400), List.of()));
    assertThat(registry.get(Meters.GUARD_PROTECTED).tag(Meters.TAG_VCENTER, "vc").gauge().value())
        .as("dry-run's protections are not in vCenter").isEqualTo(1.0);
    assertThat(registry.get(Meters.GUARD_DECISIONS_AGE).tag(Meters.TAG_VCENTER, "vc").gauge().value())
        .isEqualTo(490.0);

    // the guard turned off there: nothing is held, and the age is unknown rather than zero
    metrics.onCheckpoint(new VcenterCheckpoint("vc", T0, List.of(1L), T0.plusSeconds(80), Map.of(), List.of(),
        List.of(), List.of(), null, List.of()));
    assertThat(registry.get(Meters.GUARD_PROTECTED).tag(Meters.TAG_VCENTER, "vc").gauge().value()).isZero();
    assertThat(registry.get(Meters.GUARD_DECISIONS_AGE).tag(Meters.TAG_VCENTER, "vc").gauge().value()).isNaN();
  }
}
