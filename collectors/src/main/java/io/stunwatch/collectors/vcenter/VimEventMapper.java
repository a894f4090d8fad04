package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Maps one vim25 event to a {@link VcenterEvent}. The input is a JSON tree in vSphere 8's VI/JSON encoding
 * ({@code _typeName}, camelCase, ManagedObjectReference as {@code {"type":..,"value":..}}); govmomi's PascalCase
 * dialect (govc, the VMware event router) is normalized to it first; live events from the SOAP binding are turned
 * into the same tree by {@link VimObjects}. One mapping for all three sources.
 */
public final class VimEventMapper {

  /** A mapping failure: the message says why; the caller adds where. */
  public static final class MappingException extends Exception {
    public MappingException(String message) {
      super(message);
    }
  }

  /**
   * A host entering or leaving maintenance mode.
   *
   * @param host     the host
   * @param entering whether it enters (else it left)
   * @param at       the event's createdTime
   */
  public record Maintenance(EntityRef host, boolean entering, java.time.Instant at) {
  }

  /** The maintenance-mode change an event tells ({@link MigrationEventTypes#MAINTENANCE}), or empty. */
  public Optional<Maintenance> maintenance(JsonNode event) {
    if (event == null || !event.isObject()) {
      return Optional.empty();
    }
    JsonNode e = normalize(event);
    String type = text(e, "_typeName");
    if (type == null || !MigrationEventTypes.MAINTENANCE.contains(type)) {
      return Optional.empty();
    }
    EntityRef host = entity(e.get("host"), "HostSystem");
    try {
      return host == null ? Optional.empty() : Optional.of(new Maintenance(host,
          type.equals("EnteringMaintenanceModeEvent"), instant(e, "createdTime", true)));
    } catch (IllegalArgumentException | MappingException ex) {
      return Optional.empty(); // no time: the migration mapping counts and logs the event
    }
  }

  /**
   * Maps an event.
   *
   * @param event       the event tree
   * @param vcenterUuid the vCenter's instance UUID
   * @param defaultType the event class when the tree has no {@code _typeName} (govmomi dialect), else null
   * @return the event, or empty when the collector does not keep its type
   * @throws MappingException naming what is missing or malformed
   */
  public Optional<VcenterEvent> map(JsonNode event, String vcenterUuid, String defaultType) throws MappingException {
    if (!event.isObject()) {
      throw new MappingException("an event must be a JSON object");
    }
    JsonNode e = normalize(event);
    String type = text(e, "_typeName");
    if (type == null) {
      type = defaultType;
    }
    if (type == null) {
      throw new MappingException("no _typeName and no --event-type: cannot tell the event class");
    }
    JsonNode info = e.get("info");
    String eventTypeId = text(e, "eventTypeId");
    String taskDescId = info == null ? null : text(info, "descriptionId");
    Optional<VcenterEventCategory> category = MigrationEventTypes.categorize(type, eventTypeId, taskDescId);
    if (category.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(build(e, type, eventTypeId, category.get(), info, vcenterUuid));
    } catch (IllegalArgumentException ex) {
      // any bad value: this event is skipped and counted, never allowed to stop the collector
      throw new MappingException(ex.getMessage());
    }
  }

  private VcenterEvent build(JsonNode e, String type, String eventTypeId, VcenterEventCategory c, JsonNode info,
      String vcenterUuid) throws MappingException {
    if (!e.hasNonNull("key")) {
      throw new MappingException("'key' is missing");
    }
    EntityRef host = entity(e.get("host"), "HostSystem");
    EntityRef ds = entity(e.get("ds"), "Datastore");
    boolean hostIsSource = c == VcenterEventCategory.MIGRATION_STARTED || c == VcenterEventCategory.MIGRATION_FAILED;
    EntityRef sourceHost = firstNonNull(entity(e.get("sourceHost"), "HostSystem"), hostIsSource ? host : null);
    EntityRef destHost = firstNonNull(entity(e.get("destHost"), "HostSystem"),
        c == VcenterEventCategory.MIGRATION_COMPLETED ? host : null);
    EntityRef sourceDs = firstNonNull(entity(e.get("sourceDatastore"), "Datastore"), hostIsSource ? ds : null);
    EntityRef destDs = firstNonNull(entity(e.get("destDatastore"), "Datastore"),
        c == VcenterEventCategory.MIGRATION_COMPLETED ? ds : null);
    return new VcenterEvent(vcenterUuid, e.get("key").asLong(), longOrNull(e, "chainId"),
        instant(e, "createdTime", true), type, eventTypeId, c, text(e, "userName"),
        entity(e.get("vm"), "VirtualMachine"), host, sourceHost, destHost,
        entity(e.get("computeResource"), "ComputeResource"), entity(e.get("datacenter"), "Datacenter"), ds,
        sourceDs, destDs, text(e, "fullFormattedMessage"), faultMessage(e.get("reason")),
        info == null ? null : task(info), faultType(e.get("reason")));
  }

  /**
   * A TaskInfo state change of a followed migration task, as a {@link VcenterEvent#TASK_INFO} event stamped with
   * the task's completeTime, startTime or queueTime.
   */
  public VcenterEvent taskChange(JsonNode taskInfo, String vcenterUuid, long eventKey, Long chainId, EntityRef vm)
      throws MappingException {
    TaskSnapshot t = task(normalize(taskInfo));
    Instant at = t.completeTime() != null ? t.completeTime() : t.startTime() != null ? t.startTime() : t.queueTime();
    if (at == null) {
      throw new MappingException("TaskInfo " + t.key() + " has no time");
    }
    return new VcenterEvent(vcenterUuid, eventKey, chainId, at, VcenterEvent.TASK_INFO, null,
        VcenterEventCategory.MIGRATION_TASK, t.userName(), vm, null, null, null, null, null, null, null, null, null,
        t.error(), t);
  }

  private TaskSnapshot task(JsonNode info) throws MappingException {
    JsonNode reason = info.get("reason");
    JsonNode error = info.get("error");
    return new TaskSnapshot(require(info, "key"), require(info, "descriptionId"),
        moref(info.get("entity"), text(info, "entityName"), "ManagedEntity"), require(info, "state"),
        info.hasNonNull("cancelled") ? info.get("cancelled").asBoolean() : null,
        instant(info, "queueTime", false), instant(info, "startTime", false), instant(info, "completeTime", false),
        faultMessage(error), error == null || error.get("fault") == null ? null : text(error.get("fault"), "_typeName"),
        longOrNull(info, "eventChainId"), reason == null ? null : text(reason, "_typeName"),
        reason == null ? null : text(reason, "userName"));
  }

  /** The class of a LocalizedMethodFault's fault, e.g. {@code MigrationFault}; null without one. */
  private static String faultType(JsonNode fault) {
    JsonNode f = fault == null ? null : fault.get("fault");
    return f == null || !f.isObject() ? null : text(f, "_typeName");
  }

  /** The localizedMessage of a LocalizedMethodFault, else its fault's class. */
  private static String faultMessage(JsonNode fault) {
    if (fault == null || fault.isNull()) {
      return null;
    }
    String msg = text(fault, "localizedMessage");
    if (msg != null) {
      return msg;
    }
    JsonNode f = fault.get("fault");
    return f == null ? null : text(f, "_typeName");
  }

  /**
   * An entity argument ({@code {"name":..,"vm":{"type":..,"value":..}}}) or a bare MoRef; null when absent.
   */
  static EntityRef entity(JsonNode arg, String defaultType) {
    if (arg == null || arg.isNull() || !arg.isObject()) {
      return null;
    }
    if (arg.has("value") && arg.has("type")) {
      return moref(arg, null, defaultType);
    }
    String name = text(arg, "name");
    for (Iterator<Map.Entry<String, JsonNode>> it = arg.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> f = it.next();
      JsonNode v = f.getValue();
      if (v.isObject() && v.has("value")) {
        return moref(v, name, defaultType);
      }
    }
    return null;
  }

  /** A MoRef as an entity; an empty one (vcsim fills unset arguments with them) is absent. */
  private static EntityRef moref(JsonNode ref, String name, String defaultType) {
    String value = ref == null ? null : text(ref, "value");
    if (value == null) {
      return null;
    }
    String type = text(ref, "type");
    return new EntityRef(type != null ? type : defaultType, value, name);
  }

  /**
   * govmomi's dialect to VI/JSON: {@code Key} to {@code key} (recursively), {@code {"Type","Value"}} MoRefs to
   * {@code {"type","value"}}. VI/JSON passes through unchanged.
   */
  static JsonNode normalize(JsonNode node) {
    if (node.isArray()) {
      ArrayNode a = JsonNodeFactory.instance.arrayNode();
      node.forEach(n -> a.add(normalize(n)));
      return a;
    }
    if (!node.isObject()) {
      return node;
    }
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    node.fields().forEachRemaining(f -> {
      String k = f.getKey();
      String key = k.startsWith("_") || k.isEmpty() ? k : Character.toLowerCase(k.charAt(0)) + k.substring(1);
      o.set(key, normalize(f.getValue()));
    });
    return o;
  }

  private static String require(JsonNode n, String field) throws MappingException {
    String v = text(n, field);
    if (v == null) {
      throw new MappingException("'" + field + "' is missing");
    }
    return v;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() || v.isContainerNode() || v.asText().isEmpty() ? null : v.asText();
  }

  private static Long longOrNull(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asLong();
  }

  private static Instant instant(JsonNode n, String field, boolean required) throws MappingException {
    String t = text(n, field);
    if (t == null) {
      if (required) {
        throw new MappingException("'" + field + "' is missing");
      }
      return null;
    }
    try {
      return Instant.parse(t);
    } catch (DateTimeParseException e) {
      throw new MappingException("'" + field + "' is not an ISO-8601 time: '" + t + "'");
    }
  }

  private static <T> T firstNonNull(T a, T b) {
    return a != null ? a : b;
  }
}
