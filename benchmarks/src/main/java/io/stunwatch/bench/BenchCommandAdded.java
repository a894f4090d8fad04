package io.stunwatch.bench;

import io.stunwatch.launcher.AddedCommand;

/**
 * Adds {@code bench} to the {@code stunwatch} command line when this module is on the class path, as
 * {@code ./stunwatch bench} puts it (META-INF/services).
 */
public final class BenchCommandAdded implements AddedCommand {

  @Override
  public Class<?> command() {
    return BenchCommand.class;
  }
}
