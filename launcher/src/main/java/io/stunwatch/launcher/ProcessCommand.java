package io.stunwatch.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code stunwatch process}: the Kafka Streams correlation topology (issue #5). */
@Command(name = "process", mixinStandardHelpOptions = true,
    description = "Run the stream processor: per-migration impact records, under-load alerts, stun-time model.")
final class ProcessCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  ProcessCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    return NotBuilt.report(ctx, "process", 5, "The stream processor");
  }
}
