package io.stunwatch.model;

import java.time.Instant;

/**
 * The parts of a vim25 {@code TaskInfo} that place a migration in time and give its result.
 *
 * @param key           task key, e.g. {@code task-1234}
 * @param descriptionId e.g. {@code VirtualMachine.relocate}, {@code VirtualMachine.migrate},
 *                      {@code Drm.ExecuteVMotionLRO}
 * @param entity        the task's entity (the VM)
 * @param state         {@code queued}, {@code running}, {@code success} or {@code error}
 * @param cancelled     true once cancellation was requested and took effect
 * @param queueTime     when the task was queued
 * @param startTime     when it started running, absent while queued
 * @param completeTime  when it finished, absent while running
 * @param error         localized fault message when {@code state} is {@code error}
 * @param faultType     vim25 fault class when {@code state} is {@code error}, e.g. {@code MigrationFault}
 * @param eventChainId  the chain id shared with the task's events
 * @param reasonType    vim25 {@code TaskReason} class: {@code TaskReasonUser}, {@code TaskReasonSystem},
 *                      {@code TaskReasonSchedule}, {@code TaskReasonAlarm}
 * @param userName      initiating user for {@code TaskReasonUser}
 */
public record TaskSnapshot(
    String key,
    String descriptionId,
    EntityRef entity,
    String state,
    Boolean cancelled,
    Instant queueTime,
    Instant startTime,
    Instant completeTime,
    String error,
    String faultType,
    Long eventChainId,
    String reasonType,
    String userName) {

  public TaskSnapshot {
    Checks.requiredText(key, "task.key");
    Checks.requiredText(descriptionId, "task.descriptionId");
    Checks.requiredText(state, "task.state");
  }
}
