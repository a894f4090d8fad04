package io.stunwatch.api.notify;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.json.Json;

/**
 * A migration-under-load alert change as a CloudEvent 1.0 in structured JSON mode, the shape VEBA functions and
 * Knative brokers consume ({@code Content-Type: application/cloudevents+json}).
 * <ul>
 *   <li>{@code type}: {@code io.stunwatch.migration.alert.raised} or {@code ...resolved};</li>
 *   <li>{@code source}: {@code /stunwatch/vcenter/<vCenter instance UUID>} (the part of the migration id before
 *       {@code /});</li>
 *   <li>{@code id}: the migration id, state and update time, the same on every redelivery of one change;</li>
 *   <li>{@code subject}: the VM's name (else its moref); {@code time}: the change's event time;</li>
 *   <li>{@code data}: the alert as {@code stunwatch.migration-alerts} holds it: the load, the reasons, the stun
 *       forecast made when it was raised, and once resolved the measured impact.</li>
 * </ul>
 */
public final class CloudEvents {

  /** The media type of a structured-mode JSON CloudEvent. */
  public static final String CONTENT_TYPE = "application/cloudevents+json; charset=UTF-8";

  /** The type prefix; the alert's state in lower case follows. */
  public static final String TYPE_PREFIX = "io.stunwatch.migration.alert.";

  private CloudEvents() {
  }

  /** The event of one alert change. */
  public static ObjectNode of(MigrationAlert a) {
    ObjectNode e = Json.mapper().createObjectNode();
    e.put("specversion", "1.0");
    String type = type(a.state());
    e.put("type", type);
    int slash = a.migrationId().indexOf('/');
    e.put("source", "/stunwatch/vcenter/" + (slash > 0 ? a.migrationId().substring(0, slash) : "unknown"));
    e.put("id", a.migrationId() + "/" + type.substring(TYPE_PREFIX.length()) + "/" + a.updatedAt().toEpochMilli());
    e.put("subject", a.vmName() != null ? a.vmName() : a.vmMoref());
    e.put("time", a.updatedAt().toString());
    e.put("datacontenttype", "application/json");
    e.set("data", Json.mapper().valueToTree(a));
    return e;
  }

  /** The {@code type} of an alert change in state {@code state}. */
  public static String type(MigrationAlert.AlertState state) {
    return TYPE_PREFIX + (state == MigrationAlert.AlertState.FIRING ? "raised" : "resolved");
  }
}
