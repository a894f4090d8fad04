package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Follows a vCenter's running migration tasks between polls: a task's events say only that it started, and its
 * state changes (running, success, error) are read from its {@code TaskInfo} until it is final. The followed tasks
 * are part of the checkpoint ({@link VcenterCheckpoint#pendingTasks}), so a restarted collector follows them on.
 */
final class TaskFollower {

  private final VimEventMapper mapper;
  private final Consumer<String> problem;

  /** @param problem says what went wrong (the collector's rate-limited log) */
  TaskFollower(VimEventMapper mapper, Consumer<String> problem) {
    this.mapper = mapper;
    this.problem = problem;
  }

  /**
   * Reads the TaskInfo of each followed task and adds a {@link VcenterEvent#TASK_INFO} event for each state change;
   * a final task stops being followed, and one vCenter no longer knows is dropped.
   *
   * @return how many task events were added
   */
  int follow(VcenterConnection c, String vcenterUuid, Map<String, VcenterCheckpoint.PendingTask> pending,
      List<VcenterEvent> out, List<VcenterEvent> completed) throws IOException {
    int added = 0;
    for (VcenterCheckpoint.PendingTask t : List.copyOf(pending.values())) {
      Optional<JsonNode> info = c.taskInfo(t.taskKey());
      if (info.isEmpty()) {
        pending.remove(t.taskKey());
        problem.accept("task " + t.taskKey() + " of " + t.vmMoref() + " is gone before it was seen to finish");
        continue;
      }
      String state = info.get().path("state").asText();
      if (state.equals(t.lastState())) {
        continue;
      }
      try {
        VcenterEvent e = mapper.taskChange(info.get(), vcenterUuid, t.eventKey(), t.chainId(),
            new EntityRef("VirtualMachine", t.vmMoref(), t.vmName()));
        out.add(e);
        added++;
        if (isCompletion(e)) {
          completed.add(e);
        }
      } catch (VimEventMapper.MappingException ex) {
        problem.accept("task " + t.taskKey() + ": " + ex.getMessage());
      }
      if (isFinal(state)) {
        pending.remove(t.taskKey());
      } else {
        pending.put(t.taskKey(), new VcenterCheckpoint.PendingTask(t.taskKey(), t.eventKey(), t.chainId(),
            t.vmMoref(), t.vmName(), state));
      }
    }
    return added;
  }

  /** Whether a task in {@code state} is done: it changes no more. */
  static boolean isFinal(String state) {
    return "success".equals(state) || "error".equals(state);
  }

  /** Whether {@code e} says that a migration completed: its VM's vmware.log then holds its stun. */
  static boolean isCompletion(VcenterEvent e) {
    return e.category() == VcenterEventCategory.MIGRATION_COMPLETED
        || e.category() == VcenterEventCategory.MIGRATION_TASK && e.task() != null
        && "success".equals(e.task().state());
  }

}
