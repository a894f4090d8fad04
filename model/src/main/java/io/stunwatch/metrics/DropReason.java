package io.stunwatch.metrics;

import java.util.Locale;

/** Why a collector gave up on a sample: the values of tag {@link Meters#TAG_REASON}. */
public enum DropReason {
  /** The in-memory queue was full: Kafka was unreachable for longer than the buffer covers. */
  BUFFER_FULL,
  /** Kafka did not acknowledge it within the delivery bound (the configured outage bound). */
  DELIVERY_TIMEOUT,
  /** Kafka refused it for good (too large, not authorized, ...). */
  SEND_FAILED;

  public String tag() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
