package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.mo.ManagedEntity;
import com.vmware.vim25.mo.VirtualMachine;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The vCenter collector against what a real site has and the demo's vcsim does not: a datacenter inside a folder,
 * logs rotated and too big to fetch whole, hours without an event, and a second collector instance.
 */
class VcenterSiteIT {

  private static final String UUID = "5c0de1a7-0000-4000-8000-00000000f01d";

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static Vcsim vcsim;
  static VcsimAdmin site;

  @BeforeAll
  static void start() throws Exception {
    vcsim = Vcsim.start(true, "-folder", "1", "-uuid", UUID, "-vmotion");
    site = new VcsimAdmin(vcsim);
  }

  @AfterAll
  static void stop() {
    if (vcsim != null) {
      vcsim.close();
    }
  }

  private VcenterCollector collector(long logTailBytes, Duration heartbeat, int maxPerTransaction) throws Exception {
    VcenterConfig config = VcenterConfig.from(ConfigSource.of(Map.of(
        "vcenter.urls", vcsim.sdk().toString(), "vcenter.username", vcsim.username(),
        "vcenter.password", vcsim.password(), "vcenter.thumbprints", "127.0.0.1=" + vcsim.sha256(),
        "vcenter.poll-interval", "200ms", "vcenter.inventory-interval", "2s",
        "vcenter.log-tail-kib", String.valueOf(logTailBytes / 1024),
        "vcenter.heartbeat-interval", heartbeat.toSeconds() + "s",
        "vcenter.max-events-per-transaction", String.valueOf(maxPerTransaction))), true);
    VcenterCollector c = new VcenterCollector(connector(), config,
        Map.of("bootstrap.servers", KAFKA.bootstrapServers()), Clock.systemUTC());
    c.start();
    return c;
  }

  private YavijavaVcenterConnector connector() throws Exception {
    return new YavijavaVcenterConnector(vcsim.sdk().toURL(), vcsim.username(), vcsim.password().toCharArray(),
        VcenterTrust.pinned(vcsim.sha256()));
  }

  @Test
  void aQuietVcenterKeepsAFreshCheckpointAndASecondInstanceStopsTheFirstWithTheReason() throws Exception {
    Instant began = Instant.now();
    try (VcenterCollector first = collector(64 * 1024, Duration.ofSeconds(1), 1000)) {
      // no migration at all: only the heartbeat writes, and it keeps the checkpoint young
      Await.until(Duration.ofSeconds(30), () -> checkpoints().size() >= 3, "three heartbeats",
          () -> checkpoints().stream().map(VcenterCheckpoint::savedAt).toList());
      List<VcenterCheckpoint> beats = checkpoints();
      assertThat(beats).extracting(VcenterCheckpoint::savedAt).isSorted().doesNotHaveDuplicates()
          .allSatisfy(t -> assertThat(t).isAfterOrEqualTo(began.truncatedTo(ChronoUnit.MILLIS)));
      assertThat(Duration.between(beats.get(beats.size() - 1).savedAt(), Instant.now()))
          .isLessThan(Duration.ofSeconds(10));
      // vcsim's power-ons at its start are the only events: after them the position stands still, the beats go on
      VcenterCheckpoint last = beats.get(beats.size() - 1);
      assertThat(beats.subList(beats.size() - 2, beats.size())).allSatisfy(b -> {
        assertThat(b.lastCreatedTime()).isEqualTo(last.lastCreatedTime());
        assertThat(b.keysAtLastCreated()).isEqualTo(last.keysAtLastCreated());
      });
      assertThat(read(Topics.VCENTER_EVENTS)).allSatisfy(r -> assertThat(r.value().createdTime())
          .isBeforeOrEqualTo(last.lastCreatedTime()));
      assertThat(first.fatal().toCompletableFuture()).isNotDone();

      try (VcenterCollector second = collector(64 * 1024, Duration.ofSeconds(1), 1000)) {
        // the second's producer fences the first: at its next heartbeat the first stops, and says why
        String why = first.fatal().toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(why).contains("another collector instance took over").contains("fenced");
        int before = checkpoints().size();
        Await.until(Duration.ofSeconds(30), () -> checkpoints().size() > before + 1, "the second carries on",
            () -> checkpoints().size() + " checkpoints, " + before + " before");
        assertThat(second.fatal().toCompletableFuture()).isNotDone();
      }
    }
  }

  @Test
  void theStunOfARotatedLogIsReadFromItsEndInADatacenterInsideAFolder() throws Exception {
    VirtualMachine vm = site.vms().get(1);
    String now = Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
    String earlier = Instant.now().minusSeconds(30).truncatedTo(ChronoUnit.MILLIS).toString();
    // The current log was started by the migration and holds no stun yet; the rotated one ends with it. Each is
    // bigger than the tail fetched: a stun at the very start of a file is out of reach, the one at its end is not.
    site.writeVmFile(vm, "vmware.log", log(200 * 1024, null, null));
    site.writeVmFile(vm, "vmware-2.log", log(200 * 1024, earlier + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped "
        + "for 111 us", earlier + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 222 us"));
    site.writeVmFile(vm, "vmware-3.log", log(200 * 1024, earlier + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped "
        + "for 333 us", now + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 4100000 us"));

    try (VcenterCollector c = collector(64 * 1024, Duration.ofSeconds(60), 1000)) {
      site.relocateAndPost(vm);
      Await.until(Duration.ofSeconds(60), () -> !stuns().isEmpty(), "the stun of the rotated log",
          () -> "no stun published; " + checkpoints().size() + " checkpoints");
    }
    List<StunObservation> stuns = stuns();
    assertThat(stuns).as("the newest rotated log's last stun, read from its last 64 KiB only").singleElement()
        .satisfies(s -> {
          assertThat(s.stunMicros()).isEqualTo(4_100_000L);
          assertThat(s.vmMoref()).isEqualTo(vm.getMOR().getVal());
          assertThat(s.logFile()).startsWith(VcsimAdmin.vmDir(vm) + "vmware-3.log from byte ");
          long from = Long.parseLong(s.logFile().substring(s.logFile().lastIndexOf(' ') + 1));
          assertThat(from).isGreaterThan(200 * 1024 - 64 * 1024).isLessThanOrEqualTo(200 * 1024 - 64 * 1024 + 200);
        });

    // each host's vMotion vmknic (vmk0) runs over vmnic0, the active uplink of its port group, at 10 Gbit/s
    assertThat(read(Topics.HOST_INVENTORY)).isNotEmpty().allSatisfy(r -> assertThat(r.value().vmotionNicSpeedMbps())
        .as(r.key()).isEqualTo(10_000L));

    // the datastore interface is given the datacenter's full inventory path, which a real vCenter requires
    ManagedEntity folder = site.serviceInstance().getRootFolder().getChildEntity()[0];
    assertThat(folder.getName()).as("vcsim -folder 1 puts the datacenter in a folder").isNotEqualTo("DC0");
    try (VcenterConnection c = connector().connect()) {
      assertThat(((YavijavaVcenterConnection) c).datacenterPath("DC0"))
          .isEqualTo(folder.getName() + "/DC0");
    }
  }

  @Test
  void aLongCatchUpCommitsInBoundedTransactionsAndPublishesEveryEventOnce() throws Exception {
    // two hours' worth of power operations happened while no collector ran
    VirtualMachine vm = site.vms().get(2);
    List<Integer> posted = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      posted.add(site.postPowerOn(vm));
    }
    int before = checkpoints().size();
    try (VcenterCollector c = collector(64 * 1024, Duration.ofSeconds(60), 50)) {
      Await.until(Duration.ofSeconds(60), () -> publishedKeys().containsAll(posted), "the 120 events",
          () -> "not yet published: " + posted.stream().filter(k -> !publishedKeys().contains(k)).toList());
    }
    List<VcenterCheckpoint> parts = checkpoints().subList(before, checkpoints().size());
    assertThat(parts).as("120 events, 50 a transaction, a checkpoint each").hasSizeGreaterThanOrEqualTo(3);
    assertThat(parts).extracting(VcenterCheckpoint::lastCreatedTime).isSorted();
    assertThat(publishedKeys().stream().filter(posted::contains)).as("each once").hasSize(posted.size());
  }

  private List<Integer> publishedKeys() {
    return read(Topics.VCENTER_EVENTS).stream().filter(r -> UUID.equals(r.value().vcenterUuid()))
        .map(r -> (int) r.value().eventKey()).toList();
  }

  /** About {@code size} bytes of ordinary log lines between an optional first and last line. */
  private static byte[] log(int size, String first, String last) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String t = Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.MILLIS).toString();
    if (first != null) {
      out.writeBytes((first + "\n").getBytes(StandardCharsets.UTF_8));
    }
    while (out.size() < size) {
      out.writeBytes((t + "| vmx| I125: Tools: Tools heartbeat received, seq " + out.size() + "\n")
          .getBytes(StandardCharsets.UTF_8));
    }
    if (last != null) {
      out.writeBytes((last + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return out.toByteArray();
  }

  private List<VcenterCheckpoint> checkpoints() {
    return read(Topics.VCENTER_CHECKPOINTS).stream().map(TypedRecord::value)
        .filter(c -> c != null && UUID.equals(c.vcenterUuid())).toList();
  }

  private List<StunObservation> stuns() {
    return read(Topics.STUN_OBSERVATIONS).stream().map(TypedRecord::value).toList();
  }

  private <V> List<TypedRecord<String, V>> read(Topic<String, V> topic) {
    return TopicContents.readAll(KAFKA.bootstrapServers(), topic);
  }
}
