package io.stunwatch.collectors.vcenter;

import java.io.IOException;

/** Opens sessions with one vCenter. */
public interface VcenterConnector {

  /** The vCenter's URL without credentials, for logs. */
  String url();

  /**
   * Logs in.
   *
   * @throws IOException naming the URL and why: unreachable, TLS verification failed, bad credentials
   */
  VcenterConnection connect() throws IOException;

  /**
   * Elements of this vCenter's answers the binding did not know (a newer API's properties, types or enum values),
   * skipped so that the rest of each answer is kept.
   */
  default long skippedElements() {
    return 0;
  }
}
