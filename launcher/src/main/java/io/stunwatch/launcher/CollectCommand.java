package io.stunwatch.launcher;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.collectors.hosts.HostsCollector;
import io.stunwatch.collectors.hosts.HostsConfig;
import io.stunwatch.collectors.prometheus.ExporterCollector;
import io.stunwatch.collectors.prometheus.ExporterConfig;
import io.stunwatch.collectors.vcenter.VcenterCollectors;
import io.stunwatch.collectors.vcenter.VcenterConfig;
import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.collectors.vcenter.VmwareLogFiles;
import io.stunwatch.collectors.vcenter.VmwareLogParser;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.MetricsServer;
import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.collectors.worker.ReplayReport;
import io.stunwatch.collectors.worker.WorkerCollector;
import io.stunwatch.collectors.worker.WorkerConfig;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import io.stunwatch.model.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stunwatch collect worker|hosts|vcenter|prometheus}. */
@Command(name = "collect", mixinStandardHelpOptions = true,
    description = "Run a collector that publishes to Kafka.",
    subcommands = {CollectCommand.Worker.class, CollectCommand.Hosts.class, CollectCommand.Vcenter.class,
        CollectCommand.Prometheus.class})
final class CollectCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing collector: worker, hosts, vcenter or prometheus");
  }

  /** {@code stunwatch collect worker}. */
  @Command(name = "worker", mixinStandardHelpOptions = true,
      description = {"Collect nvidia-smi GPU samples and -q -x snapshots, host vGPU (nvidia-smi vgpu -q), RDMA "
          + "counters and training throughput on a GPU VM, bare-metal worker or hypervisor host, and publish them "
          + "to Kafka. Runs until stopped.",
          "With --replay, publishes a recorded file or directory instead, through the same parsers, and exits."})
  static final class Worker implements Callable<Integer> {
    private final LaunchContext ctx;

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOption config;

    @Option(names = "--vm-id", paramLabel = "UUID", description = "The VM's config.uuid, overriding "
        + "/sys/class/dmi/id/product_uuid (worker.vm-id).")
    String vmId;

    @Option(names = "--hostname", description = "Hostname on the samples (worker.hostname).")
    String hostname;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--metrics-port", description = "Port of /metrics, 0 for none (worker.metrics-port).")
    Integer metricsPort;

    @Option(names = "--replay", paramLabel = "FILE|DIR",
        description = "Publish a recording and exit: nvidia-smi --query-gpu CSV (with a header, after any preamble "
            + "lines, or without one: see --columns), -q -x XML, -q text, nvidia-bug-report.log[.gz], vgpu -q text, "
            + "a sysfs RDMA tree or a 'grep -H' listing of one, or a training log; a directory replays each file in "
            + "name order. Exit status 0 when every file was read whole, 4 when a line or file was skipped, 5 when "
            + "nothing was published.")
    Path replay;

    @Option(names = "--columns", paramLabel = "FIELD,...", split = ",",
        description = "The --query-gpu fields of a headerless (noheader) CSV replay, in order, e.g. "
            + "timestamp,index,utilization.gpu,memory.used.")
    List<String> columns;

    @Option(names = "--replay-as", paramLabel = "KIND",
        description = "Kind of the replayed files instead of detecting it: ${COMPLETION-CANDIDATES}.")
    ReplayKind replayAs;

    Worker(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      ConfigSource source = kafkaOption.apply(config.load(ctx))
          .override(WorkerConfig.VM_ID, vmId, "--vm-id")
          .override(WorkerConfig.HOSTNAME, hostname, "--hostname")
          .override(WorkerConfig.METRICS_PORT, metricsPort, "--metrics-port");
      WorkerCollector.Settings settings = WorkerCollector.Settings.from(source);
      if (replay != null) {
        requireExists(spec, "--replay", replay);
        ReplayReport report = WorkerCollector.replay(settings, replay, Optional.ofNullable(replayAs),
            Optional.ofNullable(columns), ctx.clock());
        return print(ctx, report);
      }
      if (columns != null) {
        throw new ParameterException(spec.commandLine(), "--columns is for --replay of a headerless CSV");
      }
      WorkerCollector collector = WorkerCollector.start(settings, ctx.clock());
      ctx.out().println("Worker collector running; Ctrl-C to stop.");
      ctx.out().flush();
      UntilStopped.await(collector, Duration.ofSeconds(30)); // let buffered samples go out before the JVM halts
      return ExitCodes.OK;
    }

    /** A usage error, before anything starts, for a file to replay that is not there. */
    static void requireExists(CommandSpec spec, String option, Path file) {
      if (file != null && !Files.exists(file)) {
        throw new ParameterException(spec.commandLine(), option + " " + file + ": no such file or directory");
      }
    }

    /** Prints a replay's table to stdout and its refusals to stderr, and gives its exit status. */
    static int print(LaunchContext ctx, ReplayReport report) {
      report.table().forEach(ctx.out()::println);
      ctx.out().flush();
      ReplayReport.Outcome outcome = report.outcome();
      if (outcome != ReplayReport.Outcome.READ) {
        ctx.err().println("stunwatch: " + (outcome == ReplayReport.Outcome.NOTHING ? "nothing was published"
            : "some lines or files were skipped; the table above names them") + " (exit status "
            + ExitCodes.of(outcome) + ")");
        ctx.err().flush();
      }
      return ExitCodes.of(outcome);
    }

    static long dropped(CollectorMetrics m, CollectorInput input) {
      long n = 0;
      for (DropReason r : DropReason.values()) {
        n += m.droppedCount(input, r);
      }
      return n;
    }
  }

  /** {@code stunwatch collect vcenter}. */
  @Command(name = "vcenter", mixinStandardHelpOptions = true,
      description = {"Collect migration events and tasks, VM and host inventory, and vmware.log stun times from one "
          + "or more vCenters (vcenter.urls), exactly once, resuming from a checkpoint kept in Kafka. Runs until "
          + "stopped. Credentials come from the environment or a file: STUNWATCH_VCENTER_USERNAME, "
          + "STUNWATCH_VCENTER_PASSWORD_FILE.",
          "With --replay/--replay-inventory/--replay-vmware-log, publishes recorded VI/JSON (or govmomi JSON) and a "
              + "support bundle's vmware.log files, and exits.",
          "With --vmware-log, prints the stun times and vMotions of one vmware.log and exits."})
  static final class Vcenter implements Callable<Integer> {
    private final LaunchContext ctx;

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigOption config;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--replay", paramLabel = "FILE", description = "vim25 events, one per line, in VI/JSON or "
        + "govmomi JSON.")
    Path replay;

    @Option(names = "--replay-inventory", paramLabel = "FILE",
        description = "VirtualMachine and HostSystem objects, one per line, in VI/JSON.")
    Path replayInventory;

    @Option(names = "--replay-vmware-log", paramLabel = "MOREF=FILE|DIR", description = "A VM's vmware.log, read "
        + "through the live collector's parser into stun observations: MOREF=FILE (repeatable; a VM's rotated logs "
        + "oldest first), or a directory of <moref>/vmware*.log.")
    List<String> replayVmwareLogs = new ArrayList<>();

    @Option(names = "--vcenter-uuid", description = "vCenter instance UUID of the replayed data (default: replay).")
    String vcenterUuid = "replay";

    @Option(names = "--event-type", paramLabel = "CLASS",
        description = "Event class of replayed lines that have no _typeName (govmomi JSON), e.g. VmMigratedEvent.")
    String eventType;

    @Option(names = "--vmware-log", paramLabel = "FILE", description = "Print the stun times and the vMotions (phases, "
        + "vMotion id, failure messages) found in one vmware.log, a JSON object a line.")
    Path vmwareLog;

    Vcenter(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      if (vmwareLog != null) {
        VmwareLogParser.Log log;
        try (var in = Files.newInputStream(vmwareLog)) {
          log = new VmwareLogParser().read(in, null,
              (line, why) -> ctx.err().println("stunwatch collect vcenter: skipped " + vmwareLog + ":" + line + ": "
                  + why));
        }
        for (VmwareLogParser.Stun s : log.stuns()) {
          ctx.out().println(Json.mapper().writeValueAsString(s));
        }
        for (VmwareLogParser.Vmotion v : log.vmotions()) {
          ctx.out().println(Json.mapper().writeValueAsString(v));
        }
        ctx.out().flush();
        return ExitCodes.OK;
      }
      Worker.requireExists(spec, "--replay", replay);
      Worker.requireExists(spec, "--replay-inventory", replayInventory);
      ConfigSource source = kafkaOption.apply(config.load(ctx));
      KafkaClientConfig kafka = KafkaClientConfig.from(source);
      kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
      if (replay != null || replayInventory != null || !replayVmwareLogs.isEmpty()) {
        return replay(kafka);
      }
      VcenterConfig vc = VcenterConfig.from(source, true);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      MetricsServer metrics = vc.metricsPort() == 0 ? null
          : MetricsServer.start(registry, vc.metricsHost(), vc.metricsPort());
      VcenterCollectors collectors = VcenterCollectors.start(vc, kafka.clientProperties(), ctx.clock(), registry);
      ctx.out().println("vCenter collector running for " + vc.urls()
          + (metrics == null ? "" : ", /metrics on port " + metrics.port()) + "; Ctrl-C to stop.");
      ctx.out().flush();
      String failure = UntilStopped.awaitOrFailure(() -> {
        collectors.close();
        if (metrics != null) {
          metrics.close();
        }
      }, Duration.ofSeconds(30), collectors.fatal());
      if (failure != null) {
        // a supervisor restarts a process that exits non-zero; the reason says whether it should
        ctx.err().println("stunwatch collect vcenter: stopped: " + failure);
        ctx.err().flush();
        return ExitCodes.FAILED;
      }
      return ExitCodes.OK;
    }

    private int replay(KafkaClientConfig kafka) throws Exception {
      Map<String, List<Path>> logs = new LinkedHashMap<>();
      for (String spec : replayVmwareLogs) {
        int eq = spec.indexOf('=');
        if (eq > 0) {
          logs.computeIfAbsent(spec.substring(0, eq), k -> new ArrayList<>()).add(Path.of(spec.substring(eq + 1)));
        } else if (Files.isDirectory(Path.of(spec))) {
          VmwareLogFiles.vmwareLogs(Path.of(spec)).forEach((k, v) -> logs.computeIfAbsent(k, x -> new ArrayList<>())
              .addAll(v));
        } else {
          throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
              "--replay-vmware-log " + spec + ": expected MOREF=FILE or a directory of <moref>/vmware*.log");
        }
      }
      VcenterBundle bundle = new VcenterBundle(vcenterUuid, eventType, ctx);
      bundle.inventory(replayInventory);
      bundle.events(replay);
      logs.forEach(bundle::vmwareLogs);
      ReplayReport report = bundle.publish(kafka);
      return Worker.print(ctx, report);
    }
  }

  /** {@code stunwatch collect prometheus}. */
  @Command(name = "prometheus", mixinStandardHelpOptions = true,
      description = {"Scrape existing GPU exporters (NVIDIA dcgm-exporter, nvidia_gpu_exporter) and publish their "
          + "GPU readings to Kafka, for VMs that run no Stunwatch worker. Each GPU's VM comes from the target's "
          + "mapping (VM=URL), a label (prometheus.vm-label), or the guest's host name (the Hostname label, or the "
          + "target's host), which the processor matches to guest.hostName in the inventory. Runs until stopped.",
          "With --replay, publishes recorded pages instead (the text format or OpenMetrics, such as promtool tsdb "
              + "dump-openmetrics writes), and exits."})
  static final class Prometheus implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--target", paramLabel = "[VM=]URL", description = "An exporter to scrape, instead of "
        + "prometheus.targets (repeatable); VM is the VM's name or config.uuid.")
    List<String> targets = new ArrayList<>();

    @Option(names = "--vm-label", paramLabel = "LABEL",
        description = "The label that names each GPU's VM (prometheus.vm-label).")
    String vmLabel;

    @Option(names = "--metrics-port", description = "Port of /metrics, 0 for none (prometheus.metrics-port).")
    Integer metricsPort;

    @Option(names = "--replay", paramLabel = "[VM=]FILE|DIR", description = "Publish recorded pages and exit "
        + "(repeatable); a directory replays each file in name order.")
    List<String> replay = new ArrayList<>();

    Prometheus(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      ConfigSource source = kafkaOption.apply(config.load(ctx))
          .override(ExporterConfig.TARGETS, targets.isEmpty() ? null : String.join(",", targets), "--target")
          .override(ExporterConfig.VM_LABEL, vmLabel, "--vm-label")
          .override(ExporterConfig.METRICS_PORT, metricsPort, "--metrics-port");
      ExporterCollector.Settings settings = ExporterCollector.Settings.from(source);
      if (!replay.isEmpty()) {
        settings.kafka().checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
        CollectorMetrics m = ExporterCollector.replay(settings, replay, ctx.clock());
        CollectorInput input = CollectorInput.EXPORTER;
        ctx.out().println(input.tag() + ": " + m.readCount(input) + " read, " + m.sentCount(input) + " sent, "
            + m.parseErrorCount(input) + " unparsable, " + Worker.dropped(m, input) + " dropped");
        ctx.out().flush();
        long undelivered = m.readCount(input) - m.sentCount(input);
        long failed = 0;
        for (io.stunwatch.metrics.ScrapeFailure r : io.stunwatch.metrics.ScrapeFailure.values()) {
          failed += m.scrapeFailureCount(r);
        }
        ReplayReport.Outcome outcome = m.sentCount(input) == 0 ? ReplayReport.Outcome.NOTHING
            : m.parseErrorCount(input) > 0 || undelivered > 0 || failed > 0 ? ReplayReport.Outcome.SKIPPED
            : ReplayReport.Outcome.READ;
        if (outcome != ReplayReport.Outcome.READ) {
          ctx.err().println("stunwatch collect prometheus: " + (outcome == ReplayReport.Outcome.NOTHING
              ? "nothing was published" : "some samples were skipped; the log names the first") + " (exit status "
              + ExitCodes.of(outcome) + ")");
          ctx.err().flush();
        }
        return ExitCodes.of(outcome);
      }
      if (settings.exporter().targets().isEmpty()) {
        throw new ParameterException(new picocli.CommandLine(this),
            "no exporter to scrape: give --target or prometheus.targets");
      }
      ExporterCollector collector = ExporterCollector.start(settings, ctx.clock());
      ctx.out().println("Exporter collector scraping " + settings.exporter().targets().size() + " targets every "
          + ConfigKeys.format(settings.exporter().interval()) + "; Ctrl-C to stop.");
      ctx.out().flush();
      UntilStopped.await(collector, Duration.ofSeconds(30));
      return ExitCodes.OK;
    }
  }

  /** {@code stunwatch collect hosts}. */
  @Command(name = "hosts", mixinStandardHelpOptions = true,
      description = {"Read every GPU host's vGPUs over SSH, agentless: one long-running 'nvidia-smi vgpu -q -l' per "
          + "host, and its vGPU scheduler state every few minutes, published to Kafka as the host view. The hosts "
          + "come from the vCenter inventory that 'collect vcenter' publishes (every host with an NVIDIA GPU, or "
          + "named in hosts.file), or from hosts.file alone, and are followed as they come and go. Runs until "
          + "stopped.",
          "Key authentication only (hosts.ssh.identity-file); host keys pinned in hosts.ssh.known-hosts, an unknown "
              + "or changed key refused and counted. A recording of one host replays with "
              + "'collect worker --hostname HOST --replay FILE'."})
  static final class Hosts implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Mixin
    KafkaOption kafkaOption;

    @Option(names = "--hosts-file", paramLabel = "FILE",
        description = "Host list or address book, one 'name [address[:port]]' per line (hosts.file).")
    Path hostsFile;

    @Option(names = "--source", paramLabel = "SOURCE",
        description = "Where the hosts come from: ${COMPLETION-CANDIDATES} (hosts.source).")
    HostsConfig.Source hostsSource;

    @Option(names = "--metrics-port", description = "Port of /metrics, 0 for none (hosts.metrics-port).")
    Integer metricsPort;

    Hosts(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      ConfigSource source = kafkaOption.apply(config.load(ctx))
          .override(HostsConfig.FILE, hostsFile, "--hosts-file")
          .override(HostsConfig.SOURCE, hostsSource == null ? null : hostsSource.name().toLowerCase(), "--source")
          .override(HostsConfig.METRICS_PORT, metricsPort, "--metrics-port");
      HostsCollector.Settings settings = HostsCollector.Settings.from(source);
      HostsCollector collector = HostsCollector.start(settings, ctx.clock());
      ctx.out().println("Hosts collector running (hosts from " + settings.hosts().source().name().toLowerCase()
          + "); Ctrl-C to stop.");
      ctx.out().flush();
      UntilStopped.await(collector, Duration.ofSeconds(30));
      return ExitCodes.OK;
    }
  }
}
