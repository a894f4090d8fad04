package io.stunwatch.launcher;

import io.stunwatch.collectors.worker.CollectorMetrics;
import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.collectors.worker.WorkerCollector;
import io.stunwatch.collectors.worker.WorkerConfig;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.metrics.DropReason;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code stunwatch collect worker|vcenter}. */
@Command(name = "collect", mixinStandardHelpOptions = true,
    description = "Run a collector that publishes to Kafka.",
    subcommands = {CollectCommand.Worker.class, CollectCommand.Vcenter.class})
final class CollectCommand implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "missing collector: worker or vcenter");
  }

  /** {@code stunwatch collect worker}. */
  @Command(name = "worker", mixinStandardHelpOptions = true,
      description = {"Collect nvidia-smi GPU samples and -q -x snapshots, host vGPU (nvidia-smi vgpu -q), RDMA "
          + "counters and training throughput on a GPU VM, bare-metal worker or hypervisor host, and publish them "
          + "to Kafka. Runs until stopped.",
          "With --replay, publishes a recorded file or directory instead, through the same parsers, and exits."})
  static final class Worker implements Callable<Integer> {
    private final LaunchContext ctx;

    @Mixin
    ConfigOption config;

    @Option(names = "--vm-id", paramLabel = "UUID", description = "The VM's config.uuid, overriding "
        + "/sys/class/dmi/id/product_uuid (worker.vm-id).")
    String vmId;

    @Option(names = "--hostname", description = "Hostname on the samples (worker.hostname).")
    String hostname;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
        description = "Kafka brokers (kafka.bootstrap-servers).")
    String bootstrapServers;

    @Option(names = "--metrics-port", description = "Port of /metrics, 0 for none (worker.metrics-port).")
    Integer metricsPort;

    @Option(names = "--replay", paramLabel = "FILE|DIR",
        description = "Publish a recording and exit: nvidia-smi CSV with header, -q -x XML, vgpu -q text, a sysfs "
            + "RDMA tree, or a training log; a directory replays each file in name order.")
    Path replay;

    @Option(names = "--replay-as", paramLabel = "KIND",
        description = "Kind of the replayed files instead of detecting it: ${COMPLETION-CANDIDATES}.")
    ReplayKind replayAs;

    Worker(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
      ConfigSource source = config.load(ctx)
          .override(WorkerConfig.VM_ID, vmId, "--vm-id")
          .override(WorkerConfig.HOSTNAME, hostname, "--hostname")
          .override(KafkaClientConfig.BOOTSTRAP_SERVERS, bootstrapServers, "--bootstrap-servers")
          .override(WorkerConfig.METRICS_PORT, metricsPort, "--metrics-port");
      WorkerCollector.Settings settings = WorkerCollector.Settings.from(source);
      if (replay != null) {
        CollectorMetrics m = WorkerCollector.replay(settings, replay, Optional.ofNullable(replayAs), ctx.clock());
        for (CollectorInput input : CollectorInput.values()) {
          long read = m.readCount(input);
          long errors = m.parseErrorCount(input);
          if (read + errors > 0) {
            ctx.out().println(input.tag() + ": " + read + " read, " + m.sentCount(input) + " sent, " + errors
                + " unparsable, " + dropped(m, input) + " dropped");
          }
        }
        ctx.out().flush();
        return ExitCodes.OK;
      }
      WorkerCollector collector = WorkerCollector.start(settings, ctx.clock());
      ctx.out().println("Worker collector running; Ctrl-C to stop.");
      ctx.out().flush();
      UntilStopped.await(collector, Duration.ofSeconds(30)); // let buffered samples go out before the JVM halts
      return ExitCodes.OK;
    }

    private static long dropped(CollectorMetrics m, CollectorInput input) {
      long n = 0;
      for (DropReason r : DropReason.values()) {
        n += m.droppedCount(input, r);
      }
      return n;
    }
  }

  /** {@code stunwatch collect vcenter} (issue #4). */
  @Command(name = "vcenter", mixinStandardHelpOptions = true,
      description = "Collect migration events, tasks, inventory and vmware.log stun times from vCenter.")
  static final class Vcenter implements Callable<Integer> {
    private final LaunchContext ctx;

    Vcenter(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      return NotBuilt.report(ctx, "collect vcenter", 4, "The vCenter collector");
    }
  }
}
