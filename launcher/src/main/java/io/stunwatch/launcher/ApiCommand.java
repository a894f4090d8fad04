package io.stunwatch.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code stunwatch api}: the Vert.x HTTP API and Prometheus metrics (issue #6). */
@Command(name = "api", mixinStandardHelpOptions = true,
    description = "Serve migration history, stats, forecasts, Grafana annotations and /metrics over HTTP.")
final class ApiCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  ApiCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    return NotBuilt.report(ctx, "api", 6, "The HTTP API");
  }
}
