package io.stunwatch.metrics;

import java.util.Locale;

/** Which copy of a store changelog records were read back into: the values of tag {@link Meters#TAG_TASK}. */
public enum RestoreKind {
  /** An active task's store, restored before the task processes (a start, a task taken over). */
  ACTIVE,
  /** A standby's copy, kept up to date from the changelog for a failover. */
  STANDBY;

  public String tag() {
    return name().toLowerCase(Locale.ROOT);
  }
}
