package io.stunwatch.api;

import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed, validated query parameters. Every getter throws {@link ApiException#badParameter} with the parameter's
 * name and what was wrong, so a bad request is always a 400 naming it, never a 500.
 */
final class Params {

  static final int MAX_TEXT = 256;

  private final RoutingContext rc;

  Params(RoutingContext rc) {
    this.rc = rc;
  }

  /** A single-valued text parameter, or null; control characters and overlong values are refused. */
  String text(String name) {
    List<String> all = rc.queryParam(name);
    if (all.isEmpty()) {
      return null;
    }
    if (all.size() > 1) {
      throw ApiException.badParameter(name, "given " + all.size() + " times; give it once");
    }
    String v = all.get(0);
    if (v.length() > MAX_TEXT) {
      throw ApiException.badParameter(name, "longer than " + MAX_TEXT + " characters");
    }
    for (int i = 0; i < v.length(); i++) {
      if (Character.isISOControl(v.charAt(i))) {
        throw ApiException.badParameter(name, "contains a control character");
      }
    }
    return v.isEmpty() ? null : v;
  }

  /** One of {@code allowed} (case-insensitive), or {@code dflt}. */
  String choice(String name, Set<String> allowed, String dflt) {
    String v = text(name);
    if (v == null) {
      return dflt;
    }
    String lower = v.toLowerCase(Locale.ROOT);
    if (!allowed.contains(lower)) {
      throw ApiException.badParameter(name, "must be one of " + new TreeSet<>(allowed));
    }
    return lower;
  }

  /** An enum constant by its name, any case ({@code switchover_time_exceeded}); null when absent. */
  <E extends Enum<E>> E enumeration(String name, Class<E> type) {
    Set<String> names = new java.util.HashSet<>();
    for (E e : type.getEnumConstants()) {
      names.add(e.name().toLowerCase(Locale.ROOT));
    }
    String v = choice(name, names, null);
    return v == null ? null : Enum.valueOf(type, v.toUpperCase(Locale.ROOT));
  }

  Boolean bool(String name) {
    String v = choice(name, Set.of("true", "false"), null);
    return v == null ? null : Boolean.valueOf(v);
  }

  /** An ISO-8601 instant or epoch milliseconds (what Grafana sends), or {@code dflt}. */
  Instant instant(String name, Instant dflt) {
    String v = text(name);
    if (v == null) {
      return dflt;
    }
    Instant i;
    if (v.chars().allMatch(Character::isDigit) && v.length() <= 15) {
      i = Instant.ofEpochMilli(Long.parseLong(v));
    } else {
      try {
        i = Instant.parse(v);
      } catch (DateTimeParseException e) {
        throw ApiException.badParameter(name, "must be an ISO-8601 instant (2026-11-21T08:00:00Z) or epoch "
            + "milliseconds");
      }
    }
    // Instant reaches a billion years; the stores key by epoch milliseconds, which do not
    if (i.isBefore(FIRST) || i.isAfter(LAST)) {
      throw ApiException.badParameter(name, "must be between " + FIRST + " and " + LAST);
    }
    return i;
  }

  private static final Instant FIRST = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LAST = Instant.parse("9999-12-31T23:59:59Z");

  /** {@code [from, to]}, checked for order and against {@code maxRange}. */
  TimeRange range(Instant defaultFrom, Instant defaultTo, Duration maxRange) {
    Instant from = instant("from", defaultFrom);
    Instant to = instant("to", defaultTo);
    return checked(from, to, maxRange);
  }

  /** {@code [from, to]}, {@code from} by default {@code maxRange} before {@code to}; checked as {@link #range}. */
  TimeRange rangeUpTo(Instant defaultTo, Duration maxRange) {
    Instant from = instant("from", null);
    Instant to = instant("to", defaultTo);
    return checked(from != null ? from : to.minus(maxRange), to, maxRange);
  }

  private static TimeRange checked(Instant from, Instant to, Duration maxRange) {
    if (from.isAfter(to)) {
      throw ApiException.badParameter("from", "must not be after 'to'");
    }
    if (Duration.between(from, to).compareTo(maxRange) > 0) {
      throw ApiException.badParameter("to", "the range may be at most " + maxRange.toDays() + " days");
    }
    return new TimeRange(from, to);
  }

  int limit(int dflt, int max) {
    String v = text("limit");
    if (v == null) {
      return dflt;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < 1 || n > max) {
        throw ApiException.badParameter("limit", "must be in 1.." + max);
      }
      return n;
    } catch (NumberFormatException e) {
      throw ApiException.badParameter("limit", "must be an integer in 1.." + max);
    }
  }

  /** A path parameter, validated like a query parameter. */
  String path(String name) {
    String v = rc.pathParam(name);
    if (v == null || v.isEmpty() || v.length() > MAX_TEXT || v.chars().anyMatch(Character::isISOControl)) {
      throw ApiException.badParameter(name, "must be 1.." + MAX_TEXT + " printable characters");
    }
    return v;
  }
}
