package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.UserSession;
import com.vmware.vim25.mo.ServiceInstance;
import com.vmware.vim25.mo.VirtualMachine;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The vCenter collector against the real vCenter simulator (TLS, pinned thumbprint) and a real broker: VMs are
 * relocated with RelocateVM_Task and their migration events posted with PostEvent, as vcsim posts none itself.
 */
class VcenterCollectorIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static Vcsim vcsim;
  static VcsimAdmin site;
  static ServiceInstance admin;

  @BeforeAll
  static void start() throws Exception {
    vcsim = Vcsim.start(true);
    site = new VcsimAdmin(vcsim);
    admin = site.serviceInstance();
  }

  @AfterAll
  static void stop() {
    if (vcsim != null) {
      vcsim.close();
    }
  }

  private VcenterCollector collector() throws Exception {
    VcenterConfig config = new VcenterConfig(List.of(vcsim.sdk().toURL()), vcsim.username(), vcsim.password(),
        Map.of("127.0.0.1", vcsim.sha256()), null, false, Duration.ofMillis(200), Duration.ofSeconds(2),
        Duration.ofHours(1));
    URI sdk = vcsim.sdk();
    VcenterCollector c = new VcenterCollector(new YavijavaVcenterConnector(sdk.toURL(), vcsim.username(),
        vcsim.password().toCharArray(), config.trustFor(sdk.toURL())), config,
        Map.of("bootstrap.servers", KAFKA.bootstrapServers()), Clock.systemUTC());
    c.start();
    return c;
  }

  @Test
  void migrationsArePublishedExactlyOnceAcrossRestartsAndSessionLossWithTheirVmwareLogStun() throws Exception {
    List<VirtualMachine> vms = site.vms();
    List<Integer> posted = new ArrayList<>();
    // What a guest can write into vmware.log through VMware Tools, and what a broken host clock writes: none of it
    // may stop collection, stand for a stun, or hide the real stun after it.
    String now = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    log.writeBytes((now + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 99999999999999999999 us\n"
        + "2099-01-01T00:00:05.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 9000000 us\n"
        + now + "| vcpu-1| I125: Guest: Checkpoint_Unstun: vm stopped for 1 us\n" + now + "| vmx| I125: ")
        .getBytes(StandardCharsets.UTF_8));
    log.writeBytes(new byte[] {(byte) 0xC3, (byte) 0x28, '\n'});
    log.writeBytes((now + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 2750000 us\n")
        .getBytes(StandardCharsets.UTF_8));
    site.writeVmFile(vms.get(0), "vmware.log", log.toByteArray());

    try (VcenterCollector first = collector()) {
      posted.add(site.relocateAndPost(vms.get(0)));
      posted.add(site.relocateAndPost(vms.get(1)));
      awaitPublished(posted);
      Await.until(Duration.ofSeconds(30), () -> stuns().size() >= 1, "the planted vmware.log stun",
          () -> "stuns published: " + stuns() + "; log lines skipped: " + first.logLinesSkipped());
      assertThat(first.logLinesSkipped()).as("the 20-digit figure, the future line, the bad UTF-8, at each read")
          .isPositive().matches(n -> n % 3 == 0, "a multiple of 3");
      assertThat(first.reconnects()).as("a hostile log is no reason to reconnect").isZero();
    }

    // Posted while no collector runs: must be picked up from the checkpoint, nothing older repeated.
    posted.add(site.relocateAndPost(vms.get(2)));
    // The first VM moves again with a new stun: the future-dated line must not have hidden it.
    String later = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
    log.writeBytes((later + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 1250000 us\n")
        .getBytes(StandardCharsets.UTF_8));
    site.writeVmFile(vms.get(0), "vmware.log", log.toByteArray());
    posted.add(site.relocateAndPost(vms.get(0)));
    try (VcenterCollector second = collector()) {
      awaitPublished(posted);
      // Drop every session but the admin's: the collector must log in again and resume.
      String adminKey = admin.getSessionManager().getCurrentSession().getKey();
      List<String> others = new ArrayList<>();
      for (UserSession s : admin.getSessionManager().getSessionList()) {
        if (!s.getKey().equals(adminKey)) {
          others.add(s.getKey());
        }
      }
      admin.getSessionManager().terminateSession(others.toArray(String[]::new));
      posted.add(site.relocateAndPost(vms.get(3)));
      awaitPublished(posted);
      Await.until(Duration.ofSeconds(30), () -> stuns().size() >= 2, "the second stun of the first VM",
          () -> "stuns published: " + stuns() + "; reconnects: " + second.reconnects());
      assertThat(second.reconnects()).as("logged in again after the session was terminated").isPositive();
    }

    Map<String, Integer> counts = new HashMap<>();
    for (VcenterEvent e : events()) {
      counts.merge(e.dedupeId(), 1, Integer::sum);
    }
    assertThat(counts).as("every event exactly once").allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
    // every RelocateVM_Task was followed from its TaskEvent to its final TaskInfo
    List<VcenterEvent> taskInfos = events().stream().filter(e -> VcenterEvent.TASK_INFO.equals(e.eventType()))
        .filter(e -> "success".equals(e.task().state())).toList();
    assertThat(taskInfos).as("final TaskInfo per relocation").hasSizeGreaterThanOrEqualTo(4)
        .allSatisfy(e -> {
          assertThat(e.task().completeTime()).isNotNull();
          assertThat(e.task().descriptionId()).isIn(MigrationEventTypes.MIGRATION_TASKS);
        });
    List<StunObservation> stuns = stuns();
    assertThat(stuns).extracting(StunObservation::stunMicros).containsExactly(2_750_000L, 1_250_000L);
    assertThat(stuns).allSatisfy(s -> {
      assertThat(s.vmMoref()).isEqualTo(vms.get(0).getMOR().getVal());
      assertThat(s.logFile()).endsWith("vmware.log");
    });
    assertThat(stuns.get(1).lineNumber()).isEqualTo(6);
    assertThat(read(Topics.VM_INVENTORY).stream().filter(r -> r.value() != null).map(r -> r.value().moref()))
        .contains(vms.get(0).getMOR().getVal());
    // Keyed by VM id (SMBIOS UUID), as the VMs' samples are: no repartition hop to meet them, no inventory to wait for
    Map<String, String> ids = new HashMap<>();
    for (VirtualMachine vm : vms) {
      ids.put(vm.getMOR().getVal(), vm.getConfig().getUuid().toLowerCase(Locale.ROOT));
    }
    assertThat(read(Topics.VCENTER_EVENTS)).filteredOn(r -> r.value().vm() != null)
        .allSatisfy(r -> assertThat(r.key()).isEqualTo(ids.get(r.value().vm().value())));
    assertThat(read(Topics.STUN_OBSERVATIONS)).hasSize(2)
        .allSatisfy(r -> assertThat(r.key()).isEqualTo(ids.get(vms.get(0).getMOR().getVal())));
  }

  private void awaitPublished(List<Integer> keys) {
    Await.until(Duration.ofSeconds(60), () -> events().stream().map(e -> (int) e.eventKey()).toList()
        .containsAll(keys), "events " + keys + " published", () -> events().stream().map(VcenterEvent::eventKey)
        .toList());
  }

  private List<VcenterEvent> events() {
    return read(Topics.VCENTER_EVENTS).stream().map(TypedRecord::value).toList();
  }

  private List<StunObservation> stuns() {
    return read(Topics.STUN_OBSERVATIONS).stream().map(TypedRecord::value).toList();
  }

  private <V> List<TypedRecord<String, V>> read(Topic<String, V> topic) {
    return TopicContents.readAll(KAFKA.bootstrapServers(), topic);
  }
}
