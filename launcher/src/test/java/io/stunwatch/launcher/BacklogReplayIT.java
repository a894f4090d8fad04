package io.stunwatch.launcher;

import static io.stunwatch.launcher.ReplayEquivalenceIT.FAILING;
import static io.stunwatch.launcher.ReplayEquivalenceIT.IDLE;
import static io.stunwatch.launcher.ReplayEquivalenceIT.MULTI;
import static io.stunwatch.launcher.ReplayEquivalenceIT.TRAIN;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.broker.BrokerConfig;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stunwatch.broker.EmbeddedKafkaBroker;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.testsupport.Ports;
import io.stunwatch.testsupport.StunwatchProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A recorded site fed as a new user feeds it, through the real CLI: {@code stunwatch collect vcenter
 * --replay-inventory --replay --replay-vmware-log}, and each VM's samples from its own {@code collect worker
 * --replay --vm-id} process (or each ESXi host's {@code nvidia-smi vgpu -q -l 5} from its own {@code collect worker
 * --hostname --replay}), one process after another; {@code stunwatch api} reads it, and its answers are compared.
 * The site is {@link ReplayEquivalenceIT}'s (concurrent migrations on shared partitions, a failed one that ends
 * first, a long one that ends last, a busy four-GPU VM, an idle VM that DRS moves), with two hours of readings per
 * VM: one VM's recording runs the task's stream time far past the others' migrations.
 *
 * <p>The ways: the API started on the whole backlog with the events written first, or last; the API running while
 * the processes feed it, with pauses of more than twice {@code process.idle-close} between them; and the same site
 * seen only from its hosts. Each way runs three times: the answer must not depend on timing inside the processor.
 * Every run must be right, and equal to the way's first run; the guest-view ways must equal each other, records,
 * 10 s, 1 min and 1 h windows and the utilization audit alike.
 */
class BacklogReplayIT {

  private static final Logger LOG = LoggerFactory.getLogger(BacklogReplayIT.class);
  /** Two hours of readings per VM, the migrations about six minutes in. */
  static final int RECORDED_SECONDS = 2 * 3600;
  static final int RUNS = 3;
  /** A shortened idle close for the paced way, whose pauses are more than twice as long. */
  static final Duration IDLE_CLOSE = Duration.ofSeconds(2);
  static final Duration PAUSE = IDLE_CLOSE.multipliedBy(2).plusSeconds(1);
  static final String TOKEN = "backlog-it-" + Long.toHexString(System.nanoTime());

  /** How a run is fed. */
  enum Way {
    /** Events, then each VM's samples, then vmware.log; the API started on the backlog. */
    EVENTS_FIRST(true, false, false),
    /** Each VM's samples, then the events and vmware.log; the API started on the backlog. */
    SAMPLES_FIRST(false, false, false),
    /** As {@link #EVENTS_FIRST}, the API running all along, with pauses between the processes. */
    PACED(true, true, false),
    /** Each host's vGPU readings instead of the guests'; the events first in runs 1 and 3, last in run 2. */
    HOSTS(true, false, true);

    final boolean eventsFirst;
    final boolean paced;
    final boolean hosts;

    Way(boolean eventsFirst, boolean paced, boolean hosts) {
      this.eventsFirst = eventsFirst;
      this.paced = paced;
      this.hosts = hosts;
    }
  }

  @TempDir
  Path dir;

  final HttpClient http = HttpClient.newHttpClient();

  @Test
  void everyOrderAndPaceOfFeedingTheSiteThroughTheCliGivesOneRightAnswer() throws Exception {
    Instant base = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.MINUTES);
    Path site = Files.createDirectories(dir.resolve("site"));
    ReplayEquivalenceIT.writeSite(site, base, RECORDED_SECONDS);
    writeHostVgpu(site, base);
    Map<String, Map<String, String>> runs = new LinkedHashMap<>();
    List<String> differences = new ArrayList<>();
    // The brokers run in this JVM: whatever they (or the readers here) log at ERROR while a processor catches up on a
    // backlog, an append refused or a request failed, a site's broker would log too.
    ListAppender<ILoggingEvent> brokerErrors = new ListAppender<>();
    ThresholdFilter errorsOnly = new ThresholdFilter();
    errorsOnly.setLevel("ERROR");
    errorsOnly.start();
    brokerErrors.addFilter(errorsOnly);
    brokerErrors.start();
    ch.qos.logback.classic.Logger root = (ch.qos.logback.classic.Logger) LoggerFactory
        .getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.addAppender(brokerErrors);
    try {
      for (Way way : Way.values()) {
        Map<String, String> first = null;
        for (int run = 1; run <= RUNS; run++) {
          boolean eventsFirst = way.hosts ? run != 2 : way.eventsFirst;
          String name = way + " (" + (eventsFirst ? "events first" : "samples first") + "), run " + run;
          Map<String, String> r = run(site, base, way, eventsFirst, way.name().toLowerCase(Locale.ROOT) + "-" + run);
          check(name, way, r);
          if (first == null) {
            first = r;
            runs.put(way.name(), r);
          } else {
            differences.addAll(differences(way + ", run 1", first, name, r));
          }
        }
      }
      for (Way way : List.of(Way.SAMPLES_FIRST, Way.PACED)) {
        differences.addAll(differences(Way.EVENTS_FIRST.name(), runs.get(Way.EVENTS_FIRST.name()), way.name(),
            runs.get(way.name())));
      }
    } finally {
      root.detachAppender(brokerErrors);
    }
    assertThat(differences).as("answers that differ between runs or ways").isEmpty();
    // The controller logs at ERROR any event of its own that took over 2 s. That reports the host's pace (a busy CI
    // runner stalls the quorum thread), not a refused append or a failed request, so it is shown and not failed on.
    brokerErrors.list.stream().filter(BacklogReplayIT::isPaceReport)
        .forEach(e -> System.out.println("broker pace report: " + e.getFormattedMessage()));
    assertThat(brokerErrors.list).filteredOn(e -> !isPaceReport(e)).as("the brokers' errors")
        .extracting(e -> e.getLoggerName() + ": "
        + e.getFormattedMessage() + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getMessage()))
        .isEmpty();
  }

  private static boolean isPaceReport(ILoggingEvent e) {
    return e.getLoggerName().equals("org.apache.kafka.controller.EventPerformanceMonitor")
        && e.getFormattedMessage().contains("Exceptionally slow controller event");
  }

  private static List<String> differences(String one, Map<String, String> a, String other, Map<String, String> b) {
    List<String> out = new ArrayList<>();
    Set<String> keys = new TreeSet<>(a.keySet());
    keys.addAll(b.keySet());
    for (String k : keys) {
      if (!Objects.equals(a.get(k), b.get(k))) {
        out.add(k + ":\n  " + one + ": " + a.get(k) + "\n  " + other + ": " + b.get(k));
      }
    }
    return out;
  }

  /** Feeds the site one way and reads back every output record and the API's windows and audit. */
  private Map<String, String> run(Path site, Instant base, Way way, boolean eventsFirst, String name)
      throws Exception {
    long began = System.nanoTime();
    try (EmbeddedKafkaBroker b = EmbeddedKafkaBroker.start(BrokerConfig.ephemeral(
        Files.createDirectories(dir.resolve("broker-" + name))))) {
      Map<String, String> env = Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", b.bootstrapServers(),
          "STUNWATCH_WORKER_TIMEZONE", "UTC");
      int port = Ports.reserve();
      StunwatchProcess api = way.paced ? api(b.bootstrapServers(), port, name) : null;
      try {
        if (eventsFirst) {
          vcenter(env, site, way);
        }
        if (way.hosts) {
          for (String esx : List.of("esx01", "esx02")) {
            feed(env, "collect", "worker", "--hostname", esx, "--replay",
                site.resolve(esx + "-vgpu-q.txt").toString());
          }
        } else {
          for (ReplayEquivalenceIT.Vm vm : ReplayEquivalenceIT.VMS) {
            feed(env, "collect", "worker", "--replay", site.resolve("worker").resolve(vm.name()).toString(),
                "--vm-id", vm.uuid(), "--hostname", vm.name());
            if (way.paced) {
              Thread.sleep(PAUSE.toMillis()); // the processor idle for more than twice its idle close
            }
          }
        }
        if (!eventsFirst) {
          vcenter(env, site, way);
        }
        if (api == null) {
          api = api(b.bootstrapServers(), port, name);
        }
        StunwatchProcess running = api;
        ProcessorOutputs.awaitQuiet(b.bootstrapServers(), ReplayEquivalenceIT.GROUP,
            () -> running.isAlive() ? null : "the API exited: " + running.stderr());
        Map<String, String> answers = new TreeMap<>();
        ProcessorOutputs.outputs(b.bootstrapServers()).forEach((topic, perKey) -> perKey.forEach((key, values) ->
            answers.put(topic + " " + key, values.get(values.size() - 1))));
        String range = "from=" + base + "&to=" + base.plusSeconds(RECORDED_SECONDS);
        for (ReplayEquivalenceIT.Vm vm : ReplayEquivalenceIT.VMS) {
          for (String window : List.of("10s", "1m", "1h")) {
            JsonNode load = get(port, "/api/vms/" + vm.uuid() + "/load?window=" + window + "&" + range);
            answers.put("load " + vm.name() + " " + window, load.get("windows").toString());
          }
        }
        for (String by : List.of("vm", "host")) {
          answers.put("utilization by " + by, get(port, "/api/utilization?groupBy=" + by + "&" + range).toString());
        }
        LOG.info("{}: {} answers in {} s", name, answers.size(),
            Duration.ofNanos(System.nanoTime() - began).toSeconds());
        return answers;
      } finally {
        if (api != null) {
          api.close();
        }
      }
    }
  }

  private static void vcenter(Map<String, String> env, Path site, Way way) {
    feed(env, "collect", "vcenter", "--vcenter-uuid", ReplayEquivalenceIT.VC, "--replay-inventory",
        site.resolve("inventory.jsonl").toString(), "--replay", site.resolve("events.jsonl").toString(),
        "--replay-vmware-log", site.resolve("logs").toString());
    if (way.paced) {
      sleep(PAUSE);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void feed(Map<String, String> env, String... args) {
    try (StunwatchProcess p = StunwatchProcess.start(env, args)) {
      assertThat(p.awaitExit(Duration.ofMinutes(2))).as(String.join("\n", p.stderr())).isZero();
    }
  }

  private StunwatchProcess api(String bootstrap, int port, String name) {
    Map<String, String> env = new HashMap<>(Map.of("STUNWATCH_KAFKA_BOOTSTRAP_SERVERS", bootstrap,
        "STUNWATCH_PROCESS_STATE_DIR", dir.resolve("state-" + name).toString(), "STUNWATCH_API_HOST", "127.0.0.1",
        "STUNWATCH_API_PORT", String.valueOf(port), "STUNWATCH_API_TOKEN", TOKEN));
    env.put("STUNWATCH_PROCESS_IDLE_CLOSE", IDLE_CLOSE.toSeconds() + "s");
    StunwatchProcess api = StunwatchProcess.start(env, "api");
    api.awaitStdout("Stunwatch API listening", Duration.ofSeconds(90));
    return api;
  }

  private JsonNode get(int port, String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
    return Json.mapper().readTree(r.body());
  }


  /** What every run must show, as an admin reads it. */
  private static void check(String name, Way way, Map<String, String> r) throws Exception {
    String vc = ReplayEquivalenceIT.VC;
    // migration id, duration (s), stunned seconds in the guest's samples, vmware.log figure or null, busy
    record Expected(String id, int seconds, int gap, Double log, MigrationState state, boolean busy) {
    }
    for (Expected e : List.of(
        new Expected(vc + "/1100", 75, 29, 28.9, MigrationState.SUCCEEDED, true),
        new Expected(vc + "/1200", 20, 0, null, MigrationState.SUCCEEDED, false),
        new Expected(vc + "/1300", 120, 58, 58.1, MigrationState.SUCCEEDED, true),
        new Expected(vc + "/1400", 35, 0, null, MigrationState.FAILED, true))) {
      String what = name + " " + e.id() + ": " + r.get(Topics.MIGRATION_IMPACTS.name() + " " + e.id());
      Migration m = value(r, Topics.MIGRATIONS, e.id());
      assertThat(m.state()).as(what).isEqualTo(e.state());
      MigrationImpact i = value(r, Topics.MIGRATION_IMPACTS, e.id());
      assertThat(i.migration().state()).as(what).isEqualTo(e.state());
      assertThat(Duration.between(i.during().from(), i.during().to()).toSeconds())
          .as(what + ": the during window is the migration's duration (and its end second)")
          .isEqualTo(e.seconds() + 1L);
      assertThat(i.loadSource()).as(what).isEqualTo(way.hosts ? LoadSource.HOST : LoadSource.GUEST);
      assertThat(i.before().gpuSamples()).as(what + ": readings before").isPositive();
      assertThat(i.after().gpuSamples()).as(what + ": readings after").isPositive();
      assertThat(r.containsKey(Topics.MIGRATION_ALERTS.name() + " " + e.id())).as(what + ": alerted")
          .isEqualTo(e.busy());
      if (way.hosts) {
        // the hypervisor reads a stunned VM's vGPU on: its readings tell no stun, vmware.log does
        assertThat(i.stunEstimate()).as(what).isNull();
        assertThat(i.stun()).as(what).isEqualTo(e.log() == null ? new StunTime(null, StunTime.Source.UNKNOWN)
            : new StunTime(e.log(), StunTime.Source.VMWARE_LOG));
        continue;
      }
      // the estimate is the stun itself without a log figure, and beside it as a second witness with one
      StunTime estimate = i.stunEstimate() != null ? i.stunEstimate() : i.stun();
      assertThat(estimate.source()).as(what).isEqualTo(StunTime.Source.SAMPLE_GAP_ESTIMATE);
      assertThat(estimate.seconds()).as(what + ": the gap in the samples").isBetween(e.gap() - 2.0, e.gap() + 2.0);
      if (e.log() != null) {
        assertThat(i.stun()).as(what + ": the vmware.log figure")
            .isEqualTo(new StunTime(e.log(), StunTime.Source.VMWARE_LOG));
      }
    }
    assertThat(r.keySet()).as(name).noneMatch(k -> k.startsWith(Topics.DEAD_LETTERS.name()));
    // every 10 s of the recording with a reading has its window, whatever VM's readings came first: the guest takes
    // none while stunned (the seconds before its migration's end, as writeSite records them), the host reads on
    Map<ReplayEquivalenceIT.Vm, int[]> stunned = Map.of(TRAIN, new int[] {360 + 75 - 29, 360 + 75},
        IDLE, new int[] {0, 0}, MULTI, new int[] {365 + 120 - 58, 365 + 120}, FAILING, new int[] {0, 0});
    for (ReplayEquivalenceIT.Vm vm : ReplayEquivalenceIT.VMS) {
      Set<Integer> windows = new TreeSet<>();
      for (int s = 0; s < RECORDED_SECONDS; s++) {
        if (way.hosts || s < stunned.get(vm)[0] || s >= stunned.get(vm)[1]) {
          windows.add(s / 10);
        }
      }
      assertThat(Json.mapper().readTree(r.get("load " + vm.name() + " 10s")).size()).as(name + " " + vm.name())
          .isEqualTo(windows.size());
    }
  }

  private static <V> V value(Map<String, String> r, Topic<String, V> topic, String key) throws Exception {
    String json = r.get(topic.name() + " " + key);
    assertThat(json).as(topic.name() + " " + key).isNotNull();
    return Json.mapper().readValue(json, topic.valueSerde().type());
  }

  // --- the hosts' view of the site -----------------------------------------------------------------------------

  /**
   * Each ESXi host's {@code nvidia-smi vgpu -q -l 5} over the recording: a VM's vGPUs on its source host until its
   * migration ends, then on the destination (the failed one stays); at the VM's load, half of it during the
   * migration. The hypervisor reads a vGPU while its VM is stunned, so the readings have no gap.
   */
  static void writeHostVgpu(Path site, Instant base) throws Exception {
    record Placement(ReplayEquivalenceIT.Vm vm, int from, int to, int start, int seconds, boolean moves) {
    }
    List<Placement> placements = List.of(new Placement(TRAIN, 1, 2, 360, 75, true),
        new Placement(IDLE, 1, 2, 370, 20, true), new Placement(MULTI, 2, 1, 365, 120, true),
        new Placement(FAILING, 2, 2, 380, 35, false));
    DateTimeFormatter ts = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ENGLISH)
        .withZone(ZoneOffset.UTC);
    for (int h = 1; h <= 2; h++) {
      StringBuilder b = new StringBuilder();
      for (int s = 0; s < RECORDED_SECONDS; s += 5) {
        List<String> vgpus = new ArrayList<>();
        for (Placement p : placements) {
          boolean ended = s >= p.start() + p.seconds();
          if ((ended ? p.to() : p.from()) != h) {
            continue;
          }
          boolean during = s >= p.start() && !ended;
          ReplayEquivalenceIT.Vm vm = p.vm();
          for (int g = 0; g < vm.gpus(); g++) {
            vgpus.add(vgpu(vm, g, (int) (during ? vm.util() / 2 : vm.util())));
          }
        }
        b.append("\n==============NVSMI LOG==============\n\n")
            .append("Timestamp                                 : ").append(ts.format(base.plusSeconds(s)))
            .append('\n').append("Driver Version                            : 550.90.05\n\n");
        for (int g = 0; g < vgpus.size(); g++) {
          b.append("GPU 00000000:").append(String.format("%02X", 0x3B + g)).append(":00.0\n")
              .append("    Product Name                          : NVIDIA A100-PCIE-40GB\n")
              .append("    Active vGPUs                          : 1\n").append(vgpus.get(g));
        }
        if (vgpus.isEmpty()) {
          // a host whose VMs have all left still has its GPU: nvidia-smi prints it with no vGPU
          b.append("GPU 00000000:3B:00.0\n")
              .append("    Product Name                          : NVIDIA A100-PCIE-40GB\n")
              .append("    Active vGPUs                          : 0\n");
        }
      }
      Files.writeString(site.resolve("esx0" + h + "-vgpu-q.txt"), b.toString());
    }
  }

  private static String vgpu(ReplayEquivalenceIT.Vm vm, int g, int util) {
    String profile = "GRID " + vm.profile().substring("grid_".length()).toUpperCase(Locale.ROOT);
    long perGpu = vm.fbUsedMiB(); // as the guest reports each GPU
    return "    vGPU ID                               : 3251" + vm.n() + g + "\n"
        + "        VM ID                             : 21" + vm.n() + "\n"
        + "        VM Name                           : " + vm.name() + "\n"
        + "        vGPU Name                         : " + profile + "\n"
        + "        FB Memory Usage\n"
        + "            Total                         : " + vm.fbTotalMiB() + " MiB\n"
        + "            Used                          : " + perGpu + " MiB\n"
        + "            Free                          : " + (vm.fbTotalMiB() - perGpu) + " MiB\n"
        + "        Utilization\n"
        + "            Gpu                           : " + util + " %\n"
        + "            Memory                        : 30 %\n";
  }
}
