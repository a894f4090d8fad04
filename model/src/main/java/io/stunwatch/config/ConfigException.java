package io.stunwatch.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The configuration is invalid. Lists every problem found, each with the key, the offending value (masked for
 * secrets), where it came from, and what is allowed, so that one start-up attempt reports them all.
 */
public final class ConfigException extends RuntimeException {

  private final List<Problem> problems;

  public ConfigException(List<Problem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }

  private static String render(List<Problem> problems) {
    return "invalid configuration:" + problems.stream().map(p -> "\n  - " + p).collect(Collectors.joining());
  }

  /**
   * One bad setting.
   *
   * @param key    the key name, or the file location for a syntax error
   * @param value  the value as given, already masked when secret; null when missing
   * @param origin where the value came from: {@code env STUNWATCH_BROKER_PORT}, {@code stunwatch.properties:3},
   *               {@code --port}
   * @param reason what is wrong and what is allowed
   */
  public record Problem(String key, String value, String origin, String reason) {
    @Override
    public String toString() {
      return key + (value == null ? "" : " = '" + value + "'") + (origin == null ? "" : " (from " + origin + ")")
          + ": " + reason;
    }
  }
}
