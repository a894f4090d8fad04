package io.stunwatch.collectors.hosts;

import io.stunwatch.metrics.HostFailure;
import java.io.IOException;

/** Why a host could not be read; the message names the host. */
public final class HostFailureException extends IOException {

  private static final long serialVersionUID = 1L;

  private final HostFailure reason;

  public HostFailureException(HostFailure reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  public HostFailureException(HostFailure reason, String message) {
    this(reason, message, null);
  }

  public HostFailure reason() {
    return reason;
  }
}
