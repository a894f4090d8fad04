package io.stunwatch.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Factories for {@link ConfigKey}s of the common types. Each parser's error message says what is allowed. */
public final class ConfigKeys {

  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private ConfigKeys() {
  }

  public static ConfigKey<String> string(String name, String defaultValue, String doc) {
    return new ConfigKey<>(name, "string", "a non-empty string", defaultValue, false, false, doc,
        ConfigKeys::nonEmpty);
  }

  /** A string without default: absent means "not configured". */
  public static ConfigKey<String> optionalString(String name, String doc) {
    return string(name, null, doc);
  }

  /** A secret: never printed, best given as a file through {@code <ENV>_FILE}. */
  public static ConfigKey<String> secret(String name, String doc) {
    return new ConfigKey<>(name, "secret", "a non-empty string", null, false, true, doc, ConfigKeys::nonEmpty);
  }

  public static ConfigKey<Integer> integer(String name, int defaultValue, int min, int max, String doc) {
    String allowed = "an integer in " + min + ".." + max;
    return new ConfigKey<>(name, "integer", allowed, defaultValue, false, false, doc, raw -> {
      int v;
      try {
        v = Integer.parseInt(raw);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("must be " + allowed);
      }
      if (v < min || v > max) {
        throw new IllegalArgumentException("must be " + allowed);
      }
      return v;
    });
  }

  /** A TCP port; 0 means "any free port". */
  public static ConfigKey<Integer> port(String name, int defaultValue, String doc) {
    return integer(name, defaultValue, 0, 65535, doc);
  }

  public static ConfigKey<Boolean> bool(String name, boolean defaultValue, String doc) {
    return new ConfigKey<>(name, "boolean", "true or false", defaultValue, false, false, doc, raw -> {
      return switch (raw.toLowerCase(Locale.ROOT)) {
        case "true", "yes", "1", "on" -> true;
        case "false", "no", "0", "off" -> false;
        default -> throw new IllegalArgumentException("must be true or false");
      };
    });
  }

  public static ConfigKey<Path> path(String name, Path defaultValue, String doc) {
    return new ConfigKey<>(name, "path", "a file system path", defaultValue, false, false, doc, raw -> {
      try {
        return Path.of(nonEmpty(raw));
      } catch (InvalidPathException e) {
        throw new IllegalArgumentException("must be a valid path: " + e.getReason());
      }
    });
  }

  /** A duration written {@code 250ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d} or ISO-8601 {@code PT30S}. */
  public static ConfigKey<Duration> duration(String name, Duration defaultValue, Duration min, Duration max,
      String doc) {
    String allowed = "a duration from " + format(min) + " to " + format(max) + " (e.g. 500ms, 30s, 5m, 2h, 7d)";
    return new ConfigKey<>(name, "duration", allowed, defaultValue, false, false, doc, raw -> {
      Duration d = parseDuration(raw, allowed);
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new IllegalArgumentException("must be " + allowed);
      }
      return d;
    });
  }

  public static <E extends Enum<E>> ConfigKey<E> enumeration(String name, Class<E> type, E defaultValue,
      String doc) {
    List<String> names = Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.toList());
    String allowed = "one of " + String.join(", ", names);
    return new ConfigKey<>(name, "enum", allowed, defaultValue, false, false, doc, raw -> {
      for (E e : type.getEnumConstants()) {
        if (e.name().equalsIgnoreCase(raw.replace('-', '_'))) {
          return e;
        }
      }
      throw new IllegalArgumentException("must be " + allowed);
    });
  }

  /**
   * A family of keys {@code <base>.<property>}, each handed on as {@code <property>=<value>} to a library that
   * validates it (the Kafka clients): read them with {@link ConfigSource#family}.
   */
  public static ConfigKey<String> family(String base, String doc) {
    return new ConfigKey<>(base, "property", "a property of the library", null, false, false, doc, s -> s, true);
  }

  /** Any type with a custom parser; its exceptions' messages must say what is allowed. */
  public static <T> ConfigKey<T> custom(String name, String type, String allowed, T defaultValue, String doc,
      Function<String, T> parser) {
    return new ConfigKey<>(name, type, allowed, defaultValue, false, false, doc, parser);
  }

  /** Renders a duration the way the parser reads it. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 86_400_000L == 0 && ms > 0) {
      return ms / 86_400_000L + "d";
    }
    if (ms % 3_600_000L == 0 && ms > 0) {
      return ms / 3_600_000L + "h";
    }
    if (ms % 60_000L == 0 && ms > 0) {
      return ms / 60_000L + "m";
    }
    if (ms % 1000L == 0) {
      return ms / 1000L + "s";
    }
    return ms + "ms";
  }

  /**
   * A duration as every key and command-line option takes it: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h},
   * {@code 7d}, or ISO-8601 ({@code PT1M30S}).
   *
   * @throws IllegalArgumentException saying what is allowed
   */
  public static Duration parseDuration(String raw) {
    return parseDuration(raw, "a duration such as 500ms, 30s, 5m, 2h, 7d or ISO-8601 PT1M30S");
  }

  private static Duration parseDuration(String raw, String allowed) {
    Matcher m = DURATION.matcher(raw.toLowerCase(Locale.ROOT));
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    }
    try {
      return Duration.parse(raw);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("must be " + allowed);
    }
  }

  private static String nonEmpty(String raw) {
    if (raw.isEmpty()) {
      throw new IllegalArgumentException("must not be empty");
    }
    return raw;
  }
}
