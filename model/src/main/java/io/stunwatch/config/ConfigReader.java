package io.stunwatch.config;

import io.stunwatch.config.ConfigException.Problem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads typed values from a {@link ConfigSource} and collects every problem, so that a typed config record can be
 * built in one pass and validated once: read every key, add cross-field checks, then call {@link #done()}.
 *
 * <pre>{@code
 * ConfigReader r = source.reader();
 * int port = r.get(PORT);
 * Path dir = r.get(DATA_DIR);
 * r.done(); // throws ConfigException listing every problem
 * return new BrokerConfig(port, dir);
 * }</pre>
 */
public final class ConfigReader {

  private final ConfigSource source;
  private final List<Problem> problems;
  private final Map<String, String> effective = new LinkedHashMap<>();

  ConfigReader(ConfigSource source, List<Problem> loadProblems) {
    this.source = source;
    this.problems = new ArrayList<>(loadProblems);
  }

  /**
   * The value of {@code key}: its parsed raw value, else its default. A bad or missing required value is recorded
   * and the default (possibly null) is returned, so reading can go on and report everything at once.
   */
  public <T> T get(ConfigKey<T> key) {
    Optional<ConfigSource.Raw> raw;
    try {
      raw = source.raw(key);
    } catch (ConfigException e) {
      problems.addAll(e.problems());
      return key.defaultValue();
    }
    if (raw.isEmpty()) {
      if (key.required()) {
        problems.add(new Problem(key.name(), null, null, "is required; set it in the config file or as "
            + key.envName() + (key.secret() ? " or " + key.envName() + ConfigSource.FILE_SUFFIX : "")));
      }
      effective.put(key.name(), key.defaultValue() == null ? "(unset)" : display(key, key.defaultValue()) + " (default)");
      return key.defaultValue();
    }
    String value = raw.get().value();
    try {
      T parsed = key.parse(value);
      effective.put(key.name(), display(key, parsed) + " (" + raw.get().origin() + ")");
      return parsed;
    } catch (IllegalArgumentException e) {
      problems.add(new Problem(key.name(), key.secret() ? "****" : redactUserInfo(value), raw.get().origin(),
          e.getMessage()));
      return key.defaultValue();
    }
  }

  /** Records a problem with a value read outside {@link #get} (a family member), naming where it came from. */
  public ConfigReader problem(String name, String value, String origin, String reason) {
    problems.add(new Problem(name, value, origin, reason));
    return this;
  }

  /** Records a cross-field problem when {@code ok} is false. */
  public ConfigReader check(boolean ok, ConfigKey<?> key, String reason) {
    if (!ok) {
      problems.add(new Problem(key.name(), null, null, reason));
    }
    return this;
  }

  /**
   * Ends reading.
   *
   * @throws ConfigException listing every problem found, if any
   */
  public void done() {
    if (!problems.isEmpty()) {
      throw new ConfigException(problems);
    }
  }

  /** The effective value and origin of every key read so far, secrets masked: for {@code stunwatch config show}. */
  public Map<String, String> effective() {
    return Map.copyOf(effective);
  }

  /** A value echoed in an error never shows the credentials of a URL ({@code https://user:pass@host}). */
  static String redactUserInfo(String value) {
    return value.replaceAll("([A-Za-z][A-Za-z0-9+.-]*://)[^/@\\s]+@", "$1****@");
  }

  private static String display(ConfigKey<?> key, Object value) {
    if (key.secret()) {
      return "****";
    }
    return value instanceof Duration d ? ConfigKeys.format(d) : String.valueOf(value);
  }
}
