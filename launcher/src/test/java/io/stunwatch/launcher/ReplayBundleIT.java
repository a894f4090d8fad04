package io.stunwatch.launcher;

import static io.stunwatch.launcher.ReplayEquivalenceIT.MULTI;
import static io.stunwatch.launcher.ReplayEquivalenceIT.TRAIN;
import static io.stunwatch.launcher.ReplayEquivalenceIT.VC;
import static io.stunwatch.launcher.ReplayEquivalenceIT.VMS;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.broker.BrokerConfig;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.StunwatchProcess;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stunwatch replay BUNDLE} against the same site replayed file by file with the {@code collect} commands.
 * The bundle holds the site in the forms admins bring: the inventory as a pretty-printed JSON array, the events
 * pretty-printed back to back, vmware.log files in {@code <moref>/} folders, a headerless nvidia-smi CSV beside ones
 * with headers, a training log named after its VM, and {@code nvidia-smi -q} text. As a directory it publishes the
 * same records as the file-by-file replay, and the API over each lists the same migrations with the same impacts;
 * as a {@code .tar.gz} with a summary table added, it publishes the same again and exits with the skipped status,
 * naming that file.
 */
class ReplayBundleIT {

  static final String TOKEN = "bundle-it-" + Long.toHexString(System.nanoTime());
  static final ObjectMapper JSON = new ObjectMapper();
  static final String COLUMNS = "timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total";
  /** The input topics, as the replays publish them. */
  static final List<Topic<String, ?>> INPUTS = List.of(Topics.VM_INVENTORY, Topics.HOST_INVENTORY,
      Topics.VCENTER_EVENTS, Topics.STUN_OBSERVATIONS, Topics.GPU_SAMPLES, Topics.GPU_SNAPSHOTS,
      Topics.THROUGHPUT_SAMPLES);

  @TempDir
  Path dir;

  private final List<AutoCloseable> open = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void close() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  @Test
  void aBundleDirectoryOrTarballGivesWhatTheSiteGivesFileByFile() throws Exception {
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    Path site = Files.createDirectories(dir.resolve("site"));
    ReplayEquivalenceIT.writeSite(site, base);
    Path query = site.resolve("q.txt");
    writeQuery(query, base.plusSeconds(10));

    EmbeddedKafkaBroker byFile = broker("by-file");
    replayFileByFile(site, query, byFile.bootstrapServers());

    Path bundle = bundle(site, query, dir.resolve("bundle"));
    EmbeddedKafkaBroker byDir = broker("by-dir");
    try (StunwatchProcess p = StunwatchProcess.start(env(byDir), "replay", bundle.toString(), "--vcenter-uuid", VC,
        "--columns", COLUMNS)) {
      assertThat(p.awaitExit(Duration.ofMinutes(3))).as(String.join("\n", p.stdout()) + "\n"
          + String.join("\n", p.stderr())).isZero();
      assertThat(p.stdout()).anySatisfy(l -> assertThat(l).startsWith("vcenter/events.json").contains(
          "vcenter-events"));
      assertThat(p.stdout()).anySatisfy(l -> assertThat(l).startsWith(MULTI.uuid() + "/nvidia-smi.csv"));
      assertThat(p.stdout()).anySatisfy(l -> assertThat(l).startsWith(TRAIN.uuid() + "/q.txt")
          .contains("nvidia-smi-text"));
    }

    // the same bundle as a tarball, with a file that cannot make records
    Files.writeString(bundle.resolve("nvidia-smi-summary.txt"), String.join("\n",
        "+-----------------------------------------------------------------------------+",
        "| NVIDIA-SMI 535.161.08   Driver Version: 535.161.08   CUDA Version: 12.2     |",
        "|-------------------------------+----------------------+----------------------+",
        "|   0  GRID T4-16C         On   | 00000000:02:00.0 Off |                  N/A |",
        "| N/A   N/A    P0    N/A /  N/A |  15000MiB / 16384MiB |     90%      Default |",
        "+-------------------------------+----------------------+----------------------+", ""));
    Path tarball = dir.resolve("site-bundle.tar.gz");
    Process tar = new ProcessBuilder("tar", "czf", tarball.toString(), "-C", bundle.toString(), ".")
        .redirectErrorStream(true).start();
    assertThat(tar.waitFor()).as(new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isZero();
    EmbeddedKafkaBroker byTar = broker("by-tar");
    try (StunwatchProcess p = StunwatchProcess.start(env(byTar), "replay", tarball.toString(), "--vcenter-uuid", VC,
        "--columns", COLUMNS)) {
      assertThat(p.awaitExit(Duration.ofMinutes(3))).as("the skipped status: " + String.join("\n", p.stderr()))
          .isEqualTo(4);
      assertThat(p.stdout()).anySatisfy(l -> assertThat(l).startsWith("refused nvidia-smi-summary.txt: "
          + "nvidia-smi's summary table: "));
      assertThat(p.stderr()).anySatisfy(l -> assertThat(l).contains("(exit status 4)"));
    }

    Map<String, Integer> fileByFile = records(byFile.bootstrapServers());
    assertThat(fileByFile.keySet()).anySatisfy(k -> assertThat(k).startsWith(Topics.GPU_SNAPSHOTS.name()));
    Map<String, Integer> fromDir = records(byDir.bootstrapServers());
    assertThat(fromDir).as("the bundle directory's records: %s", difference(fromDir, fileByFile))
        .isEqualTo(fileByFile);
    Map<String, Integer> fromTar = records(byTar.bootstrapServers());
    assertThat(fromTar).as("the tarball's records: %s", difference(fromTar, fileByFile)).isEqualTo(fileByFile);

    // what an admin reads: the API over each lists the same migrations with the same impacts
    int portA = Ports.reserve();
    int portB = Ports.reserve();
    api(byFile.bootstrapServers(), portA, "a");
    api(byDir.bootstrapServers(), portB, "b");
    Map<String, String> a = new TreeMap<>();
    Map<String, String> b = new TreeMap<>();
    Await.until(Duration.ofMinutes(3), Duration.ofSeconds(1), () -> {
      a.clear();
      a.putAll(answers(portA, base));
      b.clear();
      b.putAll(answers(portB, base));
      return a.size() == VMS.size() && a.values().stream().filter(v -> v.contains("\"settledAt\"")).count() >= 3
          && a.equals(b);
    }, "both APIs listing the site's four migrations alike, with impacts", () -> a + "\n  against\n" + b);
  }

  private EmbeddedKafkaBroker broker(String name) throws Exception {
    EmbeddedKafkaBroker b = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(
        Files.createDirectories(dir.resolve("broker-" + name))));
    open.add(b);
    return b;
  }

  private static Map<String, String> env(EmbeddedKafkaBroker b) {
    return Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", b.bootstrapServers(), "STUNWATCH_WORKER_TIMEZONE", "UTC");
  }

  private void api(String bootstrap, int port, String state) {
    StunwatchProcess api = StunwatchProcess.start(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state-" + state).toString(), "STUNWATCH_PROCESS_APPLICATION_ID",
        "bundle-it", "STUNWATCH_API_HOST", "127.0.0.1", "STUNWATCH_API_PORT", String.valueOf(port),
        "STUNWATCH_API_TOKEN", TOKEN), "api");
    open.add(api);
    api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
  }

  /** The site through the {@code collect} commands, one call per file or VM, as the docs describe it. */
  private static void replayFileByFile(Path site, Path query, String bootstrap) {
    Map<String, String> env = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap, "STUNWATCH_WORKER_TIMEZONE",
        "UTC");
    run(env, "collect", "vcenter", "--vcenter-uuid", VC, "--replay-inventory",
        site.resolve("inventory.jsonl").toString(), "--replay", site.resolve("events.jsonl").toString(),
        "--replay-vmware-log", site.resolve("logs").toString());
    for (ReplayEquivalenceIT.Vm vm : VMS) {
      run(env, "collect", "worker", "--replay", site.resolve("worker").resolve(vm.name()).toString(), "--vm-id",
          vm.uuid());
    }
    run(env, "collect", "worker", "--replay", query.toString(), "--vm-id", TRAIN.uuid());
  }

  private static void run(Map<String, String> env, String... args) {
    try (StunwatchProcess p = StunwatchProcess.start(env, args)) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join(" ", args) + "\n"
          + String.join("\n", p.stdout()) + "\n" + String.join("\n", p.stderr())).isZero();
    }
  }

  /**
   * The site laid out as a bundle, in other forms than the file-by-file replay reads: pretty-printed JSON, a
   * headerless CSV, a training log at the top named after its VM.
   */
  private static Path bundle(Path site, Path query, Path bundle) throws Exception {
    ObjectMapper pretty = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    Path vcenter = Files.createDirectories(bundle.resolve("vcenter"));
    ArrayNode inventory = pretty.createArrayNode();
    for (String l : Files.readAllLines(site.resolve("inventory.jsonl"))) {
      inventory.add(pretty.readTree(l));
    }
    Files.writeString(vcenter.resolve("inventory.json"), pretty.writeValueAsString(inventory));
    StringBuilder events = new StringBuilder();
    for (String l : Files.readAllLines(site.resolve("events.jsonl"))) {
      events.append(pretty.writeValueAsString(pretty.readTree(l))).append('\n');
    }
    Files.writeString(vcenter.resolve("events.json"), events);
    try (var logs = Files.list(site.resolve("logs"))) {
      for (Path vm : logs.toList()) {
        Path to = Files.createDirectories(vcenter.resolve(vm.getFileName()));
        Files.copy(vm.resolve("vmware.log"), to.resolve("vmware.log"));
      }
    }
    for (ReplayEquivalenceIT.Vm vm : VMS) {
      Path from = site.resolve("worker").resolve(vm.name());
      Path to = Files.createDirectories(bundle.resolve(vm.uuid()));
      List<String> csv = Files.readAllLines(from.resolve("nvidia-smi.csv"));
      Files.write(to.resolve("nvidia-smi.csv"), vm == MULTI ? csv.subList(1, csv.size()) : csv);
      if (Files.exists(from.resolve("train.log"))) {
        Files.copy(from.resolve("train.log"), vm == MULTI ? bundle.resolve(vm.uuid() + "-train.log")
            : to.resolve("train.log"));
      }
    }
    Files.copy(query, bundle.resolve(TRAIN.uuid()).resolve("q.txt"));
    return bundle;
  }

  /** A vGPU guest's {@code nvidia-smi -q} at {@code at}. */
  private static void writeQuery(Path file, Instant at) throws Exception {
    String stamp = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ENGLISH).withZone(ZoneOffset.UTC)
        .format(at);
    Files.writeString(file, String.join("\n", "", "==============NVSMI LOG==============", "",
        "Timestamp                                 : " + stamp,
        "Driver Version                            : 535.161.08",
        "CUDA Version                              : 12.2", "",
        "Attached GPUs                             : 1",
        "GPU 00000000:02:00.0",
        "    Product Name                          : GRID T4-16C",
        "    GPU UUID                              : GPU-11-0",
        "    FB Memory Usage",
        "        Total                             : 16384 MiB",
        "        Used                              : 15000 MiB",
        "    Utilization",
        "        Gpu                               : 90 %", ""));
  }

  /**
   * Every input record as {@code topic key value timestamp} with how often it was published. Left out of the values:
   * the guest's host name (a file-by-file replay takes this machine's, a bundle names none), the name of the
   * vmware.log a stun came from, and the inventory's read time.
   */
  private static Map<String, Integer> records(String bootstrap) throws Exception {
    Map<String, Integer> out = new TreeMap<>();
    try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
        new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (Topic<String, ?> t : INPUTS) {
        c.partitionsFor(t.name()).forEach(pi -> parts.add(new TopicPartition(pi.topic(), pi.partition())));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts));
      long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        assertThat(System.nanoTime()).as("reading " + bootstrap).isLessThan(deadline);
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          JsonNode v = JSON.readTree(r.value());
          if (v instanceof ObjectNode o) {
            o.remove("hostname");
            o.remove("logFile"); // the vmware.log as each replay names it: its path, or its path in the bundle
            if (o.has("observedAt")) {
              o.remove("observedAt"); // the inventory's read time: the replay's own clock
            }
          }
          out.merge(r.topic() + " " + r.key() + " " + v + " " + (r.topic().contains("inventory") ? ""
              : r.timestamp()), 1, Integer::sum);
        }
      }
    }
    return out;
  }

  /** What one replay published and the other did not, at most five of each, for the failure message. */
  private static String difference(Map<String, Integer> got, Map<String, Integer> want) {
    List<String> extra = got.entrySet().stream().filter(e -> !e.getValue().equals(want.get(e.getKey())))
        .map(e -> e.getValue() + "x " + e.getKey()).limit(5).toList();
    List<String> missing = want.entrySet().stream().filter(e -> !e.getValue().equals(got.get(e.getKey())))
        .map(e -> e.getValue() + "x " + e.getKey()).limit(5).toList();
    return got.size() + " against " + want.size() + " distinct; only here " + extra + "; only file by file " + missing;
  }

  /** Each migration of the site, as the API lists it and as its own page gives it. */
  private Map<String, String> answers(int port, Instant base) {
    try {
      return answersOrThrow(port, base);
    } catch (Exception e) {
      return Map.of("error", e.toString()); // not up yet: asked again
    }
  }

  private Map<String, String> answersOrThrow(int port, Instant base) throws Exception {
    Map<String, String> out = new TreeMap<>();
    JsonNode list = get(port, "/api/migrations?limit=100&from=" + base.minusSeconds(3600) + "&to="
        + base.plusSeconds(6 * 3600));
    if (list == null) {
      return out;
    }
    for (JsonNode row : list) {
      String id = row.path("migration").path("id").asText();
      JsonNode one = get(port, "/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8));
      out.put(id, row + " " + one);
    }
    return out;
  }

  private JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
  }
}
