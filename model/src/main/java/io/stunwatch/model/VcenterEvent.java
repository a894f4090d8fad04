package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * One vim25 event (or TaskInfo change) normalized from any vCenter source: the live EventHistoryCollector, VI/JSON
 * replay or govmomi JSON. The Kafka key is {@link #vmKey()}, so one VM's events stay in order on one partition.
 *
 * <p>{@code (vcenterUuid, eventKey)} identifies the event for de-duplication. vCenter's event key is an int32 that
 * can wrap, so order is {@code (createdTime, eventKey)}, never the key alone.
 *
 * @param vcenterUuid      instance UUID of the vCenter that produced the event
 * @param eventKey         vim25 {@code Event.key}
 * @param chainId          vim25 {@code Event.chainId}: shared by a task and the events it caused
 * @param createdTime      vim25 {@code Event.createdTime}
 * @param eventType        vim25 class, e.g. {@code VmMigratedEvent}, {@code TaskEvent}, {@code EventEx}
 * @param eventTypeId      {@code eventTypeId} of an {@code EventEx}/{@code ExtendedEvent}, e.g.
 *                         {@code com.vmware.vc.vm.VmHotMigratingWithEncryptionEvent}
 * @param category         what the event means for a migration
 * @param userName         vim25 {@code Event.userName}; empty or a service account for DRS
 * @param vm               the VM the event is about
 * @param host             vim25 {@code Event.host}: for a completed migration, the destination
 * @param sourceHost       source host, when the event names it
 * @param destHost         destination host, when the event names it
 * @param computeResource  vim25 {@code Event.computeResource} (the cluster)
 * @param datacenter       vim25 {@code Event.datacenter}
 * @param datastore        vim25 {@code Event.ds}
 * @param sourceDatastore  source datastore, when the event names it
 * @param destDatastore    destination datastore, when the event names it
 * @param message          vim25 {@code fullFormattedMessage}
 * @param faultMessage     the fault's message of a failed migration
 * @param task             the task of a {@code TaskEvent} or TaskInfo change
 * @param faultType        vim25 class of the fault of a failed migration's event ({@code reason.fault}), e.g.
 *                         {@code MigrationFault}
 */
@Schema(name = "vcenter-event")
public record VcenterEvent(
    String vcenterUuid,
    long eventKey,
    Long chainId,
    Instant createdTime,
    String eventType,
    String eventTypeId,
    VcenterEventCategory category,
    String userName,
    EntityRef vm,
    EntityRef host,
    EntityRef sourceHost,
    EntityRef destHost,
    EntityRef computeResource,
    EntityRef datacenter,
    EntityRef datastore,
    EntityRef sourceDatastore,
    EntityRef destDatastore,
    String message,
    String faultMessage,
    TaskSnapshot task,
    String faultType) implements VmInput {

  /** An event with no fault type. */
  public VcenterEvent(String vcenterUuid, long eventKey, Long chainId, Instant createdTime, String eventType,
      String eventTypeId, VcenterEventCategory category, String userName, EntityRef vm, EntityRef host,
      EntityRef sourceHost, EntityRef destHost, EntityRef computeResource, EntityRef datacenter, EntityRef datastore,
      EntityRef sourceDatastore, EntityRef destDatastore, String message, String faultMessage, TaskSnapshot task) {
    this(vcenterUuid, eventKey, chainId, createdTime, eventType, eventTypeId, category, userName, vm, host, sourceHost,
        destHost, computeResource, datacenter, datastore, sourceDatastore, destDatastore, message, faultMessage, task,
        null);
  }

  public VcenterEvent {
    Checks.requiredText(vcenterUuid, "vcenterUuid");
    Checks.required(createdTime, "createdTime");
    Checks.requiredText(eventType, "eventType");
    Checks.required(category, "category");
  }

  /** Event type of a TaskInfo state change, which the collector publishes as it follows a migration task. */
  public static final String TASK_INFO = "TaskInfo";

  /**
   * The de-duplication id: {@code <vcenterUuid>:<eventKey>} for a vim25 event;
   * {@code <vcenterUuid>:task:<taskKey>:<state>} for a {@link #TASK_INFO} change, which shares its TaskEvent's key.
   */
  public String dedupeId() {
    if (TASK_INFO.equals(eventType) && task != null) {
      return vcenterUuid + ":task:" + task.key() + ":" + task.state();
    }
    return vcenterUuid + ":" + eventKey;
  }

  /** The Kafka key: {@code <vcenterUuid>/<vm moref>}, or {@code <vcenterUuid>/-} for events about no VM. */
  public String vmKey() {
    return Keys.vm(vcenterUuid, vm == null ? null : vm.value());
  }
}
