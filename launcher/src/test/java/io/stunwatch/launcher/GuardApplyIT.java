package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.vcenter.VcenterConnection;
import io.stunwatch.collectors.vcenter.VcenterTrust;
import io.stunwatch.collectors.vcenter.VcsimAdmin;
import io.stunwatch.collectors.vcenter.YavijavaVcenterConnector;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRS guard applied by the real {@code stunwatch collect vcenter} against vcsim, each override read back from
 * the cluster's {@code ConfigurationEx}: a protected VM gets {@code manual}, and its release removes it; an admin's
 * override is left alone; a decision from a replay of old readings touches nothing; a host entering maintenance mode
 * has its VMs released at once; a collector killed while it holds a VM releases it once it is back;
 * {@code stunwatch guard release --all} undoes what it holds; dry-run leaves the cluster as it was.
 */
class GuardApplyIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @TempDir
  Path dir;

  private static GuardDecision decision(String vm, GuardDecision.Action action, Instant at) {
    return new GuardDecision(vm, action, action == GuardDecision.Action.RELEASE ? List.of()
        : List.of(MigrationAlert.Reason.GPU_UTILIZATION), new MigrationAlert.Load(95.0, 60L, 12288L, 75.0, null,
        LoadSource.GUEST), new StunForecast(24.0, 36.0, 2.0, 12.0, 0, StunForecast.Basis.VMWARE_REFERENCE), 30.0,
        at.minusSeconds(60), at);
  }

  private StunwatchProcess collector(Vcsim vcsim, String mode) throws Exception {
    return collector(vcsim, mode, "");
  }

  private StunwatchProcess collector(Vcsim vcsim, String mode, String moreConfig) throws Exception {
    Path config = dir.resolve("guard-" + mode + ".properties");
    Files.writeString(config, "vcenter.urls=" + vcsim.sdk() + "\nvcenter.thumbprints=127.0.0.1=" + vcsim.sha256()
        + "\nvcenter.poll-interval=200ms\nvcenter.heartbeat-interval=1s\nkafka.bootstrap-servers="
        + KAFKA.bootstrapServers()
        + "\nguard.enabled=true\nguard.mode=" + mode + "\n" + moreConfig);
    Path password = dir.resolve("vc-" + mode + ".pw");
    Files.writeString(password, vcsim.password() + "\n");
    StunwatchProcess p = StunwatchProcess.start(Map.of("STUNWATCH_VCENTER_USERNAME", vcsim.username(),
        "STUNWATCH_VCENTER_PASSWORD_FILE", password.toString()), "collect", "vcenter", "--config", config.toString());
    p.awaitStderr("applying the DRS guard's decisions", Duration.ofSeconds(60));
    return p;
  }

  private static Map<String, DrsOverride> overrides(VcenterConnection vc, String cluster) {
    try {
      return vc.drsOverrides(cluster);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<GuardAction> actions() {
    return TopicContents.readAll(KAFKA.bootstrapServers(), Topics.GUARD_ACTIONS).stream().map(r -> r.value())
        .toList();
  }

  @Test
  void busyVmsAreHeldOnManualAndReleasedAndNothingElseIsTouched() throws Exception {
    try (Vcsim vcsim = Vcsim.start(true);
        VcenterConnection vc = new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(),
            vcsim.password().toCharArray(), VcenterTrust.pinned(vcsim.sha256())).connect();
        TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()))) {
      List<VmInventoryEntry> vms = vc.vms(Instant.now()).stream()
          .filter(v -> v.cluster() != null && v.cluster().type().equals("ClusterComputeResource")).toList();
      String cluster = vms.get(0).cluster().value();
      vms = vms.stream().filter(v -> v.cluster().value().equals(cluster)).toList();
      VmInventoryEntry busy = vms.get(0);
      VmInventoryEntry admins = vms.get(1);
      VmInventoryEntry replayed = vms.get(2);
      DrsOverride adminsOwn = new DrsOverride(DrsOverride.Behavior.PARTIALLY_AUTOMATED, true);
      vc.setDrsOverride(cluster, admins.moref(), null, adminsOwn);

      // dry-run first: every action reported, the cluster as it was
      try (StunwatchProcess dry = collector(vcsim, "dry-run")) {
        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.PROTECT,
            Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> actions().stream()
            .anyMatch(a -> a.result() == GuardAction.Result.DRY_RUN), "the dry-run's report",
            () -> String.join("\n", dry.stderr()));
        assertThat(vc.drsOverrides(cluster)).doesNotContainKey(busy.moref()).containsEntry(admins.moref(),
            adminsOwn);
        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.RELEASE,
            Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> actions().stream().filter(a -> a.result()
            == GuardAction.Result.DRY_RUN).count() == 2, "the dry-run's release report",
            () -> "audit records " + actions() + "\n" + String.join("\n", dry.stderr()));
      }

      try (StunwatchProcess enforce = collector(vcsim, "enforce")) {
        Instant now = Instant.now();
        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.PROTECT,
            now), now);
        p.send(Topics.GUARD_DECISIONS, admins.biosUuid(), decision(admins.biosUuid(), GuardDecision.Action.PROTECT,
            now), now);
        p.send(Topics.GUARD_DECISIONS, replayed.biosUuid(), decision(replayed.biosUuid(),
            GuardDecision.Action.PROTECT, now.minus(Duration.ofDays(30))), now);
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> DrsOverride.MANUAL.equals(overrides(vc, cluster)
            .get(busy.moref())), "the busy VM on manual", () -> String.join("\n", enforce.stderr()));
        Await.until(Duration.ofSeconds(60), () -> actions().stream().anyMatch(a -> a.result()
            == GuardAction.Result.LEFT_TO_ADMIN && a.vmMoref().equals(admins.moref())), "the admin's VM reported",
            () -> "audit records " + actions() + "\n" + String.join("\n", enforce.stderr()));
        assertThat(vc.drsOverrides(cluster)).containsEntry(admins.moref(), adminsOwn)
            .doesNotContainKey(replayed.moref());
        Await.until(Duration.ofSeconds(30), () -> actions().stream().anyMatch(a -> a.result()
            == GuardAction.Result.APPLIED), "the protection audited (vCenter is changed first, then it is committed)",
            () -> "audit records " + actions() + "\n" + String.join("\n", enforce.stderr()));
        GuardAction applied = actions().stream().filter(a -> a.result() == GuardAction.Result.APPLIED).findFirst()
            .orElseThrow();
        assertThat(applied.vmMoref()).isEqualTo(busy.moref());
        assertThat(applied.set()).isEqualTo(DrsOverride.MANUAL);
        assertThat(applied.previous()).isNull();
        assertThat(applied.why()).contains("forecast stun p95 36 s over 30 s");

        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.RELEASE,
            Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> !overrides(vc, cluster).containsKey(busy.moref()),
            "the busy VM's override removed on release",
            () -> "overrides " + overrides(vc, cluster) + "; audit records " + actions());

        // busy again, then its host enters maintenance mode: released at once, still busy or not
        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.PROTECT,
            Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> DrsOverride.MANUAL.equals(overrides(vc, cluster)
            .get(busy.moref())), "the busy VM on manual again",
            () -> "overrides " + overrides(vc, cluster) + "; audit records " + actions());
        VcsimAdmin admin = new VcsimAdmin(vcsim);
        admin.postEnteringMaintenance(admin.host(busy.host().name()));
        Await.until(Duration.ofSeconds(60), () -> !overrides(vc, cluster).containsKey(busy.moref()),
            "the VM released as its host enters maintenance mode", () -> String.join("\n", enforce.stderr()));
        // vCenter is changed first, then the audit record is committed
        Await.until(Duration.ofSeconds(30), () -> actions().stream().anyMatch(a -> a.why().contains(
            "entering maintenance mode")), "the maintenance release audited", () -> "audit records " + actions());
        List<GuardAction> busys = actions().stream().filter(a -> a.vmMoref().equals(busy.moref())).toList();
        GuardAction last = busys.get(busys.size() - 1); // one key, one partition: in order
        assertThat(last.kind()).isEqualTo(GuardAction.Kind.RELEASE);
        assertThat(last.result()).isEqualTo(GuardAction.Result.APPLIED);
        assertThat(last.why()).contains("entering maintenance mode");
        assertThat(vc.drsOverrides(cluster)).containsEntry(admins.moref(), adminsOwn);
        assertThat(enforce.stderr()).noneMatch(l -> l.contains(" ERROR "));
      }
      assertThat(actions()).noneMatch(a -> a.vmMoref().equals(replayed.moref()));

      // kill -9 while a VM is held, start again: what it set is still its own to release, once
      p.send(Topics.GUARD_DECISIONS, replayed.biosUuid(), decision(replayed.biosUuid(), GuardDecision.Action.PROTECT,
          Instant.now()), Instant.now());
      p.flush();
      try (StunwatchProcess killed = collector(vcsim, "enforce")) {
        Await.until(Duration.ofSeconds(60), () -> actions().stream().anyMatch(a -> a.vmMoref().equals(
            replayed.moref()) && a.result() == GuardAction.Result.APPLIED), "the VM protected before the kill",
            () -> String.join("\n", killed.stderr()));
        killed.kill();
      }
      try (StunwatchProcess again = collector(vcsim, "enforce")) {
        p.send(Topics.GUARD_DECISIONS, replayed.biosUuid(), decision(replayed.biosUuid(),
            GuardDecision.Action.RELEASE, Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> !overrides(vc, cluster).containsKey(replayed.moref()),
            "the override set before the kill released after it", () -> String.join("\n", again.stderr()));
        Await.until(Duration.ofSeconds(30), () -> actions().stream().anyMatch(a -> a.vmMoref().equals(
            replayed.moref()) && a.kind() == GuardAction.Kind.RELEASE), "its release audited",
            () -> "audit records " + actions());
      }
      List<GuardAction> replayedActions = actions().stream().filter(a -> a.vmMoref().equals(replayed.moref()))
          .toList();
      assertThat(replayedActions).extracting(GuardAction::kind, GuardAction::result).containsExactly(
          org.assertj.core.groups.Tuple.tuple(GuardAction.Kind.PROTECT, GuardAction.Result.APPLIED),
          org.assertj.core.groups.Tuple.tuple(GuardAction.Kind.RELEASE, GuardAction.Result.APPLIED));
      assertThat(overrides(vc, cluster)).containsEntry(admins.moref(), adminsOwn).hasSize(1);

      // `stunwatch guard release --all` while the collector holds a VM: restored, and the collector fenced
      p.send(Topics.GUARD_DECISIONS, replayed.biosUuid(), decision(replayed.biosUuid(), GuardDecision.Action.HOLD,
          Instant.now()), Instant.now());
      p.flush();
      try (StunwatchProcess running = collector(vcsim, "enforce")) {
        Await.until(Duration.ofSeconds(60), () -> DrsOverride.MANUAL.equals(overrides(vc, cluster)
            .get(replayed.moref())), "the VM held again",
            () -> "overrides " + overrides(vc, cluster) + "; audit records " + actions());
        Path config = dir.resolve("guard-enforce.properties");
        try (StunwatchProcess release = StunwatchProcess.start(Map.of("STUNWATCH_VCENTER_USERNAME", vcsim.username(),
            "STUNWATCH_VCENTER_PASSWORD_FILE", dir.resolve("vc-enforce.pw").toString()), "guard", "release",
            "--all", "--config", config.toString())) {
          assertThat(release.awaitExit(Duration.ofSeconds(90))).as(String.join("\n", release.stderr())).isZero();
          assertThat(release.stdout()).anyMatch(l -> l.startsWith("release " + replayed.name() + " ("))
              .anyMatch(l -> l.startsWith("1 override released"));
        }
        assertThat(overrides(vc, cluster)).doesNotContainKey(replayed.moref()).containsEntry(admins.moref(),
            adminsOwn);
        assertThat(running.awaitExit(Duration.ofSeconds(60))).as("the running collector, fenced")
            .isEqualTo(ExitCodes.FAILED);
      }
      // the host that entered maintenance mode is in it still: every collector since, and the release, kept it so
      List<VcenterCheckpoint> checkpoints = TopicContents.readAll(KAFKA.bootstrapServers(),
          Topics.VCENTER_CHECKPOINTS).stream().map(r -> r.value()).toList();
      assertThat(checkpoints.get(checkpoints.size() - 1).hostsInMaintenance())
          .extracting(VcenterCheckpoint.Maintenance::hostMoref).containsExactly(busy.host().value());
    }
  }

  /**
   * An account without {@code Host.Inventory.EditCluster}: vcsim checks no privilege, so it is started with
   * {@code -deny-privilege}, which refuses the calls that need one with vCenter's {@code NoPermission} fault.
   */
  @Test
  void aMissingPrivilegeIsRefusedAuditedCountedAndNotAskedAgainInALoop() throws Exception {
    try (Vcsim vcsim = Vcsim.start(true, "-deny-privilege", "Host.Inventory.EditCluster");
        VcenterConnection vc = new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(),
            vcsim.password().toCharArray(), VcenterTrust.pinned(vcsim.sha256())).connect();
        TypedProducer p = TypedProducer.create(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            KAFKA.bootstrapServers()))) {
      VmInventoryEntry busy = vc.vms(Instant.now()).stream().filter(v -> v.cluster() != null
          && v.cluster().type().equals("ClusterComputeResource")).findFirst().orElseThrow();
      String cluster = busy.cluster().value();
      int port = Ports.reserve();
      try (StunwatchProcess enforce = collector(vcsim, "enforce", "vcenter.metrics-port=" + port + "\n")) {
        p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.PROTECT,
            Instant.now()), Instant.now());
        p.flush();
        Await.until(Duration.ofSeconds(60), () -> actions().stream().anyMatch(a -> a.result()
            == GuardAction.Result.REFUSED), "vCenter's refusal audited", () -> String.join("\n", enforce.stderr()));
        GuardAction refused = actions().stream().filter(a -> a.result() == GuardAction.Result.REFUSED).findFirst()
            .orElseThrow();
        assertThat(refused.vmMoref()).isEqualTo(busy.moref());
        assertThat(refused.kind()).isEqualTo(GuardAction.Kind.PROTECT);
        assertThat(refused.why()).contains("no permission Host.Inventory.EditCluster on " + cluster);
        assertThat(enforce.stderr()).anyMatch(l -> l.contains(" WARN ") && l.contains("REFUSED")
            && l.contains("Host.Inventory.EditCluster"));

        // the VM stays busy: HOLDs keep saying it is wanted; the collector reads them and asks vCenter no more
        Instant lastSent = null;
        for (int i = 0; i < 5; i++) {
          lastSent = Instant.now();
          p.send(Topics.GUARD_DECISIONS, busy.biosUuid(), decision(busy.biosUuid(), GuardDecision.Action.HOLD,
              lastSent), lastSent);
          p.flush();
        }
        Instant sent = lastSent;
        // a checkpoint saved after the collector read the last HOLD: the pass over it is done (one thread reads the
        // decisions, passes over them, then saves)
        Await.until(Duration.ofSeconds(30), () -> TopicContents.readAll(KAFKA.bootstrapServers(),
            Topics.VCENTER_CHECKPOINTS).stream().map(r -> r.value()).anyMatch(c -> c.guardDecisionsReadAt() != null
            && c.guardDecisionsReadAt().isAfter(sent) && c.savedAt().isAfter(c.guardDecisionsReadAt())),
            "a checkpoint after the last HOLD was read", () -> "HOLD sent at " + sent + "; checkpoints (decisions read, "
                + "saved): " + TopicContents.readAll(KAFKA.bootstrapServers(), Topics.VCENTER_CHECKPOINTS).stream()
                .map(r -> r.value().guardDecisionsReadAt() + " " + r.value().savedAt()).toList());
        assertThat(actions()).filteredOn(a -> a.result() == GuardAction.Result.REFUSED).hasSize(1);
        assertThat(actions()).noneMatch(a -> a.result() == GuardAction.Result.APPLIED);
        assertThat(vc.drsOverrides(cluster)).doesNotContainKey(busy.moref());
        java.net.http.HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient().send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/metrics"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body().lines().filter(l -> l.startsWith("stunwatch_guard_actions_total{")
            && l.contains("kind=\"protect\"") && l.contains("result=\"refused\"")))
            .as(metrics.body()).singleElement().satisfies(l -> assertThat(l).endsWith(" 1.0"));
      }
    }
  }
}
