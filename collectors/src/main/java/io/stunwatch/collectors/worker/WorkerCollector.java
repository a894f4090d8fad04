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
import io.stunwatch.collectors.rdma.SysfsRdmaSource;
import io.stunwatch.collectors.throughput.LogTailThroughputSource;
import io.stunwatch.collectors.throughput.ThroughputConfig;
import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
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
   * Replays a recorded file, or every file of a directory, through the live parse-and-publish path, then waits for
   * Kafka to acknowledge everything (at most the outage bound).
   *
   * @param kind the kind of every file, or empty to detect each one
   * @return the collector's counters after the replay
   */
  public static CollectorMetrics replay(Settings s, Path path, Optional<ReplayKind> kind, Clock clock)
      throws IOException {
    List<Path> files = new ArrayList<>();
    if (Files.isDirectory(path) && !(kind.orElse(null) == ReplayKind.SYSFS || isSysfs(path))) {
      try (Stream<Path> list = Files.list(path)) {
        list.filter(Files::isRegularFile).sorted().forEach(files::add);
      }
    } else {
      files.add(path);
    }
    List<ReplayKind> kinds = new ArrayList<>();
    for (Path f : files) {
      kinds.add(kind.isPresent() ? kind.get() : ReplayKind.detect(f));
    }
    // a host's recordings name their VMs: replaying only those needs no VM id
    WorkerIdentity identity = s.worker().identity(kinds.stream().anyMatch(k -> k != ReplayKind.VGPU_QUERY));
    WorkerCollector c = new WorkerCollector(s, identity, clock);
    try {
      for (int i = 0; i < files.size(); i++) {
        Path f = files.get(i);
        ReplayKind k = kinds.get(i);
        LOG.info("Replaying {} as {}", f, k);
        var zone = s.worker().timezone();
        switch (k) {
          case NVIDIA_SMI_CSV -> NvidiaSmiReplay.csv(f, zone, c.inputs);
          case NVIDIA_SMI_XML -> NvidiaSmiReplay.xml(f, zone, c.inputs);
          case VGPU_QUERY -> NvidiaSmiVgpuSource.replay(f, zone, c.inputs);
          case SYSFS -> SysfsRdmaSource.readOnce(f, c.inputs);
          case LOG -> LogTailThroughputSource.replay(f, s.throughput(), zone, c.inputs);
        }
      }
    } finally {
      c.sink.close(s.delivery().outageBound());
      c.close();
    }
    return c.inputs.metrics();
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
