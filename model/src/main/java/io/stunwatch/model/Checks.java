package io.stunwatch.model;

import java.util.List;
import java.util.Map;

/** Argument checks for record constructors; messages name the field, because they reach operators verbatim. */
public final class Checks {

  private Checks() {
  }

  public static <T> T required(T value, String field) {
    if (value == null) {
      throw new IllegalArgumentException(field + " is required");
    }
    return value;
  }

  public static String requiredText(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " is required and must not be blank");
    }
    return value;
  }

  /** A nullable measurement that, when known, must lie in [min, max] and be finite. */
  public static Double range(Double value, double min, double max, String field) {
    if (value != null && (value.isNaN() || value < min || value > max)) {
      throw new IllegalArgumentException(field + " must be in [" + min + ", " + max + "] or absent, was " + value);
    }
    return value;
  }

  /** A nullable quantity that, when known, must not be negative. */
  public static Long nonNegative(Long value, String field) {
    if (value != null && value < 0) {
      throw new IllegalArgumentException(field + " must not be negative, was " + value);
    }
    return value;
  }

  /** A nullable quantity that, when known, must be finite and not negative. */
  public static Double nonNegative(Double value, String field) {
    if (value != null && (value.isNaN() || value.isInfinite() || value < 0)) {
      throw new IllegalArgumentException(field + " must be a finite non-negative number, was " + value);
    }
    return value;
  }

  public static <T> List<T> list(List<T> value) {
    return value == null ? List.of() : List.copyOf(value);
  }

  public static <K, V> Map<K, V> map(Map<K, V> value) {
    return value == null ? Map.of() : Map.copyOf(value);
  }
}
