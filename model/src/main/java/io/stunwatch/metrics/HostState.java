package io.stunwatch.metrics;

import java.util.Locale;

/** Where {@code collect hosts} stands with one host: the values of tag {@link Meters#TAG_STATE} on {@link Meters#HOSTS}. */
public enum HostState {
  /** Connecting, logging in or starting the command. */
  CONNECTING,
  /** The command's output is being read. */
  STREAMING,
  /** Waiting out a backoff after a failure. */
  BACKOFF;

  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
