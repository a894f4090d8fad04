package io.stunwatch.model;

/**
 * A vCenter managed object: its type and moref value, plus its display name when known.
 *
 * @param type  managed object type, e.g. {@code VirtualMachine}, {@code HostSystem}, {@code ClusterComputeResource}
 * @param value moref value, e.g. {@code vm-42}; unique only within one vCenter
 * @param name  display name at the time of the event, when known
 */
public record EntityRef(String type, String value, String name) {

  public EntityRef {
    Checks.requiredText(type, "type");
    Checks.requiredText(value, "value");
  }
}
