package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * The source host's account of a vMotion's precopy, from its {@code vmkernel.log}:
 * <pre>
 * VMotion: 4650: 1446046703473901 S: Stopping pre-copy: only 1296 pages left to send, which can be sent within the
 * switchover time goal of 0.500 seconds (network bandwidth ~145.404 MB/s, 101088% t2d)
 * </pre>
 * Keyed by {@link #vmotionId()}: the line names no VM, and the processor finds the VM through the same id in its
 * {@code vmware.log}.
 *
 * @param vmotionId             the vMotion id, decimal
 * @param hostname              the source host the line was read on
 * @param timestamp             the line's time: the precopy stops
 * @param bandwidthMBps         the precopy's network bandwidth, MB/s as ESXi prints it
 * @param pagesLeft             the pages left to send at switchover
 * @param switchoverGoalSeconds the switchover time goal ESXi aimed at, seconds
 * @param logFile               where the line was read, e.g. {@code esx1:/var/log/vmkernel.log}
 * @param lineNumber            1-based line in {@code logFile}, counted from where the reading began
 */
@Schema(name = "vmotion-bandwidth")
public record VmotionBandwidth(
    String vmotionId,
    String hostname,
    Instant timestamp,
    Double bandwidthMBps,
    Long pagesLeft,
    Double switchoverGoalSeconds,
    String logFile,
    long lineNumber) implements VmInput {

  public VmotionBandwidth {
    Checks.requiredText(vmotionId, "vmotionId");
    Checks.required(timestamp, "timestamp");
    Checks.nonNegative(bandwidthMBps, "bandwidthMBps");
    Checks.nonNegative(pagesLeft, "pagesLeft");
    Checks.nonNegative(switchoverGoalSeconds, "switchoverGoalSeconds");
  }
}
