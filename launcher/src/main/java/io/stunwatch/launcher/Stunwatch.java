package io.stunwatch.launcher;

import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.config.ConfigException;
import io.stunwatch.config.ConfigKeys;
import java.lang.reflect.Constructor;
import java.time.Duration;
import java.util.ServiceLoader;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code stunwatch} command: one subcommand per component, each of which can be started alone.
 *
 * <p>Exit statuses are in {@link ExitCodes}. A configuration error is reported as one message listing every bad
 * key, without a stack trace.
 */
@Command(name = "stunwatch",
    mixinStandardHelpOptions = true,
    versionProvider = BuildInfo.class,
    description = {
        "Watches vMotion live migrations of GPU VMs and shows what each one did to the workload.", ""},
    subcommands = {
        DemoCommand.class,
        BrokerCommand.class,
        CollectCommand.class,
        ReplayCommand.class,
        ProcessCommand.class,
        ApiCommand.class,
        TailCommand.class,
        PlanCommand.class,
        GuardCommand.class,
        ConfigCommand.class,
        VersionCommand.class,
        CommandLine.HelpCommand.class},
    footer = {"", "Run 'stunwatch COMMAND --help' for the options of a command."})
public final class Stunwatch implements Runnable {

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    System.exit(execute(LaunchContext.system(), args));
  }

  /** Runs the command line in-process and returns its exit status. */
  public static int execute(LaunchContext ctx, String... args) {
    CommandLine cl = commandLine(ctx);
    return cl.execute(args);
  }

  /** The configured picocli command line; commands get {@code ctx} through their constructor. */
  static CommandLine commandLine(LaunchContext ctx) {
    CommandLine cl = new CommandLine(Stunwatch.class, new ContextFactory(ctx));
    // before the converters and handlers below, which picocli gives the subcommands added so far
    for (AddedCommand added : ServiceLoader.load(AddedCommand.class)) {
      cl.addSubcommand(new CommandLine(added.command(), new ContextFactory(ctx)));
    }
    // Durations read as in configuration files: 30s, 5m, 2h (and ISO-8601).
    cl.registerConverter(Duration.class, ConfigKeys::parseDuration);
    // Enum values in any case, as in configuration files; kinds also with '-' for '_' (vgpu-query).
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.registerConverter(ReplayKind.class, ReplayKind::parse);
    cl.setOut(ctx.out());
    cl.setErr(ctx.err());
    // Parse errors, and ParameterExceptions thrown by commands, exit with picocli's exitCodeOnInvalidInput (2).
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof ConfigException) {
        commandLine.getErr().println("stunwatch " + commandLine.getCommandName() + ": " + e.getMessage());
        return ExitCodes.USAGE;
      }
      commandLine.getErr().println("stunwatch " + commandLine.getCommandName() + ": " + e.getMessage());
      LoggerFactory.getLogger(Stunwatch.class).debug("Command failed", e);
      return ExitCodes.FAILED;
    });
    return cl;
  }

  /** Creates commands and mixins, giving those that want it the {@link LaunchContext}. */
  private record ContextFactory(LaunchContext ctx) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      try {
        Constructor<K> c = cls.getDeclaredConstructor(LaunchContext.class);
        c.setAccessible(true);
        return c.newInstance(ctx);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(cls);
      }
    }
  }
}
