package io.stunwatch.model;

/** What a vCenter event means for a migration, decided once by the collector so consumers need no vim25 type list. */
public enum VcenterEventCategory {
  /** The migration began: {@code VmBeingHotMigratedEvent}, {@code VmBeingMigratedEvent},
   * {@code VmBeingRelocatedEvent}, {@code VmEmigratingEvent}, the encrypted-vMotion {@code EventEx}. */
  MIGRATION_STARTED,
  /** It finished: {@code VmMigratedEvent}, {@code DrsVmMigratedEvent}, {@code VmRelocatedEvent}. */
  MIGRATION_COMPLETED,
  /** It failed: {@code VmFailedMigrateEvent}, {@code VmRelocateFailedEvent}. */
  MIGRATION_FAILED,
  /** A {@code TaskEvent} or {@code TaskInfo} change of a relocate, migrate or DRS vMotion task. */
  MIGRATION_TASK,
  /** A VM power state change. */
  POWER,
  /** Anything else the collector was asked to keep. */
  OTHER
}
