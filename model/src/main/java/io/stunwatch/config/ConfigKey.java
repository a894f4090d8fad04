package io.stunwatch.config;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key: its name, type, default, what values are allowed, and its documentation. Keys are declared
 * as constants next to the typed config record that reads them, and listed in the launcher's catalog, which
 * generates {@code docs/configuration.md}.
 *
 * <p>Every key {@code a.b-c} can be set in the config file as {@code a.b-c=VALUE} or in the environment as
 * {@link #envName()} {@code STUNWATCH_A_B_C}. A secret key (a password, a token) is never printed; it is best given
 * as a file through {@code <envName>_FILE}.
 *
 * @param <T> the parsed type
 */
public final class ConfigKey<T> {

  /** Prefix of every environment variable the application reads. */
  public static final String ENV_PREFIX = "STUNWATCH_";

  private final String name;
  private final String type;
  private final String allowed;
  private final T defaultValue;
  private final boolean required;
  private final boolean secret;
  private final String doc;
  private final Function<String, T> parser;
  private final boolean family;

  ConfigKey(String name, String type, String allowed, T defaultValue, boolean required, boolean secret, String doc,
      Function<String, T> parser) {
    this(name, type, allowed, defaultValue, required, secret, doc, parser, false);
  }

  ConfigKey(String name, String type, String allowed, T defaultValue, boolean required, boolean secret, String doc,
      Function<String, T> parser, boolean family) {
    if (!name.matches("[a-z][a-z0-9]*(?:[.-][a-z0-9]+)*")) {
      throw new IllegalArgumentException("config key names are lower-case words joined by '.' or '-': " + name);
    }
    this.name = name;
    this.type = Objects.requireNonNull(type);
    this.allowed = Objects.requireNonNull(allowed);
    this.defaultValue = defaultValue;
    this.required = required;
    this.secret = secret;
    this.doc = Objects.requireNonNull(doc);
    this.parser = Objects.requireNonNull(parser);
    this.family = family;
  }

  /** The key's name; a family's is {@code <prefix><property>}. */
  public String name() {
    return family ? prefix() + "<property>" : name;
  }

  /**
   * Whether this stands for a family of keys, {@code <prefix><property>}, each passed on as {@code <property>}
   * (read them with {@link ConfigSource#family}).
   */
  public boolean family() {
    return family;
  }

  /** The prefix of a family's keys, {@code kafka.client.}. */
  public String prefix() {
    return name + ".";
  }

  /**
   * {@code STUNWATCH_} followed by the name in upper case, with '.' and '-' turned into '_'; a family's members are
   * {@code <that>_<PROPERTY>}, the property's dots written as '_'.
   */
  public String envName() {
    return family ? envNameOf(name) + "_<PROPERTY>" : envNameOf(name);
  }

  /** The prefix of a family's environment variables, {@code STUNWATCH_KAFKA_CLIENT_}. */
  public String envPrefix() {
    return envNameOf(name) + "_";
  }

  /** The environment variable name of a key name. */
  public static String envNameOf(String keyName) {
    return ENV_PREFIX + keyName.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  public String type() {
    return type;
  }

  /** A short description of the allowed values, used in errors: "an integer in 0..65535". */
  public String allowed() {
    return allowed;
  }

  /** The default; null when the key has none (optional and unset, or required). */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean required() {
    return required;
  }

  public boolean secret() {
    return secret;
  }

  public String doc() {
    return doc;
  }

  /**
   * Parses a raw value.
   *
   * @throws IllegalArgumentException when the value is not allowed
   */
  public T parse(String raw) {
    return parser.apply(raw.trim());
  }

  /** A copy of this key with another default. */
  public ConfigKey<T> withDefault(T value) {
    return new ConfigKey<>(name, type, allowed, value, false, secret, doc, parser, family);
  }

  @Override
  public String toString() {
    return name();
  }
}
