package io.stunwatch.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.collectors.hostvgpu.NvidiaSmiVgpuSource;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiCsvParser;
import io.stunwatch.collectors.nvidiasmi.NvidiaSmiStreamingSource;
import io.stunwatch.collectors.rdma.SysfsRdmaSource;
import io.stunwatch.collectors.throughput.LogTailThroughputSource;
import io.stunwatch.collectors.throughput.ThroughputParser;
import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.collectors.vcenter.VimEventMapper;
import io.stunwatch.collectors.vcenter.VmwareLogParser;
import io.stunwatch.collectors.vmkernel.VmkernelLogParser;
import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.DeliveryConfig;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.KafkaSampleSink;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a {@link FleetScenario} to Kafka through the collectors, released at its simulated time.
 *
 * <p>Every simulated VM is a worker: its nvidia-smi prints CSV lines that the nvidia-smi input's parser reads, its
 * RDMA port is a sysfs tree of counter files under {@code <dir>/workers/<vm>/} that the RDMA input reads, and its
 * Horovod job logs tf_cnn_benchmarks lines that the throughput input parses; all go through the workers' Kafka
 * sink. The simulated vCenter writes its events in VI/JSON to {@code <dir>/vcenter/events.json} (replayable with
 * {@code stunwatch collect vcenter --replay}), its inventory in VI/JSON, and each VM's vmware.log under
 * {@code <dir>/datastore/}; the vCenter collector's mapper, inventory reader and vmware.log parser read them. So
 * nothing reaches Kafka without passing the parser a real site's data passes.
 *
 * <p>Not thread-safe: one thread runs the scenario. {@link #close} may come from another, and stops it.
 */
public final class CollectorFeed implements FleetScenario.Sink, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(CollectorFeed.class);
  /** How often the simulated workers read their RDMA counters: a site's {@code rdma.interval=5s}. */
  static final int RDMA_INTERVAL_SECONDS = 5;

  /** Thrown out of {@link #send} once the feed is closed, to end the scenario's run. */
  public static final class Stopped extends RuntimeException {
    Stopped() {
      super("the demo's fleet was stopped", null, false, false);
    }
  }

  private final Path dir;
  private final SimulatedClock clock;
  private final ReadTime readTime = new ReadTime();
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final CollectorMetrics metrics;
  private final KafkaSampleSink workerSink;
  private final Map<String, Worker> workers = new HashMap<>();
  /** The ESXi hosts' collectors, by host name. */
  private final Map<String, Inputs> hosts = new HashMap<>();
  private final TypedProducer vcenterProducer;
  private final VcenterReplay vcenter;
  private final VimEventMapper mapper = new VimEventMapper();
  private final VmwareLogParser logParser = new VmwareLogParser();
  private final Map<String, Instant> lastStun = new HashMap<>();
  /** Lines of each host's vmkernel.log, as its follower counts them. */
  private final Map<String, Long> vmkernelLines = new HashMap<>();
  private final Map<String, VmInventoryEntry> inventory = new LinkedHashMap<>();
  private final Map<String, HostInventoryEntry> hostsSent = new HashMap<>();
  private final LogLimiter problemLog;
  private final AtomicLong vcenterProblems = new AtomicLong();
  private final AtomicLong released = new AtomicLong();
  private long eventLines;
  private volatile Instant lastReleased;
  private volatile boolean stopped;

  /**
   * @param dir       where the simulated fleet keeps its files
   * @param bootstrap the Kafka bootstrap servers
   * @param clock     releases each record at its simulated time
   */
  public CollectorFeed(Path dir, String bootstrap, SimulatedClock clock) throws IOException {
    this.dir = dir;
    this.clock = clock;
    Files.createDirectories(dir.resolve("vcenter"));
    this.metrics = new CollectorMetrics(registry, clock);
    this.problemLog = new LogLimiter(10);
    Map<String, Object> kafka = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    this.workerSink = KafkaSampleSink.create(new DeliveryConfig(Duration.ofMinutes(5), 1_000_000), kafka, metrics,
        clock);
    this.vcenterProducer = TypedProducer.create(kafka);
    this.vcenter = new VcenterReplay(FleetScenario.VCENTER, this::vcenterProblem);
  }

  /** The workers' collector meters (samples read, sent, dropped; parse errors). */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Records released so far. */
  public long released() {
    return released.get();
  }

  /** vCenter-side records the collector's parsers rejected (logged too); 0 unless something is wrong. */
  public long vcenterProblems() {
    return vcenterProblems.get();
  }

  @Override
  public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
    waitFor(at);
    readTime.at = at;
    try {
      if (value instanceof GpuSample g) {
        worker(g.vmId(), g.hostname()).gpu(g);
      } else if (value instanceof RdmaCounterSample r) {
        worker(r.vmId(), r.hostname()).rdma(r);
      } else if (value instanceof ThroughputSample t) {
        worker(t.vmId(), t.hostname()).throughput(t);
      } else if (value instanceof HostVgpuSample h) {
        hostVgpu(h);
      } else if (value instanceof VcenterEvent e) {
        event(e);
      } else if (value instanceof VmInventoryEntry vm) {
        inventory(vm, at);
      } else if (value instanceof StunObservation s) {
        vmwareLog(s);
      } else if (value instanceof VmotionObservation v) {
        rotatedLog(v);
      } else if (value instanceof VmotionBandwidth b) {
        vmkernelLog(b);
      } else {
        throw new IllegalArgumentException("the fleet has no collector for " + topic.name());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    released.incrementAndGet();
    lastReleased = at;
  }

  /** The simulated time of the newest record released, or null before the first. */
  public Instant lastReleased() {
    return lastReleased;
  }

  /** Blocks until the simulated clock reads {@code at}; throws {@link Stopped} once closed. */
  private void waitFor(Instant at) {
    while (true) {
      if (stopped) {
        throw new Stopped();
      }
      Duration wait = clock.until(at);
      if (wait.isZero()) {
        return;
      }
      LockSupport.parkNanos(Math.min(wait.toNanos(), 200_000_000L));
    }
  }

  /** An ESXi host's collector: one {@code nvidia-smi vgpu -q}, parsed by the host vGPU input as a host would. */
  private void hostVgpu(HostVgpuSample h) {
    Inputs host = hosts.computeIfAbsent(h.hostname(), name -> new Inputs(new WorkerIdentity(null, name), workerSink,
        metrics, readTime));
    NvidiaSmiVgpuSource.accept(FleetOutputs.vgpuQuery(h), h.timestamp(), "nvidia-smi vgpu -q on " + h.hostname(),
        host);
  }

  private Worker worker(String vmId, String hostname) {
    return workers.computeIfAbsent(vmId, id -> new Worker(new WorkerIdentity(id, hostname)));
  }

  /** A simulated GPU VM's worker collector. */
  private final class Worker {
    final Inputs inputs;
    final NvidiaSmiCsvParser smi;
    final ThroughputParser training = new ThroughputParser(null, "images/sec", ZoneOffset.UTC);
    final Path sysfs;
    long smiLine = 1; // the header was line 1

    Worker(WorkerIdentity identity) {
      this.inputs = new Inputs(identity, workerSink, metrics, readTime);
      try {
        this.smi = NvidiaSmiCsvParser.forHeader(FleetOutputs.NVIDIA_SMI_HEADER, ZoneOffset.UTC, identity, readTime,
            "nvidia-smi stdout of " + identity.hostname());
      } catch (InputParseException e) {
        throw new IllegalStateException("the demo's own nvidia-smi header does not parse", e);
      }
      this.sysfs = dir.resolve("workers").resolve(identity.hostname()).resolve("sys/class/infiniband");
    }

    void gpu(GpuSample g) {
      NvidiaSmiStreamingSource.accept(smi, FleetOutputs.nvidiaSmiCsv(g), ++smiLine, false, inputs);
    }

    void throughput(ThroughputSample t) {
      LogTailThroughputSource.accept(List.of(FleetOutputs.trainingLog(t)), training, t.job(), inputs);
    }

    /**
     * The port's counters as the kernel exposes them, read by the RDMA input every {@link #RDMA_INTERVAL_SECONDS}
     * (its {@code rdma.interval}): the counters are cumulative, so the rates between reads are the same.
     */
    void rdma(RdmaCounterSample r) throws IOException {
      if (r.timestamp().getEpochSecond() % RDMA_INTERVAL_SECONDS != 0) {
        return;
      }
      FleetOutputs.sysfsPort(sysfs, r);
      SysfsRdmaSource.readOnce(sysfs, inputs);
    }
  }

  /** The vCenter's event history gains {@code e}; the collector maps it from VI/JSON and publishes it. */
  private void event(VcenterEvent e) throws IOException {
    Path file = dir.resolve("vcenter/events.json");
    String line;
    VcenterEvent mapped;
    try {
      if (VcenterEvent.TASK_INFO.equals(e.eventType())) {
        // a followed task's state change is a TaskInfo, not an event: the collector maps it the same way
        JsonNode info = FleetOutputs.taskInfo(e.task());
        line = info.toString();
        append(file, List.of(line));
        mapped = mapper.taskChange(info, FleetScenario.VCENTER, e.eventKey(), e.chainId(), e.vm());
      } else {
        line = FleetOutputs.vimEvent(e);
        append(file, List.of(line));
        mapped = vcenter.event(line, null, file.toString(), eventLines).orElse(null);
      }
    } catch (InputParseException ex) {
      vcenterProblem(ex);
      return;
    } catch (VimEventMapper.MappingException ex) {
      vcenterProblem(new InputParseException(file.toString(), eventLines, ex.getMessage()));
      return;
    }
    if (mapped != null) {
      VcenterReplay.publish(vcenterProducer, VcenterReplay.Inventory.EMPTY, List.of(mapped));
    }
  }

  /** The inventory changes (a VM is placed or moved): the collector reads it in VI/JSON and publishes it. */
  private void inventory(VmInventoryEntry vm, Instant at) throws IOException {
    inventory.put(vm.moref(), vm);
    List<String> lines = new ArrayList<>();
    lines.add(FleetOutputs.about());
    for (VmInventoryEntry v : inventory.values()) {
      if (v.host() != null) {
        String host = FleetOutputs.inventoryHost(v.host(), v.cluster());
        if (!lines.contains(host)) {
          lines.add(host);
        }
      }
    }
    lines.add(FleetOutputs.inventoryVm(vm));
    Path file = dir.resolve("vcenter/inventory.json");
    Files.write(file, lines, StandardCharsets.UTF_8);
    VcenterReplay.Inventory read = vcenter.inventory(file, at);
    List<HostInventoryEntry> newHosts = read.hosts().stream()
        .filter(h -> hostsSent.putIfAbsent(h.moref(), h) == null).toList();
    VcenterReplay.publish(vcenterProducer, new VcenterReplay.Inventory(read.vms(), newHosts), List.of());
  }

  /**
   * The destination's vmware.log gains the vMotion's lines; the collector reads the whole log and publishes the
   * stuns newer than the last it sent for the VM, as it does after every migration.
   */
  private void vmwareLog(StunObservation s) throws IOException {
    String logFile = "[gpu-ds] " + s.vmName() + "/vmware.log";
    Path log = dir.resolve("datastore/gpu-ds").resolve(s.vmName()).resolve("vmware.log");
    VmInventoryEntry vm = inventory.get(s.vmMoref());
    append(log, FleetOutputs.vmwareLog(s, vm == null || vm.host() == null ? "10.0.0.1" : address(vm.host())));
    Instant after = lastStun.get(s.vmMoref());
    for (VmwareLogParser.Stun stun : logParser.parseAfter(Files.readString(log, StandardCharsets.UTF_8), after)) {
      StunObservation o = stun.observation(FleetScenario.VCENTER, s.vmMoref(), s.vmName(), logFile);
      vcenterProducer.send(Topics.STUN_OBSERVATIONS, o.key(), o, o.timestamp());
      lastStun.merge(s.vmMoref(), stun.timestamp(), (a, b) -> a.isAfter(b) ? a : b);
    }
    vcenterProducer.flush();
  }

  /**
   * The source's part of a vMotion goes into the log ESXi rotates out ({@code vmware-1.log}, a new one each move); the
   * collector reads the vMotions of it and of the current log from the migration's start on, as it does after every
   * migration.
   */
  private void rotatedLog(VmotionObservation v) throws IOException {
    Path dirOfVm = dir.resolve("datastore/gpu-ds").resolve(v.vmName());
    Path rotated = dirOfVm.resolve("vmware-1.log");
    VmInventoryEntry vm = inventory.get(v.vmMoref());
    Files.createDirectories(dirOfVm);
    Files.write(rotated, FleetOutputs.vmotionSourceLog(v, vm == null || vm.host() == null ? "10.0.0.2"
        : address(vm.host())), StandardCharsets.UTF_8);
    for (Path log : List.of(rotated, dirOfVm.resolve("vmware.log"))) {
      if (!Files.exists(log)) {
        continue;
      }
      String logFile = "[gpu-ds] " + v.vmName() + "/" + log.getFileName();
      for (VmwareLogParser.Vmotion m : logParser.read(Files.readString(log, StandardCharsets.UTF_8)).vmotions()) {
        if (m.timestamp() != null && !m.timestamp().isBefore(v.precopyStart())) {
          VmotionObservation o = m.observation(FleetScenario.VCENTER, v.vmMoref(), v.vmName(), logFile);
          vcenterProducer.send(Topics.VMOTION_OBSERVATIONS, o.key(), o, o.timestamp());
        }
      }
    }
    vcenterProducer.flush();
  }

  /** The source host's vmkernel.log gains the precopy's line; {@code collect hosts} follows it and publishes it. */
  private void vmkernelLog(VmotionBandwidth b) throws IOException {
    Path log = dir.resolve("hosts").resolve(b.hostname()).resolve("vmkernel.log");
    String line = FleetOutputs.vmkernelLine(b);
    append(log, List.of(line));
    long lineNo = vmkernelLines.merge(b.hostname(), 1L, Long::sum);
    VmkernelLogParser parser = new VmkernelLogParser(b.hostname(), b.hostname() + ":/var/log/vmkernel.log",
        (n, why) -> vcenterProblem(new InputParseException(log.toString(), n, why)));
    for (VmotionBandwidth read : parser.line(line, lineNo)) {
      vcenterProducer.send(Topics.VMOTION_BANDWIDTH, read.vmotionId(), read, read.timestamp());
    }
  }

  private static String address(EntityRef host) {
    return "10.0.0." + (Math.abs(host.value().hashCode()) % 250 + 1);
  }

  private void append(Path file, List<String> lines) throws IOException {
    Files.createDirectories(file.getParent());
    Files.write(file, lines, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    if (file.endsWith("events.json")) {
      eventLines += lines.size();
    }
  }

  private void vcenterProblem(InputParseException e) {
    vcenterProblems.incrementAndGet();
    String suffix = problemLog.admit();
    if (suffix != null) {
      LOG.warn("simulated vCenter: skipped: {}{}", e.getMessage(), suffix);
    }
  }

  /** Stops the fleet: the running scenario ends at its next record, with {@link Stopped}. */
  public void stop() {
    stopped = true;
  }

  /**
   * Stops the fleet, then sends what the workers buffered and closes the producers. Call it once the thread that
   * runs the scenario has ended (after {@link #stop}), so that no record is being sent meanwhile.
   */
  @Override
  public void close() {
    stopped = true;
    workerSink.close(Duration.ofSeconds(10));
    vcenterProducer.close();
  }

  /**
   * The time a worker reads its inputs at: the record's simulated second. (The RDMA input stamps a read with its
   * clock, as it reads sysfs at that moment.)
   */
  private static final class ReadTime extends Clock {
    volatile Instant at = Instant.EPOCH;

    @Override
    public Instant instant() {
      return at;
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException();
    }
  }
}
