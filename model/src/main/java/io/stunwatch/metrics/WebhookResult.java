package io.stunwatch.metrics;

import java.util.Locale;

/** What became of one alert change offered to the alert webhook: the values of tag {@link Meters#TAG_RESULT}. */
public enum WebhookResult {
  /** The receiver answered 2xx. */
  DELIVERED,
  /** A try failed in a way worth trying again (no answer, 408, 429, 5xx); the change is tried again. */
  RETRIED,
  /** The receiver refused it for good (another 4xx), or the record could not be read: dropped, and logged. */
  DROPPED;

  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
