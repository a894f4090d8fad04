package io.stunwatch.collectors.vcenter;

import java.io.IOException;

/**
 * vCenter refused a change: its task ended in error, or the call was refused. Not a connection failure, so not
 * retried as one: the same change would be refused again until an admin acts (a privilege granted, an override
 * removed).
 */
public final class VcenterRefusedException extends IOException {

  private final String fault;

  /**
   * @param fault   the vim25 fault's type ({@code NoPermission}, {@code InvalidArgument}, ...), or null when unknown
   * @param message what was refused and vCenter's message
   */
  public VcenterRefusedException(String fault, String message) {
    super(message);
    this.fault = fault;
  }

  /** The vim25 fault's type, or null when unknown. */
  public String fault() {
    return fault;
  }

  /** Whether vCenter refused for a missing privilege. */
  public boolean noPermission() {
    return "NoPermission".equals(fault);
  }
}
