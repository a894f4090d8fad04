package io.stunwatch.launcher;

import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/** The {@code --config FILE} option every component command has, and the loading of the layered configuration. */
public final class ConfigOption {

  private static final Logger LOG = LoggerFactory.getLogger(ConfigOption.class);

  @Option(names = "--config", paramLabel = "FILE",
      description = "Config file of key=value lines (see docs/configuration.md). Default: $"
          + ConfigSource.CONFIG_FILE_ENV + ", else none. Environment variables STUNWATCH_* override it.")
  Path file;

  /**
   * Loads defaults, the file and the environment, applies the log levels, and logs any warnings. Values are
   * validated when the component's config records are built.
   */
  ConfigSource load(LaunchContext ctx) {
    Optional<Path> path = Optional.ofNullable(file)
        .or(() -> Optional.ofNullable(ctx.env().get(ConfigSource.CONFIG_FILE_ENV)).map(Path::of));
    ConfigSource source = ConfigSource.load(path, ctx.env(), ConfigCatalog.ALL);
    LoggingConfig.from(source).apply();
    source.warnings().forEach(LOG::warn);
    return source;
  }
}
