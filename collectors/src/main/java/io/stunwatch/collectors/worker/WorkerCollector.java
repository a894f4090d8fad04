package io.stunwatch.collectors.worker;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.collectors.hostvgpu.HostVgpuConfig;
import io.stunwatch.collectors.hostvgpu.NvidiaSmiVgpuSource;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiConfig;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiReplay;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiStreamingSource;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiXmlSnapshotSource;
import io.stunwatch.collectors.rdma.RdmaConfig;
import io.stunwatch.collectors.rdma.RdmaListing;
import io.stunwatch.collectors.rdma.SysfsRdmaSource;
import io.stunwatch.collectors.throughput.LogTailThroughputSource;
import io.stunwatch.collectors.throughput.ThroughputConfig;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.CollectorInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code stunwatch collect worker}: every enabled input in one process, publishing through one non-blocking
 * Kafka sink, with optional Prometheus self-metrics.
 */
public final class WorkerCollector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerCollector.class);

  /** Every configuration key of the worker collector. */
  public static final List<ConfigKey<?>> KEYS = Stream.of(WorkerConfig.KEYS, NvidiaSmiConfig.KEYS,
      HostVgpuConfig.KEYS, RdmaConfig.KEYS, ThroughputConfig.KEYS, DeliveryConfig.KEYS)
      .flatMap(List::stream).toList();

  /** All settings, validated together at start-up. */
  public record Settings(WorkerConfig worker, NvidiaSmiConfig nvidiaSmi, HostVgpuConfig hostVgpu, RdmaConfig rdma,
      ThroughputConfig throughput, DeliveryConfig delivery, KafkaClientConfig kafka) {

    public static Settings from(ConfigSource source) {
      return new Settings(WorkerConfig.from(source), NvidiaSmiConfig.from(source), HostVgpuConfig.from(source),
          RdmaConfig.from(source), ThroughputConfig.from(source), DeliveryConfig.from(source),
          KafkaClientConfig.from(source));
    }
  }

  private final PrometheusMeterRegistry registry;
  private final KafkaSampleSink sink;
  private final Inputs inputs;
  private final List<CollectorSource> sources = new ArrayList<>();
  private final MetricsServer metricsServer;

  private WorkerCollector(Settings s, WorkerIdentity identity, Clock clock) throws IOException {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CollectorMetrics metrics = new CollectorMetrics(registry, clock);
    this.sink = KafkaSampleSink.create(s.delivery(), s.kafka().clientProperties(), metrics, clock);
    this.inputs = new Inputs(identity, sink, metrics, clock);
    this.metricsServer = s.worker().metricsPort() > 0
        ? MetricsServer.start(registry, s.worker().metricsHost(), s.worker().metricsPort()) : null;
  }

  /** Starts every enabled input. */
  public static WorkerCollector start(Settings s, Clock clock) throws IOException {
    s.kafka().checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    // A hypervisor host (host-vgpu on, no VM id) reads its VMs from vgpu -q: the guest inputs would publish the
    // host's own GPUs and NICs as if they were a VM's, so they stay off there.
    boolean hostMode = s.hostVgpu().enabled() && !s.worker().vmIdConfigured();
    boolean guest = !hostMode && (s.nvidiaSmi().enabled() || s.rdma().enabled() || s.throughput().logFile() != null);
    if (hostMode && (s.nvidiaSmi().enabled() || s.rdma().enabled() || s.throughput().logFile() != null)) {
      LOG.info("Host mode (host-vgpu.enabled and no worker.vm-id): the guest inputs nvidia-smi, rdma and throughput "
          + "are off");
    }
    WorkerIdentity identity = s.worker().identity(guest);
    WorkerCollector c = new WorkerCollector(s, identity, clock);
    var zone = s.worker().timezone();
    if (guest && s.nvidiaSmi().enabled()) {
      c.sources.add(new NvidiaSmiStreamingSource(s.nvidiaSmi(), zone, c.inputs));
      if (!s.nvidiaSmi().snapshotInterval().isZero()) {
        c.sources.add(new NvidiaSmiXmlSnapshotSource(s.nvidiaSmi(), zone, c.inputs));
      }
    }
    if (s.hostVgpu().enabled()) {
      c.sources.add(new NvidiaSmiVgpuSource(s.hostVgpu(), c.inputs));
    }
    if (guest && s.rdma().enabled()) {
      c.sources.add(new SysfsRdmaSource(s.rdma(), c.inputs));
    }
    if (guest && s.throughput().logFile() != null) {
      c.sources.add(new LogTailThroughputSource(s.throughput(), zone, c.inputs));
    }
    c.sources.forEach(CollectorSource::start);
    LOG.info("Worker collector for VM {} ({}) started: inputs {}{}", identity.vmId(), identity.hostname(),
        c.sources.stream().map(CollectorSource::name).toList(),
        c.metricsServer == null ? "" : ", metrics on port " + c.metricsServer.port());
    return c;
  }

  /**
   * One file of a replay.
   *
   * @param path the file (or sysfs directory)
   * @param name how the report names it: as the user gave it, or its path inside a bundle
   * @param kind its kind, or empty to detect it
   * @param vmId the VM whose file it is, when known from where it lies (a bundle's {@code <vm-id>/} folder); else
   *             the configured or local VM id
   * @param hostname the host whose {@code vgpu -q} it is, when known from where it lies; else the configured one
   */
  public record ReplayFile(Path path, String name, Optional<ReplayKind> kind, Optional<String> vmId,
      Optional<String> hostname) {

    public ReplayFile(Path path, String name, Optional<ReplayKind> kind, Optional<String> vmId) {
      this(path, name, kind, vmId, Optional.empty());
    }
  }

  /**
   * Replays a recorded file, or every file of a directory, through the live parse-and-publish path, then waits for
   * Kafka to acknowledge everything (at most the outage bound).
   *
   * @param kind    the kind of every file, or empty to detect each one
   * @param columns the {@code --query-gpu} columns of a headerless CSV, when given
   * @return what was done with each file
   */
  public static ReplayReport replay(Settings s, Path path, Optional<ReplayKind> kind,
      Optional<List<String>> columns, Clock clock) throws IOException {
    List<ReplayFile> files = new ArrayList<>();
    if (Files.isDirectory(path) && !(kind.orElse(null) == ReplayKind.SYSFS || isSysfs(path))) {
      try (Stream<Path> list = Files.list(path)) {
        list.filter(Files::isRegularFile).sorted()
            .forEach(f -> files.add(new ReplayFile(f, f.toString(), kind, Optional.empty())));
      }
    } else {
      files.add(new ReplayFile(path, path.toString(), kind, Optional.empty()));
    }
    return replay(s, files, columns, clock);
  }

  /**
   * Replays {@code files} in order, each under its own VM id, and reports each one. A file that cannot be read
   * whole (a known form that makes no records, a headerless CSV with no columns, a guest's file whose VM is
   * unknown) is refused by name and the others go on.
   */
  public static ReplayReport replay(Settings s, List<ReplayFile> files, Optional<List<String>> columns, Clock clock)
      throws IOException {
    ReplayReport report = new ReplayReport();
    WorkerCollector c = new WorkerCollector(s, WorkerIdentity.host(Optional.ofNullable(s.worker().hostname())),
        clock);
    try {
      var zone = s.worker().timezone();
      for (ReplayFile f : files) {
        CollectorMetrics m = c.inputs.metrics();
        long readBefore = total(m, true);
        long skippedBefore = total(m, false);
        ReplayKind k = null;
        Inputs inputs = null;
        try {
          k = f.kind().isPresent() ? f.kind().get() : ReplayKind.detect(f.path());
          if (k == ReplayKind.LOG && f.kind().isEmpty()) {
            LogTailThroughputSource.requireThroughput(f.path(), s.throughput(), zone);
          }
          inputs = new Inputs(identity(s, f, k), c.sink, m, clock);
          LOG.info("Replaying {} as {}", f.name(), k.label());
          switch (k) {
            case NVIDIA_SMI_CSV -> NvidiaSmiReplay.csv(f.path(), zone, inputs, columns);
            case NVIDIA_SMI_XML -> NvidiaSmiReplay.xml(f.path(), zone, inputs);
            case NVIDIA_SMI_TEXT -> NvidiaSmiReplay.text(f.path(), zone, inputs);
            case NVIDIA_BUG_REPORT -> NvidiaSmiReplay.bugReport(f.path(), zone, inputs);
            case VGPU_QUERY -> NvidiaSmiVgpuSource.replay(f.path(), zone, inputs);
            case SYSFS -> SysfsRdmaSource.readOnce(f.path(), inputs);
            case RDMA_LISTING -> RdmaListing.replay(f.path(), inputs);
            case LOG -> LogTailThroughputSource.replay(f.path(), job(s, f), s.throughput(), zone, inputs);
          }
          InputParseException first = inputs.takeFirstError();
          report.add(new ReplayReport.Row(f.name(), k.label(), total(m, true) - readBefore,
              total(m, false) - skippedBefore,
              first == null ? null : first.getMessage().replace(f.path().toString(), f.name()), false));
        } catch (ReplayRefusedException e) {
          LOG.warn("Refused {}: {}", f.name(), e.getMessage());
          report.refused(f.name(), e);
        }
      }
    } finally {
      c.sink.close(s.delivery().outageBound());
      c.close();
    }
    CollectorMetrics m = c.inputs.metrics();
    long sent = 0;
    for (CollectorInput input : CollectorInput.values()) {
      sent += m.sentCount(input);
    }
    report.undelivered(total(m, true) - sent);
    return report;
  }

  /**
   * The identity of a file's readings: a host's vGPU readings name their VMs; a guest's file is the VM's of its
   * bundle folder, else the configured or local VM's.
   *
   * @throws ReplayRefusedException when a guest's file's VM cannot be told, or the file is a host's {@code -q}
   */
  private static WorkerIdentity identity(Settings s, ReplayFile f, ReplayKind k) throws IOException {
    boolean guest = k != ReplayKind.VGPU_QUERY;
    if ((k == ReplayKind.NVIDIA_SMI_TEXT || k == ReplayKind.NVIDIA_BUG_REPORT) && NvidiaSmiReplay.hostQuery(f.path())) {
      throw NvidiaSmiReplay.hostRefusal();
    }
    if (!guest) {
      return f.hostname().isPresent() ? WorkerIdentity.host(f.hostname()) : s.worker().identity(false);
    }
    if (f.vmId().isPresent()) {
      return new WorkerIdentity(f.vmId().get(), s.worker().hostname());
    }
    try {
      return s.worker().identity(true);
    } catch (IllegalStateException e) {
      throw new ReplayRefusedException("a VM's " + k.label() + " whose VM is unknown",
          "give --vm-id (the VM's config.uuid), or in a bundle put it in a <vm-id>/ folder (" + e.getMessage() + ")");
    }
  }

  /**
   * The job a training log's samples are named for: {@code throughput.job}, else the file's name, less the VM id
   * that starts it in a bundle ({@code <vm-id>-train.log} is the VM's {@code train.log}).
   */
  private static String job(Settings s, ReplayFile f) {
    if (s.throughput().job() != null) {
      return s.throughput().job();
    }
    String name = f.path().getFileName().toString();
    if (f.vmId().isPresent() && name.length() > 37 && name.regionMatches(true, 0, f.vmId().get(), 0, 36)
        && "-_.".indexOf(name.charAt(36)) >= 0) {
      return name.substring(37);
    }
    return name;
  }

  private static long total(CollectorMetrics m, boolean read) {
    long n = 0;
    for (CollectorInput input : CollectorInput.values()) {
      n += read ? m.readCount(input) : m.parseErrorCount(input);
    }
    return n;
  }

  private static boolean isSysfs(Path dir) {
    try {
      return ReplayKind.detect(dir) == ReplayKind.SYSFS;
    } catch (IOException e) {
      return false;
    }
  }

  public CollectorMetrics metrics() {
    return inputs.metrics();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Stops the inputs, then sends what is buffered (up to 10 s) and closes the producer. */
  @Override
  public void close() {
    for (CollectorSource s : sources) {
      s.close();
    }
    sink.close(Duration.ofSeconds(10));
    if (metricsServer != null) {
      metricsServer.close();
    }
  }
}
