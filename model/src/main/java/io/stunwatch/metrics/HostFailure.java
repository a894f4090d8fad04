package io.stunwatch.metrics;

import java.util.Locale;

/**
 * Why {@code collect hosts} lost or never had a host's stream: the values of tag {@link Meters#TAG_REASON} on
 * {@link Meters#HOST_FAILURES}.
 */
public enum HostFailure {
  /** The host's key is not in {@code known_hosts}: refused, never trusted on first use. */
  UNKNOWN_HOST_KEY,
  /** The host's key differs from the one pinned in {@code known_hosts}: refused. */
  CHANGED_HOST_KEY,
  /** The host refused the key (or asked for a method other than public key). */
  AUTH_REFUSED,
  /** No TCP connection or SSH session: refused, unresolvable, reset. */
  UNREACHABLE,
  /** Connecting, logging in or starting the command took longer than {@code hosts.connect-timeout}. */
  TIMEOUT,
  /** The stream printed nothing for {@code hosts.silent-after}: a hung host, driver or network. */
  SILENT,
  /** The command ended, or the host closed the channel (nvidia-smi missing, driver unloaded, host rebooting). */
  COMMAND_ENDED;

  public String tag() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
