package io.stunwatch.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The values of a fixed set of {@link ConfigKey}s, each of its key's type: read once ({@link #read}), then asked by
 * key ({@link #get}). Immutable; {@link #with} gives a copy with one value changed. A key's value only ever comes
 * from the key itself (its parser or default, through {@link ConfigReader}) or from {@link #with}, which takes a
 * {@code T} for a {@code ConfigKey<T>}: so {@link #get} returns the key's type without its callers casting.
 */
public final class ConfigValues {

  /** The keys, as a set: {@link #get} is asked on paths a record takes, and a key hashes by identity. */
  private final Set<ConfigKey<?>> keys;
  private final Map<ConfigKey<?>, Object> values;

  private ConfigValues(Set<ConfigKey<?>> keys, Map<ConfigKey<?>, Object> values) {
    this.keys = keys;
    this.values = Map.copyOf(values);
  }

  /** Reads every key of {@code keys} from {@code reader} (which validates each, and reports all at its end). */
  public static ConfigValues read(ConfigReader reader, List<ConfigKey<?>> keys) {
    Map<ConfigKey<?>, Object> values = new HashMap<>();
    for (ConfigKey<?> k : keys) {
      Object v = reader.get(k);
      if (v != null) {
        values.put(k, v);
      }
    }
    return new ConfigValues(Set.copyOf(keys), values);
  }

  /**
   * The value of {@code key}; null for an optional key that is not set.
   *
   * @throws IllegalArgumentException when {@code key} is not one of these values' keys
   */
  @SuppressWarnings("unchecked") // a key's value is of its type: see the class comment
  public <T> T get(ConfigKey<T> key) {
    if (!keys.contains(key)) {
      throw new IllegalArgumentException(key.name() + " is not one of " + keys.stream().map(ConfigKey::name)
          .toList());
    }
    return (T) values.get(key);
  }

  /** A copy with {@code key} set to {@code value} (null: unset). */
  public <T> ConfigValues with(ConfigKey<T> key, T value) {
    get(key);
    Map<ConfigKey<?>, Object> next = new HashMap<>(values);
    if (value == null) {
      next.remove(key);
    } else {
      next.put(key, value);
    }
    return new ConfigValues(keys, next);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConfigValues c && values.equals(c.values) && keys.equals(c.keys);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keys, values);
  }

  /** The values by key name; a secret key's value is never shown. */
  @Override
  public String toString() {
    Map<String, String> shown = new TreeMap<>();
    values.forEach((k, v) -> shown.put(k.name(), k.secret() ? "(secret)" : String.valueOf(v)));
    return shown.toString();
  }
}
