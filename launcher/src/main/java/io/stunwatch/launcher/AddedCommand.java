package io.stunwatch.launcher;

/**
 * A command that is not in the product jar, found on the class path with {@link java.util.ServiceLoader}: the
 * benchmarks ({@code ./stunwatch bench}, module {@code benchmarks}) run from a clone and are never shipped. It is
 * built as the product's commands are: through a constructor that takes the {@link LaunchContext}, if it has one, and
 * with the same converters and error handling.
 */
public interface AddedCommand {

  /** The picocli command class. */
  Class<?> command();
}
