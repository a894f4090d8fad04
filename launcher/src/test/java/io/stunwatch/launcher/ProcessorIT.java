package io.stunwatch.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.collectors.worker.ReplayReport;
import io.stunwatch.collectors.worker.WorkerCollector;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stream processor on a real broker, fed through the real collectors' replay paths: an nvidia-smi CSV of a
 * busy VM and an idle one, a VI/JSON inventory, and VI/JSON migration events (a user relocate, a DRS vMotion).
 */
class ProcessorIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static final String BUSY = "421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506";
  static final String IDLE = "4c4c4544-0042-3510-8052-b4c04f4e3232";
  static final String LIVE = "42aa0b1c-2d3e-4f50-8172-93a4b5c6d7e8";
  static final String VC = "vc-it";

  @TempDir
  Path dir;

  @Test
  void replayedCollectorsYieldTheExactMigrationsAndTheUnderLoadAlert() throws Exception {
    Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofMinutes(10));
    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    ProcessorConfig config = ProcessorConfig.defaults().withIdentity("processor-it", dir.resolve("state"));
    try (StreamsProcessor processor = StreamsProcessor.start(config, kafka, Clock.systemUTC())) {
      assertThat(processor.awaitRunning(Duration.ofSeconds(60))).isTrue();

      // 1. GPU samples through the worker collector's replay of an nvidia-smi CSV
      replayCsv(BUSY, t0, 92, 15360);
      replayCsv(IDLE, t0, 3, 512);

      // 2. inventory and events through the vCenter collector's replay of VI/JSON
      Path inventory = dir.resolve("inventory.jsonl");
      Files.write(inventory, List.of(vmLine("vm-1", "train-01", BUSY), vmLine("vm-2", "infer-02", IDLE)));
      Path events = dir.resolve("events.jsonl");
      Files.write(events, List.of(
          taskLine(100, "vm-1", "train-01", "VirtualMachine.relocate", "TaskReasonUser", t0),
          line("VmBeingHotMigratedEvent", 101, 100, "vm-1", "train-01", t0.plusMillis(300), "\"host\":" + host(1)
              + ",\"destHost\":" + host(2)),
          line("VmMigratedEvent", 102, 100, "vm-1", "train-01", t0.plusSeconds(180), "\"host\":" + host(2)
              + ",\"sourceHost\":" + host(1)),
          line("DrsVmMigratedEvent", 200, 200, "vm-2", "infer-02", t0.plusSeconds(20), "\"host\":" + host(3)
              + ",\"sourceHost\":" + host(1))));
      VcenterReplay replay = replay();
      publish(replay.inventory(inventory, t0), List.of());
      Await.until(Duration.ofSeconds(30), () -> latest(Topics.VM_INVENTORY).keySet().containsAll(
          List.of(VC + "/vm-1", VC + "/vm-2")), "inventory published", () -> latest(Topics.VM_INVENTORY).keySet()
          .toString());
      publish(VcenterReplay.Inventory.EMPTY, replay.events(events, null));

      // This scenario's migrations only: the class's broker also holds the live test's.
      List<String> ids = List.of(VC + "/100", VC + "/200");
      Await.until(Duration.ofSeconds(60), () -> {
        Map<String, Migration> m = latest(Topics.MIGRATIONS);
        Map<String, MigrationAlert> a = latest(Topics.MIGRATION_ALERTS);
        return ids.stream().allMatch(id -> m.containsKey(id) && m.get(id).state().isFinal())
            && a.containsKey(ids.get(0)) && a.get(ids.get(0)).state() == MigrationAlert.AlertState.RESOLVED;
      }, "two final migrations and one resolved alert", () -> latest(Topics.MIGRATIONS) + " "
          + latest(Topics.MIGRATION_ALERTS));
      assertThat(latest(Topics.MIGRATION_ALERTS)).as("the idle VM's migration raised none")
          .doesNotContainKey(ids.get(1));
    }
    Map<String, Migration> migrations = latest(Topics.MIGRATIONS);
    Migration user = migrations.get(VC + "/100");
    assertThat(user.state()).isEqualTo(MigrationState.SUCCEEDED);
    assertThat(user.initiator()).isEqualTo(Initiator.USER);
    assertThat(user.vmId()).isEqualTo(BUSY);
    assertThat(user.vgpuProfile()).isEqualTo("T4-16C");
    assertThat(user.startTime()).isEqualTo(t0);
    assertThat(user.endTime()).isEqualTo(t0.plusSeconds(180));
    assertThat(user.sourceHost().name()).isEqualTo("esx01");
    assertThat(user.destHost().name()).isEqualTo("esx02");
    Migration drs = migrations.get(VC + "/200");
    assertThat(drs.initiator()).isEqualTo(Initiator.DRS);
    assertThat(drs.vmId()).isEqualTo(IDLE);

    MigrationAlert alert = latest(Topics.MIGRATION_ALERTS).get(VC + "/100");
    assertThat(alert.reasons()).containsExactly(MigrationAlert.Reason.GPU_UTILIZATION, MigrationAlert.Reason.FB_USED);
    assertThat(alert.load().gpuUtilizationAvgPct()).isEqualTo(92.0);
    assertThat(alert.measured().durationSeconds()).isEqualTo(180.0);
    assertThat(TopicContents.readAll(KAFKA.bootstrapServers(), Topics.DEAD_LETTERS)).isEmpty();

    // The topics Streams created for the processor's own state and hops carry its sparse index; the catalog's keep
    // the broker's default.
    assertThat(indexInterval("processor-it-" + StoreNames.VM_SAMPLES + "-changelog")).isEqualTo("1048576");
    assertThat(indexInterval("processor-it-events-by-vm-repartition")).isEqualTo("1048576");
    assertThat(indexInterval(Topics.MIGRATIONS.name())).isEqualTo("4096");
  }

  /**
   * A migration happening now: its vCenter event crosses a repartition hop and its alert is written, each of which a
   * read_committed reader sees only after a commit. With a one-minute commit interval, the alert still arrives in
   * seconds, because both ask for a commit at once (LiveCommits); without that it would wait for the interval.
   */
  @Test
  void aLiveMigrationsAlertIsCommittedAtOnceNotAtTheCommitInterval() throws Exception {
    Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    KafkaClientConfig kafka = new KafkaClientConfig(KAFKA.bootstrapServers());
    Duration interval = Duration.ofMinutes(1);
    // Through the configuration key, as a site sets it.
    ProcessorConfig config = ProcessorConfig.from(ConfigSource.of(Map.of(ProcessorConfig.COMMIT_INTERVAL.name(),
        interval.toSeconds() + "s"))).withIdentity("processor-live-it", dir.resolve("state"));
    try (StreamsProcessor processor = StreamsProcessor.start(config, kafka, Clock.systemUTC())) {
      assertThat(processor.awaitRunning(Duration.ofSeconds(60))).isTrue();
      replayCsv(LIVE, t0, 88, 15360);
      Path inventory = dir.resolve("inventory.jsonl");
      Files.write(inventory, List.of(vmLine("vm-7", "train-07", LIVE)));
      Path events = dir.resolve("events.jsonl");
      Files.write(events, List.of(
          taskLine(700, "vm-7", "train-07", "VirtualMachine.relocate", "TaskReasonUser", t0),
          line("VmBeingHotMigratedEvent", 701, 700, "vm-7", "train-07", t0.plusMillis(200), "\"host\":" + host(1)
              + ",\"destHost\":" + host(2))));
      VcenterReplay replay = replay();
      publish(replay.inventory(inventory, t0), List.of());
      Await.until(Duration.ofSeconds(30), () -> latest(Topics.VM_INVENTORY).containsKey(VC + "/vm-7"),
          "inventory published", () -> latest(Topics.VM_INVENTORY).keySet().toString());
      long sent = System.nanoTime();
      publish(VcenterReplay.Inventory.EMPTY, replay.events(events, null));
      Await.until(Duration.ofSeconds(30), () -> latest(Topics.MIGRATION_ALERTS).containsKey(VC + "/700"),
          "the live migration's alert, read_committed", () -> latest(Topics.MIGRATION_ALERTS).toString());
      Duration took = Duration.ofNanos(System.nanoTime() - sent);
      assertThat(took).isLessThan(interval.dividedBy(4));
      MigrationAlert alert = latest(Topics.MIGRATION_ALERTS).get(VC + "/700");
      assertThat(alert.state()).isEqualTo(MigrationAlert.AlertState.FIRING);
      assertThat(alert.load().gpuUtilizationAvgPct()).isEqualTo(88.0);
    }
  }

  /** The vCenter collector's replay of VI/JSON, failing the test on any line it cannot read. */
  private static VcenterReplay replay() {
    return new VcenterReplay(VC, e -> {
      throw new AssertionError(e.getMessage());
    });
  }

  private static void publish(VcenterReplay.Inventory inventory, List<VcenterEvent> events)
      throws Exception {
    try (TypedProducer p = TypedProducer.create(Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
      VcenterReplay.publish(p, inventory, events);
    }
  }

  private static String indexInterval(String topic) throws Exception {
    try (Admin admin = Admin.create(Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
        KAFKA.bootstrapServers()))) {
      ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      return admin.describeConfigs(List.of(r)).all().get().get(r).get(TopicConfig.INDEX_INTERVAL_BYTES_CONFIG)
          .value();
    }
  }

  private void replayCsv(String vm, Instant t0, int util, long fbUsed) throws Exception {
    DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
    List<String> lines = new ArrayList<>();
    lines.add("timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]");
    for (int s = 90; s > 0; s--) {
      lines.add(f.format(t0.minusSeconds(s)) + ", 0, GPU-" + vm.substring(0, 8) + ", GRID T4-16C, " + util + " %, "
          + fbUsed + " MiB, 16384 MiB");
    }
    Path csv = dir.resolve(vm + ".csv");
    Files.write(csv, lines);
    WorkerCollector.Settings s = WorkerCollector.Settings.from(ConfigSource.of(Map.of(
        "worker.vm-id", vm, "worker.hostname", "guest", "worker.timezone", "UTC",
        "kafka.bootstrap-servers", KAFKA.bootstrapServers())));
    var report = WorkerCollector.replay(s, csv, Optional.empty(), Optional.empty(), Clock.systemUTC());
    assertThat(report.outcome()).isEqualTo(ReplayReport.Outcome.READ);
    assertThat(report.published()).isEqualTo(90);
  }

  private static <V> Map<String, V> latest(Topic<String, V> topic) {
    Map<String, V> m = new LinkedHashMap<>();
    for (TypedRecord<String, V> r : TopicContents.readAll(KAFKA.bootstrapServers(), topic)) {
      m.put(r.key(), r.value());
    }
    return m;
  }

  private static String vmLine(String moref, String name, String uuid) {
    return "{\"_typeName\":\"VirtualMachine\",\"moref\":\"" + moref + "\",\"name\":\"" + name + "\","
        + "\"datacenter\":\"dc1\",\"config\":{\"uuid\":\"" + uuid + "\",\"hardware\":{\"memoryMB\":65536,\"device\":["
        + "{\"_typeName\":\"VirtualPCIPassthrough\",\"backing\":{\"_typeName\":\"VirtualPCIPassthroughVmiopBackingInfo\","
        + "\"vgpu\":\"grid_t4-16c\"}}]},\"files\":{\"vmPathName\":\"[ds1] " + name + "/" + name + ".vmx\"}},"
        + "\"runtime\":{\"host\":" + moref("HostSystem", "host-1") + "}}";
  }

  static String taskLine(long key, String moref, String name, String desc, String reason, Instant t) {
    return line("TaskEvent", key, key, moref, name, t, "\"info\":{\"_typeName\":\"TaskInfo\",\"key\":\"task-" + key
        + "\",\"descriptionId\":\"" + desc + "\",\"entity\":" + moref("VirtualMachine", moref) + ",\"state\":\"running\","
        + "\"queueTime\":\"" + t + "\",\"startTime\":\"" + t + "\",\"eventChainId\":" + key
        + ",\"reason\":{\"_typeName\":\"" + reason + "\",\"userName\":\"VSPHERE.LOCAL\\\\admin\"}}");
  }

  static String line(String type, long key, long chain, String moref, String name, Instant t, String extra) {
    return "{\"_typeName\":\"" + type + "\",\"key\":" + key + ",\"chainId\":" + chain + ",\"createdTime\":\"" + t
        + "\",\"userName\":\"VSPHERE.LOCAL\\\\admin\",\"vm\":{\"_typeName\":\"VmEventArgument\",\"name\":\"" + name
        + "\",\"vm\":" + moref("VirtualMachine", moref) + "}," + extra + "}";
  }

  static String host(int h) {
    return "{\"_typeName\":\"HostEventArgument\",\"name\":\"esx0" + h + "\",\"host\":" + moref("HostSystem", "host-" + h)
        + "}";
  }

  static String moref(String type, String value) {
    return "{\"_typeName\":\"ManagedObjectReference\",\"type\":\"" + type + "\",\"value\":\"" + value + "\"}";
  }
}
