package io.stunwatch.api;

/**
 * Where a VM's keys are read on this instance: the store partition that holds them, and whether a standby's copy (or
 * a task still restoring) may answer, which trails the active task by what its last commits wrote.
 */
record StorePartition(int partition, boolean stale) {
}
