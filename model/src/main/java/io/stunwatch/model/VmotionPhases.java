package io.stunwatch.model;

import java.time.Instant;

/**
 * Where a vMotion's time went, from the VM's {@code vmware.log}. Each instant is absent when the logs read did not
 * show its line; each duration is absent without both of its ends.
 *
 * @param precopyStart           the precopy began: the source's state 0 to 1, else the migration's start
 * @param stunStart              {@code Migrate: VM starting stun}: the precopy ends, the vCPUs are being stopped
 * @param stunned                {@code Migrate: VM successfully stunned}
 * @param unstun                 {@code Checkpoint_Unstun}: the VM runs again, on the destination (or, after a
 *                               failure, on the source)
 * @param precopySeconds         precopy start to stun start
 * @param timeToStopSeconds      stun start to stunned: the time to stop the vCPUs, which is no part of the stun
 * @param stunSeconds            how long the VM was stopped, the {@code Checkpoint_Unstun} figure
 * @param destinationWaitSeconds how long the destination waited for the source, as the source logged it
 */
public record VmotionPhases(
    Instant precopyStart,
    Instant stunStart,
    Instant stunned,
    Instant unstun,
    Double precopySeconds,
    Double timeToStopSeconds,
    Double stunSeconds,
    Double destinationWaitSeconds) {

  public VmotionPhases {
    Checks.nonNegative(precopySeconds, "phases.precopySeconds");
    Checks.nonNegative(timeToStopSeconds, "phases.timeToStopSeconds");
    Checks.nonNegative(stunSeconds, "phases.stunSeconds");
    Checks.nonNegative(destinationWaitSeconds, "phases.destinationWaitSeconds");
  }
}
