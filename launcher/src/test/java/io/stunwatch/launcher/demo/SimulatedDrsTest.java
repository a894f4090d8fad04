package io.stunwatch.launcher.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.DrsOverride;
import java.io.FileNotFoundException;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SimulatedDrsTest {

  final SimulatedDrs drs = new SimulatedDrs();
  final String cluster = FleetScenario.cluster().value();
  final FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(1, 4, 2,
      Instant.parse("2026-11-28T10:00:00Z"), Duration.ofMinutes(30), Duration.ofSeconds(20)));
  final FleetScenario.Vm vm = scenario.vms().get(0);

  @Test
  void drsMovesAVmOnItsOwnOnlyWithoutAnOverrideOrAFullyAutomatedOne() throws Exception {
    assertThat(drs.movesOnItsOwn(vm)).as("the cluster's default: fully automated").isTrue();
    drs.setDrsOverride(cluster, vm.moref(), null, DrsOverride.MANUAL);
    assertThat(drs.drsOverrides(cluster)).containsEntry(vm.moref(), DrsOverride.MANUAL);
    assertThat(drs.movesOnItsOwn(vm)).isFalse();
    drs.setDrsOverride(cluster, vm.moref(), DrsOverride.MANUAL,
        new DrsOverride(DrsOverride.Behavior.PARTIALLY_AUTOMATED, true));
    assertThat(drs.movesOnItsOwn(vm)).as("partially automated: recommendations only").isFalse();
    drs.setDrsOverride(cluster, vm.moref(), null, new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, false));
    assertThat(drs.movesOnItsOwn(vm)).as("DRS off for the VM").isFalse();
    drs.setDrsOverride(cluster, vm.moref(), null, new DrsOverride(DrsOverride.Behavior.FULLY_AUTOMATED, true));
    assertThat(drs.movesOnItsOwn(vm)).isTrue();
    drs.setDrsOverride(cluster, vm.moref(), null, null);
    assertThat(drs.drsOverrides(cluster)).isEmpty();
    assertThat(drs.movesOnItsOwn(vm)).isTrue();
  }

  @Test
  void itCountsTheMigrationsHeldBackAndThoseUnderLoadApartAndKnowsOnlyItsCluster() {
    FleetScenario.Plan plan = scenario.plans().get(0);
    drs.heldBack(plan, true);
    drs.heldBack(plan, false);
    assertThat(drs.heldBack()).isEqualTo(2);
    assertThat(drs.heldBackUnderLoad()).isEqualTo(1);
    assertThatThrownBy(() -> drs.drsOverrides("domain-c99")).isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("domain-c99");
  }
}
