package io.stunwatch.model;

/** Where a migration stands. */
public enum MigrationState {
  IN_PROGRESS,
  SUCCEEDED,
  FAILED,
  CANCELLED,
  /** Never completed within the configured timeout: the result is not known. */
  UNKNOWN;

  public boolean isFinal() {
    return this != IN_PROGRESS;
  }
}
