package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.VcenterEventCategory;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The vim25 event types the vCenter collector keeps, and what each means for a migration. vcsim ignores the
 * collector's type filter, so the same list filters on the client too.
 */
public final class MigrationEventTypes {

  /** Task description ids of migrations: user relocate/migrate, DRS vMotion (and vcsim's relocate id). */
  public static final Set<String> MIGRATION_TASKS = Set.of("VirtualMachine.relocate", "VirtualMachine.migrate",
      "Drm.ExecuteVMotionLRO", "VirtualMachine.relocateVm");

  /**
   * A host entering and leaving maintenance mode: no migration event, but the DRS guard releases the VMs of a host
   * that enters it at once, so that its evacuation is never blocked.
   */
  public static final Set<String> MAINTENANCE = Set.of("EnteringMaintenanceModeEvent", "ExitMaintenanceModeEvent");

  /** The encrypted-vMotion {@code EventEx} id. */
  public static final String ENCRYPTED_VMOTION = "com.vmware.vc.vm.VmHotMigratingWithEncryptionEvent";

  private static final Map<String, VcenterEventCategory> BY_TYPE = Map.ofEntries(
      Map.entry("VmBeingHotMigratedEvent", VcenterEventCategory.MIGRATION_STARTED),
      Map.entry("VmBeingMigratedEvent", VcenterEventCategory.MIGRATION_STARTED),
      Map.entry("VmBeingRelocatedEvent", VcenterEventCategory.MIGRATION_STARTED),
      Map.entry("VmEmigratingEvent", VcenterEventCategory.MIGRATION_STARTED),
      Map.entry("VmMigratedEvent", VcenterEventCategory.MIGRATION_COMPLETED),
      Map.entry("DrsVmMigratedEvent", VcenterEventCategory.MIGRATION_COMPLETED),
      Map.entry("VmRelocatedEvent", VcenterEventCategory.MIGRATION_COMPLETED),
      Map.entry("VmFailedMigrateEvent", VcenterEventCategory.MIGRATION_FAILED),
      Map.entry("VmRelocateFailedEvent", VcenterEventCategory.MIGRATION_FAILED),
      Map.entry("VmPoweredOnEvent", VcenterEventCategory.POWER),
      Map.entry("VmPoweredOffEvent", VcenterEventCategory.POWER),
      Map.entry("VmSuspendedEvent", VcenterEventCategory.POWER),
      Map.entry("VmResumingEvent", VcenterEventCategory.POWER),
      Map.entry("DrsVmPoweredOnEvent", VcenterEventCategory.POWER));

  /**
   * Every event type id the collector asks vCenter for. A real vCenter matches an {@code EventEx} or
   * {@code ExtendedEvent} by its own {@code eventTypeId}, not by its class: listing the class name {@code EventEx}
   * would let none of them through, so the encrypted-vMotion id is listed itself.
   */
  public static final List<String> EVENT_TYPE_IDS = List.copyOf(
      new TreeSet<>(union(union(BY_TYPE.keySet(), Set.of("TaskEvent", ENCRYPTED_VMOTION)), MAINTENANCE)));

  private MigrationEventTypes() {
  }

  /**
   * What an event means, or empty when the collector does not keep it.
   *
   * @param type         vim25 class name
   * @param eventTypeId  the id of an EventEx/ExtendedEvent, else null
   * @param taskDescId   the descriptionId of a TaskEvent's info, else null
   */
  public static Optional<VcenterEventCategory> categorize(String type, String eventTypeId, String taskDescId) {
    if ("TaskEvent".equals(type)) {
      return taskDescId != null && MIGRATION_TASKS.contains(taskDescId)
          ? Optional.of(VcenterEventCategory.MIGRATION_TASK) : Optional.empty();
    }
    if ("EventEx".equals(type) || "ExtendedEvent".equals(type)) {
      return ENCRYPTED_VMOTION.equals(eventTypeId)
          ? Optional.of(VcenterEventCategory.MIGRATION_STARTED) : Optional.empty();
    }
    return Optional.ofNullable(BY_TYPE.get(type));
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> u = new HashSet<>(a);
    u.addAll(b);
    return u;
  }
}
