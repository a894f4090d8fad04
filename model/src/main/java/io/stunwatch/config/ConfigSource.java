package io.stunwatch.config;

import io.stunwatch.config.ConfigException.Problem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Raw configuration values with their origins, layered: a key's default, then the config file, then the
 * environment, then command-line overrides; the later wins.
 *
 * <p>The file holds one {@code key=value} per line; blank lines and lines starting with {@code #} or {@code !} are
 * ignored. A key {@code a.b} is read from the environment as {@code STUNWATCH_A_B}, or from the file named by
 * {@code STUNWATCH_A_B_FILE} (its content, trimmed), which is how secrets should be passed.
 *
 * <p>Values are parsed only through a {@link ConfigReader}, which collects every problem and fails once.
 */
public final class ConfigSource {

  /** Environment variable naming the config file, when {@code --config} is not given. */
  public static final String CONFIG_FILE_ENV = "STUNWATCH_CONFIG";
  /** Suffix of an environment variable that names a file holding the value. */
  public static final String FILE_SUFFIX = "_FILE";

  private final Map<String, Raw> file;
  private final Map<String, String> env;
  private final Map<String, Raw> overrides;
  private final List<Problem> loadProblems;
  private final List<String> warnings;

  private ConfigSource(Map<String, Raw> file, Map<String, String> env, Map<String, Raw> overrides,
      List<Problem> loadProblems, List<String> warnings) {
    this.file = file;
    this.env = env;
    this.overrides = overrides;
    this.loadProblems = loadProblems;
    this.warnings = warnings;
  }

  /**
   * Loads the file (if any) and captures the environment. Syntax errors and unknown keys in the file are recorded
   * as problems and reported by {@link ConfigReader#done()}; unknown {@code STUNWATCH_} variables become warnings.
   *
   * @param configFile the config file, or empty for none
   * @param env        the environment, usually {@code System.getenv()}
   * @param known      every key the application knows; empty to skip the unknown-key check
   */
  public static ConfigSource load(Optional<Path> configFile, Map<String, String> env,
      Collection<ConfigKey<?>> known) {
    List<Problem> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<String, Raw> file = new LinkedHashMap<>();
    Set<String> knownNames = known.stream().filter(k -> !k.family()).map(ConfigKey::name)
        .collect(Collectors.toSet());
    List<String> prefixes = known.stream().filter(ConfigKey::family).map(ConfigKey::prefix).toList();
    List<String> envPrefixes = known.stream().filter(ConfigKey::family).map(ConfigKey::envPrefix).toList();
    configFile.ifPresent(path -> readFile(path, file, knownNames, prefixes, problems));
    if (!knownNames.isEmpty()) {
      Set<String> knownEnv = known.stream()
          .flatMap(k -> Stream.of(k.envName(), k.envName() + FILE_SUFFIX))
          .collect(Collectors.toSet());
      env.keySet().stream()
          .filter(n -> n.startsWith(ConfigKey.ENV_PREFIX) && !knownEnv.contains(n) && !n.equals(CONFIG_FILE_ENV)
              && envPrefixes.stream().noneMatch(n::startsWith)
              && !n.equals("STUNWATCH_STRICT") && !n.equals("STUNWATCH_JAVA_OPTS"))
          .sorted()
          .forEach(n -> warnings.add("environment variable " + n + " is not a Stunwatch setting; ignored"));
    }
    return new ConfigSource(file, Map.copyOf(env), new HashMap<>(), problems, warnings);
  }

  /** A source with just these values (origin {@code "given"}): for tests and embedding. */
  public static ConfigSource of(Map<String, String> values) {
    Map<String, Raw> file = new LinkedHashMap<>();
    values.forEach((k, v) -> file.put(k, new Raw(v, "given")));
    return new ConfigSource(file, Map.of(), new HashMap<>(), new ArrayList<>(), new ArrayList<>());
  }

  /** Overrides a key from the command line; {@code origin} names the flag, e.g. {@code --port}. */
  public ConfigSource override(ConfigKey<?> key, Object value, String origin) {
    if (value != null) {
      overrides.put(key.name(), new Raw(String.valueOf(value), origin));
    }
    return this;
  }

  /** A reader that parses values from this source and collects problems. */
  public ConfigReader reader() {
    return new ConfigReader(this, loadProblems);
  }

  /** Warnings found while loading (not errors). */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }

  /**
   * The raw value of a key and where it came from, or empty when only the default applies.
   *
   * @throws ConfigException when the key's {@code _FILE} variable names an unreadable file
   */
  Optional<Raw> raw(ConfigKey<?> key) {
    Raw o = overrides.get(key.name());
    if (o != null) {
      return Optional.of(o);
    }
    String fileVar = key.envName() + FILE_SUFFIX;
    String valueFile = env.get(fileVar);
    if (valueFile != null) {
      try {
        return Optional.of(new Raw(Files.readString(Path.of(valueFile), StandardCharsets.UTF_8).trim(),
            "file " + valueFile + " named by env " + fileVar));
      } catch (IOException | RuntimeException e) {
        throw new ConfigException(List.of(new Problem(key.name(), null, "env " + fileVar,
            "cannot read " + valueFile + ": " + e.getMessage())));
      }
    }
    String e = env.get(key.envName());
    if (e != null) {
      return Optional.of(new Raw(e, "env " + key.envName()));
    }
    return Optional.ofNullable(file.get(key.name()));
  }

  /**
   * The members of a family key ({@link ConfigKeys#family}) by property: {@code <prefix><property>} of the file,
   * then {@code <envPrefix><PROPERTY>} of the environment (its '_' read as '.', as in every Kafka client property).
   */
  public Map<String, Raw> family(ConfigKey<?> family) {
    Map<String, Raw> out = new TreeMap<>();
    file.forEach((k, v) -> {
      if (k.startsWith(family.prefix()) && k.length() > family.prefix().length()) {
        out.put(k.substring(family.prefix().length()), v);
      }
    });
    env.forEach((k, v) -> {
      if (k.startsWith(family.envPrefix()) && k.length() > family.envPrefix().length()) {
        out.put(k.substring(family.envPrefix().length()).toLowerCase(Locale.ROOT).replace('_', '.'),
            new Raw(v, "env " + k));
      }
    });
    overrides.forEach((k, v) -> {
      if (k.startsWith(family.prefix())) {
        out.put(k.substring(family.prefix().length()), v);
      }
    });
    return out;
  }

  private static void readFile(Path path, Map<String, Raw> out, Set<String> known, List<String> prefixes,
      List<Problem> problems) {
    List<String> lines;
    try {
      lines = Files.readAllLines(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      problems.add(new Problem(path.toString(), null, null, "cannot read config file: " + e));
      return;
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      String where = path + ":" + (i + 1);
      if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        problems.add(new Problem(where, null, null, "expected key=value, found '" + line + "'"));
        continue;
      }
      String key = line.substring(0, eq).strip();
      String value = line.substring(eq + 1).strip();
      if (!known.isEmpty() && !known.contains(key) && prefixes.stream().noneMatch(key::startsWith)) {
        problems.add(new Problem(key, null, where, "unknown key" + suggestion(key, known)));
        continue;
      }
      if (out.containsKey(key)) {
        problems.add(new Problem(key, null, where, "set twice (also at " + out.get(key).origin() + ")"));
        continue;
      }
      out.put(key, new Raw(value, where));
    }
  }

  private static String suggestion(String key, Set<String> known) {
    return known.stream()
        .min(Comparator.comparingInt(k -> distance(k, key)))
        .filter(k -> distance(k, key) <= 3)
        .map(k -> "; did you mean '" + k + "'?")
        .orElse("");
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** A raw value and where it came from. */
  public record Raw(String value, String origin) {
  }
}
