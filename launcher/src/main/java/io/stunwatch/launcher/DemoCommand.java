package io.stunwatch.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code stunwatch demo}: the embedded broker, processor, API and a simulated fleet (issue #7). */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Run a complete site on this machine: embedded Kafka broker, processor, API, and a simulated "
        + "fleet of GPU VMs and a vCenter that migrates them.")
final class DemoCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  DemoCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    return NotBuilt.report(ctx, "demo", 7, "The demo (simulated fleet, processor and API on the embedded broker)");
  }
}
