package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.VmEventArgument;
import com.vmware.vim25.VmMigratedEvent;
import com.vmware.vim25.mo.InventoryNavigator;
import com.vmware.vim25.mo.ManagedEntity;
import com.vmware.vim25.mo.ServiceInstance;
import io.stunwatch.collectors.vcenter.VcenterTrust;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.StunwatchProcess;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Calendar;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code stunwatch collect vcenter} command against vcsim: credentials from the environment and a file,
 * the certificate pinned in the config file, the process killed with SIGKILL mid-stream and started again, and a
 * second instance that fences the first.
 */
class VcenterCommandIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  @TempDir
  Path dir;

  @Test
  void aCollectorKilledMidStreamResumesWithNoGapAndNoDuplicate() throws Exception {
    // A password that cannot turn up in a log by chance: any occurrence is a leak.
    String secret = "Stunwatch-IT-" + UUID.randomUUID();
    try (Vcsim vcsim = Vcsim.start(true, "-username", "stunwatch@vsphere.local", "-password", secret)) {
      ServiceInstance admin = new ServiceInstance(vcsim.sdk().toURL(), vcsim.username(), vcsim.password(),
          VcenterTrust.pinned(vcsim.sha256()), 30_000, 60_000);
      Path config = dir.resolve("stunwatch.properties");
      Files.writeString(config, "vcenter.urls=" + vcsim.sdk() + "\nvcenter.thumbprints=127.0.0.1=" + vcsim.sha256()
           + "\nvcenter.poll-interval=200ms\nlog.kafka-level=info\nkafka.bootstrap-servers=" + KAFKA.bootstrapServers() + "\n");
      Path password = dir.resolve("vcenter.pw");
      Files.writeString(password, vcsim.password() + "\n");
      Map<String, String> env = Map.of("STUNWATCH_VCENTER_USERNAME", vcsim.username(),
          "STUNWATCH_VCENTER_PASSWORD_FILE", password.toString());

      StunwatchProcess first = StunwatchProcess.start(env, "collect", "vcenter", "--config", config.toString());
      first.awaitStdout("vCenter collector running", Duration.ofSeconds(60));
      for (int i = 0; i < 10; i++) {
        post(admin, i);
      }
      Await.until(Duration.ofSeconds(60), () -> keys().size() >= 3, "some events published before the kill",
          () -> keys() + " / stderr: " + String.join("\n", first.stderr()));
      first.close(); // SIGKILL: no shutdown hook, a transaction may be open
      assertThat(vcsim.password()).isEqualTo(secret);
      assertThat(first.stderr()).noneMatch(l -> l.contains(secret));
      assertThat(first.stdout()).noneMatch(l -> l.contains(secret));
      for (int i = 10; i < 20; i++) {
        post(admin, i); // while no collector runs
      }
      try (StunwatchProcess second = StunwatchProcess.start(env, "collect", "vcenter", "--config",
          config.toString())) {
        Await.until(Duration.ofSeconds(60), () -> Set.copyOf(keys()).size() >= 20, "all 20 posted events",
            () -> keys());
        assertThat(second.stderr()).noneMatch(l -> l.contains(secret));
      }
      Map<Long, Integer> counts = new HashMap<>();
      for (long k : keys()) {
        counts.merge(k, 1, Integer::sum);
      }
      assertThat(counts).as("the 20 posted events, each exactly once").hasSize(20)
          .allSatisfy((k, n) -> assertThat(n).as("event " + k).isEqualTo(1));
    }
  }

  @Test
  void aCollectorFencedByASecondInstanceExitsNonZeroWithTheReason() throws Exception {
    try (Vcsim vcsim = Vcsim.start(true)) {
      Path config = dir.resolve("fenced.properties");
      Files.writeString(config, "vcenter.urls=" + vcsim.sdk() + "\nvcenter.thumbprints=127.0.0.1=" + vcsim.sha256()
          + "\nvcenter.poll-interval=200ms\nvcenter.heartbeat-interval=1s\nkafka.bootstrap-servers="
          + KAFKA.bootstrapServers() + "\n");
      Path password = dir.resolve("fenced.pw");
      Files.writeString(password, vcsim.password() + "\n");
      Map<String, String> env = Map.of("STUNWATCH_VCENTER_USERNAME", vcsim.username(),
          "STUNWATCH_VCENTER_PASSWORD_FILE", password.toString());
      try (StunwatchProcess first = StunwatchProcess.start(env, "collect", "vcenter", "--config", config.toString())) {
        first.awaitStdout("vCenter collector running", Duration.ofSeconds(60));
        first.awaitStderr("resuming", Duration.ofSeconds(60));
        try (StunwatchProcess second = StunwatchProcess.start(env, "collect", "vcenter", "--config",
            config.toString())) {
          second.awaitStderr("resuming", Duration.ofSeconds(60));
          // the second's producer fences the first: its next heartbeat fails, and it exits for its supervisor
          assertThat(first.awaitExit(Duration.ofSeconds(60))).as("exit code").isEqualTo(ExitCodes.FAILED);
          assertThat(first.stderr()).anyMatch(l -> l.contains("stopped: another collector instance took over"));
          assertThat(second.isAlive()).as("the second runs on").isTrue();
          assertThat(second.stderr()).noneMatch(l -> l.contains("took over"));
        }
      }
    }
  }

  /** Posts a VmMigratedEvent for one of the VMs (vcsim posts none itself). */
  private static void post(ServiceInstance admin, int i) throws Exception {
    ManagedEntity[] vms = new InventoryNavigator(admin.getRootFolder()).searchManagedEntities("VirtualMachine");
    ManagedEntity vm = vms[i % vms.length];
    VmMigratedEvent e = new VmMigratedEvent();
    VmEventArgument a = new VmEventArgument();
    a.setName(vm.getName());
    a.setVm(vm.getMOR());
    e.setVm(a);
    e.setCreatedTime(Calendar.getInstance());
    admin.getEventManager().postEvent(e, null);
  }

  private static List<Long> keys() {
    return TopicContents.readAll(KAFKA.bootstrapServers(), Topics.VCENTER_EVENTS).stream()
        .map(TypedRecord::value).filter(e -> "VmMigratedEvent".equals(e.eventType())).map(VcenterEvent::eventKey)
        .toList();
  }
}
