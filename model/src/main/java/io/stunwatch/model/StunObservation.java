package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One stun measured in a VM's {@code vmware.log}. Keyed like vCenter events, {@code <vcenterUuid>/<vm moref>}.
 *
 * @param vcenterUuid instance UUID of the vCenter the VM belongs to
 * @param vmMoref     VM moref value
 * @param vmName      VM name
 * @param migrationId vMotion migration id from the log ({@code migration id} / {@code mid}), when present
 * @param timestamp   when the VM resumed (the time of the line that ends the stun)
 * @param stunMicros  how long the VM was stopped, microseconds
 * @param source      which log lines gave the figure
 * @param logFile     the file read, e.g. {@code [ds1] vm01/vmware.log}
 * @param lineNumber  1-based line of the figure in {@code logFile}
 */
@Schema(name = "stun-observation")
public record StunObservation(
    String vcenterUuid,
    String vmMoref,
    String vmName,
    String migrationId,
    Instant timestamp,
    long stunMicros,
    StunSource source,
    String logFile,
    int lineNumber) implements VmInput {

  public StunObservation {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.requiredText(vmMoref, "vmMoref");
    Checks.required(timestamp, "timestamp");
    if (stunMicros < 0) {
      throw new IllegalArgumentException("stunMicros must not be negative, was " + stunMicros);
    }
    Checks.required(source, "source");
  }

  /** The Kafka key. */
  public String key() {
    return Keys.vm(vcenterUuid, vmMoref);
  }

  /** Which vmware.log lines a stun figure comes from. */
  public enum StunSource {
    /** {@code Checkpoint_Unstun: vm stopped for N us}. */
    CHECKPOINT_UNSTUN,
    /**
     * The time between {@code Migrate: VM starting stun} and {@code VM successfully stunned}. Never published: it is
     * the time to stop the vCPUs, a vMotion phase ({@link VmotionPhases#timeToStopSeconds()}), and a record that
     * carries it is decoded and never taken as a stun.
     */
    MIGRATE_STUN_PAIR
  }
}
