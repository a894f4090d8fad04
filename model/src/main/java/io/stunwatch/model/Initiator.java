package io.stunwatch.model;

/** Who started a migration. */
public enum Initiator {
  /** A person or script, through the UI or the API. */
  USER,
  /** DRS load balancing or maintenance mode. */
  DRS,
  /** The events did not say. */
  UNKNOWN
}
