package io.stunwatch.processor.domain;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInventoryEntry;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Assembles one {@link Migration} from all the events of its chain. A pure function of the SET of events: the same
 * events in any order, any number of times, give the same migration, which is what makes the processor's output
 * independent of the order and duplication in which Kafka delivers them.
 */
public final class MigrationAssembler {

  /** The description id of DRS vMotion tasks. */
  static final String DRS_TASK = "Drm.ExecuteVMotionLRO";

  private MigrationAssembler() {
  }

  /**
   * @param events the chain's events (duplicates allowed); at least one
   * @param vm     the VM's inventory entry, when known (gives its SMBIOS UUID and vGPU profile)
   */
  public static Migration assemble(Collection<VcenterEvent> events, VmInventoryEntry vm) {
    if (events.isEmpty()) {
      throw new IllegalArgumentException("a migration needs at least one event");
    }
    // Dedupe, then a fixed order: (createdTime, key, dedupe id).
    Map<String, VcenterEvent> byId = new TreeMap<>();
    events.forEach(e -> byId.putIfAbsent(e.dedupeId(), e));
    List<VcenterEvent> ordered = byId.values().stream()
        .sorted(Comparator.comparing(VcenterEvent::createdTime).thenComparingLong(VcenterEvent::eventKey)
            .thenComparing(VcenterEvent::dedupeId))
        .toList();
    VcenterEvent first = ordered.get(0);
    String vcenter = first.vcenterUuid();
    long chain = ordered.stream().map(VcenterEvent::chainId).filter(Objects::nonNull).min(Long::compare)
        .orElse(first.eventKey());
    EntityRef vmRef = firstNonNull(ordered, VcenterEvent::vm);
    TaskSnapshot task = finalOrLatestTask(ordered);

    MigrationState state = state(ordered, task);
    Instant start = task != null && task.startTime() != null ? task.startTime()
        : ordered.stream().filter(e -> startsOrTask(e.category())).map(VcenterEvent::createdTime).findFirst()
            .orElse(first.createdTime());
    Instant end = null;
    if (state.isFinal()) {
      end = task != null && task.completeTime() != null ? task.completeTime()
          : ordered.stream().filter(e -> e.category() == VcenterEventCategory.MIGRATION_COMPLETED
              || e.category() == VcenterEventCategory.MIGRATION_FAILED).map(VcenterEvent::createdTime)
              .reduce((a, b) -> b).orElse(null);
      if (end != null && end.isBefore(start)) {
        end = start; // clocks of task and events disagree by a few ms: never a negative duration
      }
    }
    Initiator initiator = initiator(ordered, task);
    String initiatorName = initiator == Initiator.DRS ? "DRS"
        : task != null && task.userName() != null ? task.userName()
        : ordered.stream().map(VcenterEvent::userName).filter(u -> u != null && !u.isBlank()).findFirst()
            .orElse(null);
    Boolean encrypted = ordered.stream().anyMatch(e -> "com.vmware.vc.vm.VmHotMigratingWithEncryptionEvent"
        .equals(e.eventTypeId())) ? Boolean.TRUE : null;
    String failure = state == MigrationState.FAILED
        ? task != null && task.error() != null ? task.error()
        : ordered.stream().map(VcenterEvent::faultMessage).filter(Objects::nonNull).findFirst().orElse(null)
        : null;
    List<VcenterEvent> starts = ordered.stream().filter(e -> startsOrTask(e.category())).toList();
    List<VcenterEvent> ends = ordered.stream().filter(e -> e.category() == VcenterEventCategory.MIGRATION_COMPLETED
        || e.category() == VcenterEventCategory.MIGRATION_FAILED).toList();
    return new Migration(Keys.migration(vcenter, chain), vcenter, vmRef == null ? "-" : vmRef.value(),
        vmRef == null ? null : vmRef.name() != null ? vmRef.name() : vm == null ? null : vm.name(),
        vm == null ? null : vm.biosUuid(), vm == null || vm.vgpuProfile() == null ? null : vm.vgpuProfile().name(),
        state, initiator, initiatorName, encrypted,
        firstNonNull(ordered, VcenterEvent::sourceHost), firstNonNull(ordered, VcenterEvent::destHost),
        firstNonNull(starts.isEmpty() ? ordered : starts, VcenterEvent::computeResource),
        firstNonNull(ends, VcenterEvent::computeResource),
        firstNonNull(ordered, VcenterEvent::sourceDatastore), firstNonNull(ordered, VcenterEvent::destDatastore),
        start, end, failure, ordered.get(ordered.size() - 1).createdTime(),
        state != MigrationState.FAILED ? null : task != null && task.faultType() != null ? task.faultType()
            : ordered.stream().map(VcenterEvent::faultType).filter(Objects::nonNull).findFirst().orElse(null));
  }

  private static MigrationState state(List<VcenterEvent> ordered, TaskSnapshot task) {
    if (task != null && "error".equals(task.state())) {
      return Boolean.TRUE.equals(task.cancelled()) ? MigrationState.CANCELLED : MigrationState.FAILED;
    }
    if (ordered.stream().anyMatch(e -> e.category() == VcenterEventCategory.MIGRATION_FAILED)) {
      return MigrationState.FAILED;
    }
    if (task != null && "success".equals(task.state())
        || ordered.stream().anyMatch(e -> e.category() == VcenterEventCategory.MIGRATION_COMPLETED)) {
      return MigrationState.SUCCEEDED;
    }
    return MigrationState.IN_PROGRESS;
  }

  private static Initiator initiator(List<VcenterEvent> ordered, TaskSnapshot task) {
    boolean drs = ordered.stream().anyMatch(e -> e.eventType().startsWith("Drs")
        || e.task() != null && DRS_TASK.equals(e.task().descriptionId()));
    if (drs) {
      return Initiator.DRS;
    }
    if (task != null && "TaskReasonUser".equals(task.reasonType())) {
      return Initiator.USER;
    }
    boolean user = ordered.stream().anyMatch(e -> e.userName() != null && !e.userName().isBlank());
    return user ? Initiator.USER : Initiator.UNKNOWN;
  }

  /** The task snapshot that says the most: a final one if any, else the one with the latest start. */
  private static TaskSnapshot finalOrLatestTask(List<VcenterEvent> ordered) {
    TaskSnapshot best = null;
    for (VcenterEvent e : ordered) {
      TaskSnapshot t = e.task();
      if (t == null) {
        continue;
      }
      if (best == null || rank(t) > rank(best)) {
        best = t;
      }
    }
    return best;
  }

  private static int rank(TaskSnapshot t) {
    return switch (t.state()) {
      case "success", "error" -> 3;
      case "running" -> 2;
      default -> 1;
    };
  }

  private static boolean startsOrTask(VcenterEventCategory c) {
    return c == VcenterEventCategory.MIGRATION_STARTED || c == VcenterEventCategory.MIGRATION_TASK;
  }

  private static <T> T firstNonNull(List<VcenterEvent> events, Function<VcenterEvent, T> f) {
    for (VcenterEvent e : events) {
      T v = f.apply(e);
      if (v != null) {
        return v;
      }
    }
    return null;
  }
}
