package io.stunwatch.launcher.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StunwatchTopology;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FleetScenarioTest {

  static final Instant START = Instant.parse("2026-11-21T08:00:00Z");

  @TempDir
  Path state;

  static FleetScenario scenario(long seed, int vms, Duration length) {
    return new FleetScenario(new FleetScenario.Settings(seed, vms, 3, START, length, Duration.ofSeconds(20)));
  }

  static List<String> records(FleetScenario s) {
    List<String> out = new ArrayList<>();
    s.run(new FleetScenario.Sink() {
      @Override
      public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
        out.add(topic.name() + " " + key + " " + at + " " + value);
      }
    });
    return out;
  }

  @Test
  void theSameSeedGivesTheSameRecordsInTheSameOrder() {
    List<String> a = records(scenario(3, 8, Duration.ofMinutes(10)));
    assertThat(a).isEqualTo(records(scenario(3, 8, Duration.ofMinutes(10))));
    assertThat(a).isNotEqualTo(records(scenario(4, 8, Duration.ofMinutes(10))));
    assertThat(scenario(3, 8, Duration.ofMinutes(10)).count()).isEqualTo(a.size());
  }

  @Test
  void theVcenterSideOfARunIsThatOfItsMigrationsAloneWhenDrsMovesEveryVm() {
    FleetScenario s = scenario(3, 8, Duration.ofMinutes(20));
    List<String> vcenterSide = records(s).stream().filter(r -> r.startsWith(Topics.VCENTER_EVENTS.name() + " ")
        || r.startsWith(Topics.VM_INVENTORY.name() + " ") || r.startsWith(Topics.STUN_OBSERVATIONS.name() + " ")
        || r.startsWith(Topics.VMOTION_OBSERVATIONS.name() + " ") || r.startsWith(Topics.VMOTION_BANDWIDTH.name() + " "))
        .toList();
    List<String> migrationsOnly = new ArrayList<>();
    Instant end = START.plus(Duration.ofMinutes(20));
    s.runMigrationsOnly(new FleetScenario.Sink() {
      @Override
      public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
        if (at.isBefore(end)) { // a run ends with its last second, a migration still under way or not
          migrationsOnly.add(topic.name() + " " + key + " " + at + " " + value);
        }
      }
    });
    assertThat(vcenterSide).hasSizeGreaterThan(100).isEqualTo(migrationsOnly);
  }

  @Test
  void aDrsMigrationHeldBackSendsNothingAndItsVmMovesOnFromWhereItStayed() {
    FleetScenario s = scenario(5, 8, Duration.ofMinutes(60));
    FleetScenario.Vm held = s.vms().get(0);
    List<FleetScenario.Plan> mine = s.plans().stream().filter(p -> p.vm().equals(held)).toList();
    assertThat(mine).anyMatch(FleetScenario.Plan::drs).anyMatch(p -> !p.drs());
    List<FleetScenario.Plan> heldBack = new ArrayList<>();
    List<Boolean> underLoad = new ArrayList<>();
    List<VcenterEvent> events = new ArrayList<>();
    List<VmInventoryEntry> placements = new ArrayList<>();
    s.run(new FleetScenario.Sink() {
      @Override
      public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
        if (value instanceof VcenterEvent e && e.vm() != null && e.vm().value().equals(held.moref())) {
          events.add(e);
        } else if (value instanceof VmInventoryEntry v && v.moref().equals(held.moref())) {
          placements.add(v);
        }
      }
    }, new FleetDrs() {
      @Override
      public boolean movesOnItsOwn(FleetScenario.Vm vm) {
        return !vm.equals(held);
      }

      @Override
      public void heldBack(FleetScenario.Plan plan, boolean busy) {
        heldBack.add(plan);
        underLoad.add(busy);
      }
    });
    assertThat(heldBack).isEqualTo(mine.stream().filter(FleetScenario.Plan::drs).toList());
    assertThat(underLoad).containsOnly(held.pattern() == FleetScenario.Pattern.TRAINING);
    assertThat(events).isNotEmpty().allMatch(e -> e.chainId() == null || mine.stream().anyMatch(p -> !p.drs()
        && p.chain() == e.chainId()));
    // each user's migration leaves from where the VM is: its first placement, or where the last one took it
    String at = placements.get(0).host().value();
    for (VmInventoryEntry v : placements.subList(1, placements.size())) {
      assertThat(v.host().value()).isNotEqualTo(at);
      at = v.host().value();
    }
    for (VcenterEvent e : events) {
      if (e.sourceHost() != null && e.category() == VcenterEventCategory.MIGRATION_STARTED) {
        assertThat(placements.stream().filter(v -> !v.observedAt().isAfter(e.createdTime())).reduce((a, b) -> b)
            .orElseThrow().host().value()).as("the source of " + e).isEqualTo(e.sourceHost().value());
      }
    }
  }

  @Test
  void thePlanHasUserAndDrsMigrationsFailuresAndConcurrentOnes() {
    List<FleetScenario.Plan> plans = scenario(5, 16, Duration.ofMinutes(30)).plans();
    assertThat(plans).anyMatch(FleetScenario.Plan::drs).anyMatch(p -> !p.drs()).anyMatch(FleetScenario.Plan::fails);
    assertThat(plans).anyMatch(p -> plans.stream().anyMatch(q -> q != p && q.vm() != p.vm()
        && q.start().isBefore(p.end()) && p.start().isBefore(q.end())));
    Map<String, List<FleetScenario.Plan>> byVm = plans.stream().collect(Collectors.groupingBy(p -> p.vm().id()));
    byVm.values().forEach(list -> {
      for (int i = 1; i < list.size(); i++) {
        assertThat(list.get(i).start()).as("one migration of a VM at a time").isAfter(list.get(i - 1).end());
      }
    });
  }

  @Test
  void everyMigrationOfTheScenarioSettlesIntoAnImpactWithTheLoggedStunOrAnEstimate() {
    FleetScenario s = scenario(11, 4, Duration.ofMinutes(8));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "scenario-test");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    Clock clock = Clock.fixed(START, ZoneOffset.UTC);
    StunwatchTopology.errorHandling(p, clock);
    try (TopologyTestDriver driver = new TopologyTestDriver(StunwatchTopology.build(ProcessorConfig.defaults(),
        clock), p)) {
      Map<String, TestInputTopic<String, Object>> inputs = new HashMap<>();
      s.run(new FleetScenario.Sink() {
        @Override
        @SuppressWarnings("unchecked")
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          TestInputTopic<String, Object> in = inputs.computeIfAbsent(topic.name(), n -> driver.createInputTopic(n,
              new StringSerializer(), (Serializer<Object>)
                  topic.valueSerde().serializer()));
          in.pipeInput(key, value, at);
        }
      });
      Map<String, MigrationImpact> impacts = new HashMap<>();
      driver.createOutputTopic(Topics.MIGRATION_IMPACTS.name(), new StringDeserializer(),
          Topics.MIGRATION_IMPACTS.valueSerde().deserializer()).readKeyValuesToList()
          .forEach(kv -> impacts.put(kv.key, kv.value));
      Instant last = START.plus(Duration.ofMinutes(8)).minusSeconds(1);
      List<FleetScenario.Plan> settled = s.plans().stream().filter(x -> !x.end().plusSeconds(150).isAfter(last))
          .toList();
      assertThat(settled).isNotEmpty();
      for (FleetScenario.Plan plan : settled) {
        MigrationImpact i = impacts.get(plan.migrationId());
        assertThat(i).as("impact of " + plan).isNotNull();
        if (!plan.fails() && plan.logged()) {
          assertThat(i.stun().source()).isEqualTo(StunTime.Source.VMWARE_LOG);
          assertThat(i.stun().seconds()).isEqualTo(plan.stunMillis() / 1000.0);
        }
      }
    }
  }
}
