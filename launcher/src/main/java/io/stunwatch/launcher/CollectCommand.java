package io.stunwatch.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
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

  /** {@code stunwatch collect worker} (issue #3). */
  @Command(name = "worker", mixinStandardHelpOptions = true,
      description = "Collect nvidia-smi, host vGPU, RDMA counters and training throughput on a GPU worker.")
  static final class Worker implements Callable<Integer> {
    private final LaunchContext ctx;

    Worker(LaunchContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      return NotBuilt.report(ctx, "collect worker", 3, "The worker collector");
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
