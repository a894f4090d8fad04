package io.stunwatch.launcher;

import static io.stunwatch.launcher.ProcessorIT.host;
import static io.stunwatch.launcher.ProcessorIT.line;
import static io.stunwatch.launcher.ProcessorIT.moref;
import static io.stunwatch.launcher.ProcessorIT.taskLine;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import io.stunwatch.testsupport.StunwatchProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Same answers live, replayed or after downtime. A site recorded three hours ago (four GPU VMs, one with four GPUs;
 * three concurrent vMotions by a user and by DRS, one of which fails; vmware.log stun figures and a snapshot's) is
 * turned into Kafka records once, by the real CLI's replay paths ({@code stunwatch collect vcenter --replay-inventory
 * --replay --replay-vmware-log}, {@code stunwatch collect worker --replay --vm-id} per VM). Those records are then fed
 * to a fresh broker and the real processor six ways:
 * <ol type="a">
 *   <li>paced as live (30 times faster), the samples lagging the vCenter by 90 s of event time;</li>
 *   <li>as fast as possible, in event-time order;</li>
 *   <li>every vCenter record before every sample;</li>
 *   <li>every sample before every vCenter record;</li>
 *   <li>as (b), paced, with the processor killed (SIGKILL) twice;</li>
 *   <li>as (b), to a processor whose clock is five days after the data.</li>
 * </ol>
 * Each way must end with the same newest value of every key of the migrations, alerts, impacts and stun-model topics
 * (read_committed), and no dead letters; the intermediate records may differ. The CLI runs once rather than six
 * times because it publishes a recording as fast as it can, and the ways differ only in the order and pace of the
 * records it published.
 */
class ReplayEquivalenceIT {

  private static final Logger LOG = LoggerFactory.getLogger(ReplayEquivalenceIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String VC = "vc-site";
  static final String GROUP = "stunwatch-processor";
  /** How long the recording runs: every migration settles, by its own VM's samples, well before the end. */
  static final int SECONDS = 14 * 60;
  static final Set<String> VCENTER_TOPICS = Set.of(Topics.VCENTER_EVENTS.name(), Topics.STUN_OBSERVATIONS.name());
  static final Set<String> INVENTORY_TOPICS = Set.of(Topics.VM_INVENTORY.name(), Topics.HOST_INVENTORY.name());

  @TempDir
  Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();

  /** One GPU VM of the site. */
  record Vm(int n, int gpus, String profile, long fbTotalMiB, double util, long fbUsedMiB, Double throughput,
      boolean total) {
    String moref() {
      return "vm-" + n;
    }

    String name() {
      return "gpu-vm-" + n;
    }

    String uuid() {
      return String.format("42000000-0000-4000-8000-%012d", n);
    }
  }

  static final Vm TRAIN = new Vm(11, 1, "grid_t4-16c", 16384, 90, 15000, 240.0, false);
  static final Vm IDLE = new Vm(12, 1, "grid_t4-16c", 16384, 3, 900, null, false);
  static final Vm MULTI = new Vm(13, 4, "grid_a100-10c", 10240, 85, 9000, 1900.0, true);
  static final Vm FAILING = new Vm(14, 1, "grid_t4-8c", 8192, 70, 4000, 120.0, false);
  static final List<Vm> VMS = List.of(TRAIN, IDLE, MULTI, FAILING);

  /** One record as the CLI published it. */
  record Recorded(String topic, byte[] key, byte[] value, long timestamp, int order) {
  }

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void sixWaysOfFeedingOneRecordedSiteGiveTheSameMigrationsImpactsAlertsAndModel() throws Exception {
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    List<Recorded> recorded = record(base);
    List<Recorded> inventory = recorded.stream().filter(r -> INVENTORY_TOPICS.contains(r.topic())).toList();
    List<Recorded> vcenter = recorded.stream().filter(r -> VCENTER_TOPICS.contains(r.topic())).toList();
    List<Recorded> samples = recorded.stream()
        .filter(r -> !INVENTORY_TOPICS.contains(r.topic()) && !VCENTER_TOPICS.contains(r.topic())).toList();
    assertThat(vcenter).hasSizeGreaterThanOrEqualTo(10);
    assertThat(samples).hasSizeGreaterThan(SECONDS * 6);

    Map<String, Map<String, String>> results = new LinkedHashMap<>();
    results.put("a paced as live, samples 90 s behind",
        run("a", inventory, arrival(vcenter, samples, 90_000), 30, 0, null));
    results.put("b as fast as possible", run("b", inventory, arrival(vcenter, samples, 0), 0, 0, null));
    results.put("c every vCenter record first", run("c", inventory, concat(vcenter, samples), 0, 0, null));
    results.put("d every sample first", run("d", inventory, concat(samples, vcenter), 0, 0, null));
    results.put("e processor killed twice", run("e", inventory, arrival(vcenter, samples, 0), 120, 2, null));
    results.put("f clock five days after the data", run("f", inventory, arrival(vcenter, samples, 0), 0, 0,
        Clock.offset(Clock.systemUTC(), Duration.ofDays(5))));

    Path out = Path.of("target", "replay-equivalence-it");
    Files.createDirectories(out);
    JSON.writerWithDefaultPrettyPrinter().writeValue(out.resolve("results.json").toFile(), results);

    // (a) is the reference: what the site saw live. It must be right, not only equal to the others.
    Map<String, String> live = results.values().iterator().next();
    check(live);
    List<String> differences = new ArrayList<>();
    results.forEach((way, r) -> {
      Set<String> keys = new TreeSet<>(live.keySet());
      keys.addAll(r.keySet());
      for (String k : keys) {
        if (!Objects.equals(live.get(k), r.get(k))) {
          differences.add(way + " " + k + ":\n  live " + live.get(k) + "\n  this " + r.get(k));
        }
      }
    });
    assertThat(differences).as("final values that differ from the paced run (all in " + out + ")").isEmpty();
  }

  /** What the paced run must show: the recorded site's migrations, as an admin would read them. */
  private static void check(Map<String, String> r) throws Exception {
    Migration train = value(r, Topics.MIGRATIONS, VC + "/1100");
    assertThat(train.state()).isEqualTo(MigrationState.SUCCEEDED);
    assertThat(train.vmId()).isEqualTo(TRAIN.uuid());
    assertThat(train.sourceHost().name()).isEqualTo("esx01");
    assertThat(train.destHost().name()).isEqualTo("esx02");
    assertThat(value(r, Topics.MIGRATIONS, VC + "/1200").initiator()).isEqualTo(Initiator.DRS);
    assertThat(value(r, Topics.MIGRATIONS, VC + "/1400").state()).isEqualTo(MigrationState.FAILED);
    Migration multi = value(r, Topics.MIGRATIONS, VC + "/1300");
    assertThat(multi.vgpuProfile()).isEqualTo("A100-10C");

    MigrationImpact i = value(r, Topics.MIGRATION_IMPACTS, VC + "/1100");
    assertThat(i.stun()).as("the log's figure, not the snapshot's").isEqualTo(new StunTime(28.9, StunTime.Source.VMWARE_LOG));
    assertThat(i.before().gpuUtilizationPct()).isEqualTo(90.0);
    assertThat(i.throughputDipPct()).isPositive();
    MigrationImpact m = value(r, Topics.MIGRATION_IMPACTS, VC + "/1300");
    assertThat(m.before().fbUsedMiB()).as("four GPUs' framebuffer, summed").isEqualTo(36000.0);

    MigrationAlert a = value(r, Topics.MIGRATION_ALERTS, VC + "/1100");
    assertThat(a.state()).isEqualTo(MigrationAlert.AlertState.RESOLVED);
    assertThat(a.measured().result()).isEqualTo(MigrationState.SUCCEEDED);
    assertThat(a.measured().stun().seconds()).isEqualTo(28.9);
    MigrationAlert failed = value(r, Topics.MIGRATION_ALERTS, VC + "/1400");
    assertThat(failed.measured().result()).isEqualTo(MigrationState.FAILED);
    assertThat(value(r, Topics.MIGRATION_ALERTS, VC + "/1300").reasons())
        .contains(MigrationAlert.Reason.GPU_UTILIZATION, MigrationAlert.Reason.FB_USED);
    assertThat(r).as("the idle VM's migration raised none").doesNotContainKey(Topics.MIGRATION_ALERTS.name() + " "
        + VC + "/1200");
    assertThat(r.keySet().stream().filter(k -> k.startsWith(Topics.MIGRATIONS.name() + " ")))
        .as("four migrations; the power events are none").containsExactlyInAnyOrder(
            Topics.MIGRATIONS.name() + " " + VC + "/1100", Topics.MIGRATIONS.name() + " " + VC + "/1200",
            Topics.MIGRATIONS.name() + " " + VC + "/1300", Topics.MIGRATIONS.name() + " " + VC + "/1400");
    assertThat(r.keySet()).noneMatch(k -> k.startsWith(Topics.DEAD_LETTERS.name()));
  }

  private static <V> V value(Map<String, String> r, Topic<String, V> topic, String key) throws Exception {
    String json = r.get(topic.name() + " " + key);
    assertThat(json).as(topic.name() + " " + key).isNotNull();
    return Json.mapper().readValue(json, topic.valueSerde().type());
  }

  // --- the recorded site ---------------------------------------------------------------------------------------

  /** Writes the site's files, publishes them through the CLI to a staging broker, and reads back what it published. */
  private List<Recorded> record(Instant base) throws Exception {
    Path site = Files.createDirectories(dir.resolve("site"));
    writeSite(site, base);
    EmbeddedKafkaBroker staging = broker("staging");
    Map<String, String> env = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", staging.bootstrapServers());
    try (StunwatchProcess p = StunwatchProcess.start(env, "collect", "vcenter", "--vcenter-uuid", VC,
        "--replay-inventory", site.resolve("inventory.jsonl").toString(), "--replay",
        site.resolve("events.jsonl").toString(), "--replay-vmware-log", site.resolve("logs").toString())) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
      assertThat(ReplayTable.published(p.stdout(), "vcenter-events")).isEqualTo(12);
      assertThat(ReplayTable.published(p.stdout(), "vcenter-inventory")).as("4 VMs, 2 hosts").isEqualTo(6);
      assertThat(ReplayTable.published(p.stdout(), "vmware-log")).as("stuns").isEqualTo(3);
      assertThat(ReplayTable.skipped(p.stdout())).isZero();
    }
    for (Vm vm : VMS) {
      try (StunwatchProcess p = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS",
          staging.bootstrapServers(), "STUNWATCH_WORKER_TIMEZONE", "UTC"), "collect", "worker", "--replay",
          site.resolve("worker").resolve(vm.name()).toString(), "--vm-id", vm.uuid(), "--hostname", vm.name())) {
        assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
        assertThat(p.stdout()).isNotEmpty();
        assertThat(ReplayTable.skipped(p.stdout())).isZero();
      }
    }
    List<Recorded> out = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, staging.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new ByteArrayDeserializer(),
        new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (Topic<String, ?> t : List.of(Topics.VM_INVENTORY, Topics.HOST_INVENTORY, Topics.VCENTER_EVENTS,
          Topics.STUN_OBSERVATIONS, Topics.GPU_SAMPLES, Topics.THROUGHPUT_SAMPLES)) {
        c.partitionsFor(t.name()).forEach(pi -> parts.add(new TopicPartition(pi.topic(), pi.partition())));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("reading the staging broker").isLessThan(deadline);
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(new Recorded(r.topic(), r.key(), r.value(), r.timestamp(), out.size()));
        }
      }
    }
    return out;
  }

  static void writeSite(Path site, Instant base) throws Exception {
    writeSite(site, base, SECONDS);
  }

  static void writeSite(Path site, Instant base, int seconds) throws Exception {
    Files.write(site.resolve("inventory.jsonl"), List.of(hostLine(1), hostLine(2), vmLine(TRAIN, 1),
        vmLine(IDLE, 1), vmLine(MULTI, 2), vmLine(FAILING, 2)));
    Instant trainStart = base.plusSeconds(360);
    Instant idleStart = base.plusSeconds(370);
    Instant multiStart = base.plusSeconds(365);
    Instant failStart = base.plusSeconds(380);
    Files.write(site.resolve("events.jsonl"), List.of(
        taskLine(1100, TRAIN.moref(), TRAIN.name(), "VirtualMachine.relocate", "TaskReasonUser", trainStart),
        line("VmBeingHotMigratedEvent", 1101, 1100, TRAIN.moref(), TRAIN.name(), trainStart.plusMillis(300),
            "\"host\":" + host(1) + ",\"destHost\":" + host(2)),
        taskLine(1300, MULTI.moref(), MULTI.name(), "VirtualMachine.relocate", "TaskReasonUser", multiStart),
        line("VmBeingHotMigratedEvent", 1301, 1300, MULTI.moref(), MULTI.name(), multiStart.plusMillis(200),
            "\"host\":" + host(2) + ",\"destHost\":" + host(1)),
        taskLine(1200, IDLE.moref(), IDLE.name(), "Drm.ExecuteVMotionLRO", "TaskReasonSystem", idleStart),
        line("VmBeingHotMigratedEvent", 1401, 1400, FAILING.moref(), FAILING.name(), failStart,
            "\"host\":" + host(2) + ",\"destHost\":" + host(1)),
        line("DrsVmMigratedEvent", 1201, 1200, IDLE.moref(), IDLE.name(), idleStart.plusSeconds(20),
            "\"host\":" + host(2) + ",\"sourceHost\":" + host(1)),
        line("VmFailedMigrateEvent", 1402, 1400, FAILING.moref(), FAILING.name(), failStart.plusSeconds(35),
            "\"host\":" + host(2) + ",\"destHost\":" + host(1)),
        line("VmMigratedEvent", 1102, 1100, TRAIN.moref(), TRAIN.name(), trainStart.plusSeconds(75),
            "\"host\":" + host(2) + ",\"sourceHost\":" + host(1)),
        line("VmMigratedEvent", 1302, 1300, MULTI.moref(), MULTI.name(), multiStart.plusSeconds(120),
            "\"host\":" + host(1) + ",\"sourceHost\":" + host(2)),
        // events the collector keeps that are no migration: the busy VM's power-on must raise no alert
        line("VmPoweredOnEvent", 1500, 1500, IDLE.moref(), IDLE.name(), base.plusSeconds(30), "\"host\":" + host(1)),
        line("VmPoweredOnEvent", 1501, 1501, TRAIN.moref(), TRAIN.name(), base.plusSeconds(31), "\"host\":" + host(1))));
    DateTimeFormatter log = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    Path trainLogs = Files.createDirectories(site.resolve("logs").resolve(TRAIN.moref()));
    Files.write(trainLogs.resolve("vmware.log"), List.of(
        // a snapshot two minutes in: a stun, but of no migration
        log.format(base.plusSeconds(120)) + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 1200000 us",
        log.format(trainStart.plusSeconds(74)) + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 28900000 us"));
    Path multiLogs = Files.createDirectories(site.resolve("logs").resolve(MULTI.moref()));
    Files.write(multiLogs.resolve("vmware.log"), List.of(
        log.format(multiStart.plusSeconds(119)) + " In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for 58100000 us"));
    writeWorker(site, TRAIN, base, trainStart, 75, 29, seconds);
    writeWorker(site, IDLE, base, idleStart, 20, 0, seconds);
    writeWorker(site, MULTI, base, multiStart, 120, 58, seconds);
    writeWorker(site, FAILING, base, failStart, 35, 0, seconds);
  }

  /**
   * A VM's nvidia-smi CSV (a row per GPU a second) and training log (a line every 10 s); during its migration the
   * GPUs run at half their load and the training at half its rate, and the last {@code stunned} seconds before the
   * end have no sample at all.
   */
  private static void writeWorker(Path site, Vm vm, Instant base, Instant start, int seconds, int stunned,
      int recorded) throws Exception {
    Path d = Files.createDirectories(site.resolve("worker").resolve(vm.name()));
    DateTimeFormatter smi = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
    List<String> csv = new ArrayList<>();
    csv.add("timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB]");
    List<String> train = new ArrayList<>();
    Instant end = start.plusSeconds(seconds);
    String name = "GRID " + vm.profile().substring("grid_".length()).toUpperCase(Locale.ROOT);
    for (int s = 0; s < recorded; s++) {
      Instant t = base.plusSeconds(s);
      boolean during = !t.isBefore(start) && t.isBefore(end);
      if (during && t.isAfter(end.minusSeconds(stunned + 1)) && t.isBefore(end)) {
        continue; // stunned: the guest takes no sample
      }
      for (int g = 0; g < vm.gpus(); g++) {
        csv.add(smi.format(t.plusMillis(17L * g)) + ", " + g + ", GPU-" + vm.n() + "-" + g + ", " + name + ", "
            + (int) (during ? vm.util() / 2 : vm.util()) + " %, " + vm.fbUsedMiB() + " MiB, " + vm.fbTotalMiB()
            + " MiB");
      }
      if (vm.throughput() != null && s % 10 == 0) {
        double rate = during ? vm.throughput() / 2 : vm.throughput();
        train.add(t + " " + (vm.total() ? "total images/sec: " + rate
            : (s / 10) + "\timages/sec: " + rate + " +/- 0.0 (jitter = 0.0)\t7.5"));
      }
    }
    Files.write(d.resolve("nvidia-smi.csv"), csv);
    if (!train.isEmpty()) {
      Files.write(d.resolve("train.log"), train);
    }
  }

  private static String vmLine(Vm vm, int host) {
    StringBuilder devices = new StringBuilder();
    for (int g = 0; g < vm.gpus(); g++) {
      devices.append(g == 0 ? "" : ",").append("{\"_typeName\":\"VirtualPCIPassthrough\",\"backing\":{\"_typeName\":"
          + "\"VirtualPCIPassthroughVmiopBackingInfo\",\"vgpu\":\"" + vm.profile() + "\"}}");
    }
    return "{\"_typeName\":\"VirtualMachine\",\"moref\":\"" + vm.moref() + "\",\"name\":\"" + vm.name() + "\","
        + "\"datacenter\":\"dc1\",\"config\":{\"uuid\":\"" + vm.uuid() + "\",\"hardware\":{\"memoryMB\":131072,"
        + "\"device\":[" + devices + "]},\"files\":{\"vmPathName\":\"[ds1] " + vm.name() + "/" + vm.name()
        + ".vmx\"}},\"runtime\":{\"host\":" + moref("HostSystem", "host-" + host) + "}}";
  }

  private static String hostLine(int h) {
    return "{\"_typeName\":\"HostSystem\",\"moref\":\"host-" + h + "\",\"name\":\"esx0" + h + "\",\"cluster\":"
        + "{\"_typeName\":\"ManagedObjectReference\",\"type\":\"ClusterComputeResource\",\"value\":\"domain-c7\","
        + "\"name\":\"gpu\"}}";
  }

  // --- the ways ------------------------------------------------------------------------------------------------

  /** vCenter records at their event time, samples {@code lagMillis} later; ties in recording order. */
  private static List<Recorded> arrival(List<Recorded> vcenter, List<Recorded> samples, long lagMillis) {
    List<Recorded> all = new ArrayList<>(vcenter);
    all.addAll(samples);
    all.sort(Comparator.comparingLong((Recorded r) -> arrivalOf(r, lagMillis)).thenComparingInt(Recorded::order));
    return all;
  }

  private static long arrivalOf(Recorded r, long lagMillis) {
    return r.timestamp() + (VCENTER_TOPICS.contains(r.topic()) ? 0 : lagMillis);
  }

  private static List<Recorded> concat(List<Recorded> first, List<Recorded> then) {
    List<Recorded> all = new ArrayList<>(first);
    all.addAll(then);
    return all;
  }

  /**
   * One way: a fresh broker with the inventory, a processor, the records in {@code order}.
   *
   * @param speed  event seconds per wall second (0: as fast as possible)
   * @param kills  times the processor is killed while the records go in
   * @param clock  runs the processor in this JVM with this clock, or null for {@code stunwatch process}
   * @return the newest value of each key of the outputs, keyed {@code "<topic> <key>"}
   */
  private Map<String, String> run(String way, List<Recorded> inventory, List<Recorded> order, int speed, int kills,
      Clock clock) throws Exception {
    long began = System.nanoTime();
    EmbeddedKafkaBroker broker = broker(way);
    String bootstrap = broker.bootstrapServers();
    try (KafkaProducer<byte[], byte[]> producer = producer(bootstrap)) {
      send(producer, inventory, 0, null);
      Processor p = new Processor(bootstrap, dir.resolve("state-" + way), clock);
      try {
        p.start();
        if (kills == 0) {
          send(producer, order, speed, null);
        } else {
          List<Integer> at = new ArrayList<>();
          for (int k = 1; k <= kills; k++) {
            at.add(order.size() * k / (kills + 1));
          }
          send(producer, order, speed, i -> {
            if (at.contains(i)) {
              producer.flush();
              p.kill();
              LOG.info("way {}: killed the processor after {} of {} records", way, i, order.size());
              p.start();
            }
          });
        }
        ProcessorOutputs.awaitQuiet(bootstrap, GROUP, p::failure);
      } finally {
        p.close();
      }
    }
    Map<String, String> latest = new TreeMap<>();
    ProcessorOutputs.outputs(bootstrap).forEach((topic, perKey) -> perKey.forEach((key, values) ->
        latest.put(topic + " " + key, canonical(values.get(values.size() - 1)))));
    LOG.info("way {}: {} records, {} outputs, {} s", way, order.size(), latest.size(),
        Duration.ofNanos(System.nanoTime() - began).toSeconds());
    return latest;
  }

  /** The model's recent observations in migration order: it keeps them in the order it learned them. */
  private static String canonical(String json) {
    try {
      JsonNode node = JSON.readTree(json);
      if (node.get("recent") instanceof ArrayNode recent) {
        List<JsonNode> sorted = new ArrayList<>();
        recent.forEach(sorted::add);
        sorted.sort(Comparator.comparing(n -> n.get("migrationId").asText()));
        recent.removeAll();
        recent.addAll(sorted);
      }
      return node.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void send(KafkaProducer<byte[], byte[]> producer, List<Recorded> records, int speed,
      IntConsumer before) throws Exception {
    long wallStart = System.nanoTime();
    long first = records.isEmpty() ? 0 : records.get(0).timestamp();
    for (int i = 0; i < records.size(); i++) {
      Recorded r = records.get(i);
      if (before != null) {
        before.accept(i);
      }
      if (speed > 0) {
        long due = wallStart + Math.max(0, r.timestamp() - first) * 1_000_000L / speed;
        long wait = due - System.nanoTime();
        if (wait > 1_000_000) {
          producer.flush();
          Thread.sleep(wait / 1_000_000);
        }
      }
      producer.send(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value()));
    }
    producer.flush();
  }

  private static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
        ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer());
  }

  private EmbeddedKafkaBroker broker(String name) throws Exception {
    EmbeddedKafkaBroker b = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(
        Files.createDirectories(dir.resolve("broker-" + name))));
    open.add(b);
    return b;
  }

  /** The processor of one way: {@code stunwatch process}, or in this JVM when the way sets its clock. */
  private static final class Processor implements AutoCloseable {
    private final String bootstrap;
    private final Path state;
    private final Clock clock;
    private StunwatchProcess process;
    private StreamsProcessor inJvm;

    Processor(String bootstrap, Path state, Clock clock) {
      this.bootstrap = bootstrap;
      this.state = state;
      this.clock = clock;
    }

    void start() {
      if (clock != null) {
        inJvm = StreamsProcessor.start(ProcessorConfig.defaults().withIdentity(GROUP, state),
            new KafkaClientConfig(bootstrap), clock);
        try {
          assertThat(inJvm.awaitRunning(Duration.ofSeconds(90))).as("the processor running").isTrue();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted", e);
        }
        return;
      }
      process = StunwatchProcess.start(Map.of(
          "STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
          "STUNWATCH_PROCESS_STATE_DIR", state.toString(),
          // a restarted processor takes its partitions back at once, without the killed one's session timeout
          "STUNWATCH_PROCESS_INSTANCE_ID", "replay-it"), "process");
      process.awaitStderr("-> RUNNING", Duration.ofSeconds(90));
    }

    void kill() {
      process.kill();
      process.close();
    }

    String failure() {
      return process == null || process.isAlive() ? null : "the processor exited: " + process.stderr();
    }

    @Override
    public void close() {
      if (inJvm != null) {
        inJvm.close();
      }
      if (process != null) {
        process.close();
      }
    }
  }
}
