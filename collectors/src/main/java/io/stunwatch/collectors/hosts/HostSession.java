package io.stunwatch.collectors.hosts;

import io.stunwatch.collectors.hostvgpu.NvidiaSmiVgpuSource;
import io.stunwatch.collectors.hostvgpu.VgpuBlockSplitter;
import io.stunwatch.collectors.hostvgpu.VgpuSchedulerState;
import io.stunwatch.collectors.vmkernel.VmkernelLogParser;
import io.stunwatch.collectors.worker.Backoff;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.HostFailure;
import io.stunwatch.metrics.HostState;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One followed host: connect, run the streaming command, cut its output into readings and publish them; on any
 * failure, count it by reason, close and try again after a backoff. It is driven by {@link #tick} from the
 * collector's one timer thread and by the shell's callbacks; every callback carries the attempt it belongs to, so
 * that a late answer from an abandoned attempt is closed and ignored. Nothing here blocks.
 */
final class HostSession {

  private static final Logger LOG = LoggerFactory.getLogger(HostSession.class);
  /** A block is complete when the stream has paused this long after it (nvidia-smi prints each at once). */
  static final long QUIET_MS = 750;
  private static final int SCHEDULER_MAX_BYTES = 256 * 1024;

  private final HostAddress host;
  private final HostShell shell;
  private final HostsConfig config;
  private final Inputs inputs;
  private final HostMetrics metrics;
  private final LocalTimes times;
  private final Backoff backoff;
  private final VgpuBlockSplitter splitter = new VgpuBlockSplitter(this::block);
  private final String source;
  private final Executor closer;

  private HostState state = HostState.BACKOFF;
  private int attempt;
  private long retryAt;
  private long attemptAt;
  private long lastDataAt;
  private long nextSchedulerAt;
  private volatile long lastReadingAt = -1;
  private boolean healthy;
  private boolean stopped;
  private HostFailure lastFailure;
  private HostShell.Connection connection;
  private volatile Map<String, Map<String, String>> scheduler = Map.of();
  /** The vmkernel.log follower of this attempt: its lines, and when it may start again after it ended. */
  private VmkernelLogParser vmkernel;
  private long vmkernelLines;
  private boolean vmkernelRunning;
  private long vmkernelRetryAt;

  /**
   * @param closer runs the closing of connections, off this session's lock: a shell may call back into the session
   *               from the thread that closes
   */
  HostSession(HostAddress host, HostShell shell, HostsConfig config, Inputs inputs, HostMetrics metrics,
      Executor closer) {
    this.host = host;
    this.closer = closer;
    this.shell = shell;
    this.config = config;
    this.inputs = inputs;
    this.metrics = metrics;
    this.times = new LocalTimes(config.timezone(), inputs.clock());
    this.backoff = new Backoff(Duration.ofSeconds(1), config.maxBackoff());
    this.source = "ssh://" + host.address() + ":" + host.port();
    this.retryAt = Long.MIN_VALUE;
  }

  HostAddress host() {
    return host;
  }

  synchronized HostState state() {
    return state;
  }

  /** Seconds since the newest reading arrived, NaN before the first. */
  double readingAgeSeconds() {
    long at = lastReadingAt;
    return at < 0 ? Double.NaN : (inputs.clock().millis() - at) / 1000.0;
  }

  /** Moves the session on: starts an attempt that is due, cuts a block the stream paused after, drops a silent one. */
  synchronized void tick() {
    if (stopped) {
      return;
    }
    long now = inputs.clock().millis();
    switch (state) {
      case BACKOFF -> {
        if (now >= retryAt) {
          connect(now);
        }
      }
      case CONNECTING -> {
        if (now - attemptAt > config.connectTimeout().toMillis()) {
          fail(attempt, new HostFailureException(HostFailure.TIMEOUT, host + ": not streaming "
              + config.connectTimeout().toSeconds() + " s after connecting began"));
        }
      }
      case STREAMING -> {
        if (splitter.pending() && now - lastDataAt >= QUIET_MS) {
          splitter.finish();
        }
        if (now - lastDataAt > config.silentAfter().toMillis()) {
          fail(attempt, new HostFailureException(HostFailure.SILENT, host + ": nothing printed for "
              + (now - lastDataAt) / 1000 + " s"));
        } else if (now >= nextSchedulerAt) {
          readScheduler(now);
        }
        if (state == HostState.STREAMING && config.followsVmkernelLog() && !vmkernelRunning
            && now >= vmkernelRetryAt) {
          followVmkernelLog();
        }
      }
    }
  }

  /** Stops following the host. */
  synchronized void stop() {
    stopped = true;
    attempt++;
    closeConnection();
  }

  private void connect(long now) {
    int a = ++attempt;
    state = HostState.CONNECTING;
    attemptAt = now;
    healthy = false;
    shell.connect(host).whenComplete((c, e) -> connected(a, c, e));
  }

  private synchronized void connected(int a, HostShell.Connection c, Throwable e) {
    if (a != attempt || stopped) {
      if (c != null) {
        closer.execute(c::close);
      }
      return;
    }
    if (e != null) {
      fail(a, e);
      return;
    }
    connection = c;
    CompletableFuture<Void> ended = new CompletableFuture<>();
    ended.whenComplete((v, why) -> ended(a, why));
    c.stream(config.streamCommand(), line -> line(a, line), ended).whenComplete((v, why) -> started(a, why));
  }

  private synchronized void started(int a, Throwable e) {
    if (a != attempt || stopped) {
      return;
    }
    if (e != null) {
      fail(a, e);
    } else if (state == HostState.CONNECTING) {
      streaming();
    }
  }

  private void streaming() {
    state = HostState.STREAMING;
    lastDataAt = inputs.clock().millis();
    nextSchedulerAt = lastDataAt;
    vmkernelRunning = false;
    vmkernelRetryAt = lastDataAt;
    LOG.info("{}: streaming '{}'", host, config.streamCommand());
  }

  /**
   * Follows the host's vmkernel.log from its end, over the connection that carries the readings. Its lines are counted
   * from where the follow began. It is no part of the host's health: when it ends, the readings go on and it starts
   * again a {@link #VMKERNEL_RETRY} later.
   */
  private void followVmkernelLog() {
    int a = attempt;
    vmkernelRunning = true;
    vmkernelLines = 0;
    String file = host.name() + ":" + config.vmkernelCommand();
    vmkernel = new VmkernelLogParser(host.name(), file, (line, why) -> inputs.parseError(CollectorInput.VMKERNEL_LOG,
        new InputParseException(file, line, why)));
    CompletableFuture<Void> ended = new CompletableFuture<>();
    ended.whenComplete((v, why) -> vmkernelEnded(a, why));
    connection.stream(config.vmkernelCommand(), line -> vmkernelLine(a, line), ended).whenComplete((v, why) -> {
      if (why != null) {
        vmkernelEnded(a, why);
      }
    });
  }

  /** How long after the vmkernel.log follower ended it starts again. */
  static final Duration VMKERNEL_RETRY = Duration.ofSeconds(30);

  private synchronized void vmkernelLine(int a, String line) {
    if (a != attempt || stopped || vmkernel == null) {
      return;
    }
    for (VmotionBandwidth b : vmkernel.line(line, ++vmkernelLines)) {
      inputs.sample(CollectorInput.VMKERNEL_LOG, Topics.VMOTION_BANDWIDTH, b.vmotionId(), b, b.timestamp());
    }
  }

  private synchronized void vmkernelEnded(int a, Throwable why) {
    if (a != attempt || stopped || !vmkernelRunning) {
      return;
    }
    vmkernelRunning = false;
    vmkernelRetryAt = inputs.clock().millis() + VMKERNEL_RETRY.toMillis();
    LOG.warn("{}: '{}' ended{}; readings go on, and it starts again in {} s", host, config.vmkernelCommand(),
        why == null ? "" : ": " + why.getMessage(), VMKERNEL_RETRY.toSeconds());
  }

  private synchronized void ended(int a, Throwable e) {
    if (a == attempt && !stopped) {
      fail(a, e != null ? e : new HostFailureException(HostFailure.COMMAND_ENDED, host + ": the command ended"));
    }
  }

  private synchronized void line(int a, String line) {
    if (a != attempt || stopped) {
      return;
    }
    if (state == HostState.CONNECTING) {
      streaming();
    }
    lastDataAt = inputs.clock().millis();
    splitter.line(line);
  }

  private void block(VgpuBlockSplitter.Block b) {
    Instant received = inputs.clock().instant();
    NvidiaSmiVgpuSource.acceptBlock(b, host.name(), received, source, times, inputs, this::withScheduler);
    lastReadingAt = received.toEpochMilli();
    if (!healthy) {
      healthy = true;
      backoff.reset();
      if (lastFailure != null) {
        LOG.info("{}: reading again after {}", host, lastFailure.tag());
        lastFailure = null;
      }
    }
  }

  /** The scheduling policy from {@code vgpu -ss} where {@code vgpu -q} prints none. */
  private HostVgpuSample withScheduler(HostVgpuSample s) {
    if (s.schedulerPolicy() != null || s.gpuPciBusId() == null) {
      return s;
    }
    Map<String, String> fields = scheduler.get(s.gpuPciBusId().toLowerCase(Locale.ROOT));
    String policy = fields == null ? null : VgpuSchedulerState.policy(fields);
    return policy == null ? s : new HostVgpuSample(s.vmId(), s.hostname(), s.timestamp(), s.gpuPciBusId(),
        s.gpuName(), s.vmName(), s.vgpuInstanceId(), s.vgpuType(), s.vgpuProfile(), s.fbTotalMiB(), s.fbUsedMiB(),
        s.utilizationGpuPct(), s.utilizationMemoryPct(), policy, s.vmWorldId(), s.gpuInstanceId());
  }

  private void readScheduler(long now) {
    nextSchedulerAt = now + config.schedulerInterval().toMillis();
    int a = attempt;
    connection.capture(config.schedulerCommand(), SCHEDULER_MAX_BYTES).whenComplete((text, e) -> {
      if (e != null) {
        LOG.debug("{}: scheduler state not read: {}", host, e.getMessage());
        return;
      }
      Map<String, Map<String, String>> read = VgpuSchedulerState.parse(text);
      synchronized (this) {
        if (a == attempt && !Objects.equals(read, scheduler)) {
          scheduler = read;
          LOG.info("{}: vGPU scheduler state {}", host, read);
        }
      }
    });
  }

  private void fail(int a, Throwable e) {
    if (a != attempt || stopped) {
      return;
    }
    Throwable cause = e;
    while (!(cause instanceof HostFailureException) && cause != null && cause.getCause() != null) {
      cause = cause.getCause();
    }
    HostFailureException f = cause instanceof HostFailureException h ? h
        : new HostFailureException(HostFailure.UNREACHABLE, host + ": " + e, e);
    attempt++;
    closeConnection();
    splitter.discard();
    vmkernelRunning = false;
    metrics.failure(host.name(), f.reason());
    Duration wait = backoff.nextDelay();
    long jitter = ThreadLocalRandom.current().nextLong(wait.toMillis() / 5 + 1);
    retryAt = inputs.clock().millis() + wait.toMillis() + jitter;
    state = HostState.BACKOFF;
    if (f.reason() != lastFailure || LOG.isDebugEnabled()) {
      LOG.warn("{} [{}]; trying again in {} s", f.getMessage(), f.reason().tag(), (wait.toMillis() + jitter) / 1000);
    }
    lastFailure = f.reason();
  }

  private void closeConnection() {
    HostShell.Connection c = connection;
    connection = null;
    if (c != null) {
      closer.execute(c::close);
    }
  }
}
