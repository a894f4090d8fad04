package io.stunwatch.launcher;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code stunwatch version}. */
@Command(name = "version", mixinStandardHelpOptions = true,
    description = "Print the Stunwatch, Java and Kafka versions.")
final class VersionCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  VersionCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    for (String line : new BuildInfo().getVersion()) {
      ctx.out().println(line);
    }
    ctx.out().flush();
    return ExitCodes.OK;
  }
}
