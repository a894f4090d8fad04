package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Replays recorded vCenter data through the live mapping: events one per line in VI/JSON (or govmomi's dialect,
 * with the class from {@code _typeName} or {@code --event-type}), and an inventory of {@code VirtualMachine} and
 * {@code HostSystem} objects in the same encoding. A malformed line is reported with its line number; the rest goes on.
 *
 * <p>Inventory objects carry their moref as {@code "moref":"vm-42"} (or a {@code "self"} MoRef) and the properties
 * the collector reads live: {@code name}, {@code config.uuid}, {@code config.instanceUuid},
 * {@code config.hardware.memoryMB}, {@code config.hardware.device[].backing.vgpu}, {@code config.files.vmPathName},
 * {@code runtime.host}, and the extras {@code datacenter} (name) and {@code cluster} (MoRef with {@code name});
 * hosts: {@code name} and {@code cluster}.
 */
public final class VcenterReplay {

  private final String vcenterUuid;
  private final Consumer<InputParseException> onError;
  private final VimEventMapper mapper = new VimEventMapper();

  public VcenterReplay(String vcenterUuid, Consumer<InputParseException> onError) {
    this.vcenterUuid = vcenterUuid;
    this.onError = onError;
  }

  /** The kept events of a file, in file order. */
  public List<VcenterEvent> events(Path file, String eventType) throws IOException {
    List<VcenterEvent> out = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        event(line, eventType, file.toString(), n).ifPresent(out::add);
      } catch (InputParseException e) {
        onError.accept(e);
      }
    }
    return out;
  }

  /**
   * One event line (VI/JSON or govmomi JSON).
   *
   * @param eventType  the event class of a line without {@code _typeName}, or null
   * @param source     names the file or stream in errors
   * @param lineNumber the line's 1-based number there
   * @return the event, or empty when the collector does not keep its type
   * @throws InputParseException naming source, line and why the line is not an event
   */
  public Optional<VcenterEvent> event(String line, String eventType, String source, long lineNumber)
      throws InputParseException {
    try {
      return mapper.map(Json.mapper().readTree(line), vcenterUuid, eventType);
    } catch (JsonProcessingException e) {
      throw new InputParseException(source, lineNumber, "not JSON: " + e.getOriginalMessage());
    } catch (VimEventMapper.MappingException e) {
      throw new InputParseException(source, lineNumber, e.getMessage());
    }
  }

  /** The inventory of a file: VMs and hosts. */
  public Inventory inventory(Path file, Instant observedAt) throws IOException {
    List<JsonNode> vmNodes = new ArrayList<>();
    List<JsonNode> hostNodes = new ArrayList<>();
    List<Integer> vmLines = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        JsonNode o = VimEventMapper.normalize(Json.mapper().readTree(line));
        String type = o.path("_typeName").asText();
        if (type.equals("VirtualMachine")) {
          vmNodes.add(o);
          vmLines.add(n);
        } else if (type.equals("HostSystem")) {
          hostNodes.add(o);
        } else {
          onError.accept(new InputParseException(file.toString(), n, "expected a VirtualMachine or HostSystem, "
              + "found _typeName '" + type + "'"));
        }
      } catch (JsonProcessingException e) {
        onError.accept(new InputParseException(file.toString(), n, "not JSON: " + e.getOriginalMessage()));
      }
    }
    Map<String, HostInventoryEntry> hosts = new HashMap<>();
    for (JsonNode h : hostNodes) {
      String moref = moref(h);
      if (moref != null) {
        hosts.put(moref, new HostInventoryEntry(vcenterUuid, moref, text(h, "name"), cluster(h), List.of(), null,
            observedAt));
      }
    }
    List<VmInventoryEntry> vms = new ArrayList<>();
    for (int i = 0; i < vmNodes.size(); i++) {
      JsonNode v = vmNodes.get(i);
      try {
        String moref = moref(v);
        if (moref == null) {
          throw new IllegalArgumentException("no moref (\"moref\" or \"self\")");
        }
        JsonNode config = v.path("config");
        List<String> backings = new ArrayList<>();
        for (JsonNode d : config.path("hardware").path("device")) {
          String vgpu = d.path("backing").path("vgpu").asText(null);
          if (vgpu != null) {
            backings.add(vgpu);
          }
        }
        EntityRef hostRef = VimEventMapper.entity(v.path("runtime").get("host"), "HostSystem");
        HostInventoryEntry host = hostRef == null ? null : hosts.get(hostRef.value());
        EntityRef hostEntity = hostRef == null ? null
            : new EntityRef(hostRef.type(), hostRef.value(), host == null ? hostRef.name() : host.name());
        EntityRef cluster = cluster(v);
        vms.add(new VmInventoryEntry(vcenterUuid, moref, text(v, "name"), text(config, "uuid"),
            text(config, "instanceUuid"), hostEntity, cluster != null ? cluster : host == null ? null : host.cluster(),
            text(v, "datacenter"), text(config.path("files"), "vmPathName"),
            config.path("hardware").has("memoryMB") ? config.path("hardware").get("memoryMB").asLong() : null,
            backings, backings.isEmpty() ? null : VgpuProfile.parse(backings.get(0)).orElse(null), observedAt));
      } catch (IllegalArgumentException e) {
        onError.accept(new InputParseException(file.toString(), vmLines.get(i), e.getMessage()));
      }
    }
    return new Inventory(vms, List.copyOf(hosts.values()));
  }

  /**
   * Publishes an inventory, then events, and waits until Kafka has them all.
   *
   * @throws IOException saying how many records Kafka did not acknowledge, and the first reason
   */
  public static void publish(TypedProducer producer, Inventory inventory, List<VcenterEvent> events)
      throws IOException {
    List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
    for (HostInventoryEntry h : inventory.hosts()) {
      sent.add(producer.send(Topics.HOST_INVENTORY, h.key(), h, h.observedAt()));
    }
    for (VmInventoryEntry vm : inventory.vms()) {
      sent.add(producer.send(Topics.VM_INVENTORY, vm.key(), vm, vm.observedAt()));
    }
    for (VcenterEvent e : events) {
      sent.add(producer.send(Topics.VCENTER_EVENTS, e.vmKey(), e, e.createdTime()));
    }
    producer.flush();
    int failed = 0;
    Throwable first = null;
    for (java.util.concurrent.Future<?> f : sent) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        failed++;
        first = first == null ? e.getCause() : first;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for Kafka", e);
      }
    }
    if (failed > 0) {
      throw new IOException(failed + " of " + sent.size() + " records were not acknowledged by Kafka: " + first);
    }
  }

  /** A replayed inventory. */
  public record Inventory(List<VmInventoryEntry> vms, List<HostInventoryEntry> hosts) {
    public static final Inventory EMPTY = new Inventory(List.of(), List.of());
  }

  private static String moref(JsonNode o) {
    if (o.hasNonNull("moref")) {
      return o.get("moref").asText();
    }
    JsonNode self = o.get("self");
    return self != null && self.hasNonNull("value") ? self.get("value").asText() : null;
  }

  private static EntityRef cluster(JsonNode o) {
    JsonNode c = o.get("cluster");
    if (c == null || !c.hasNonNull("value")) {
      return null;
    }
    return new EntityRef(c.path("type").asText("ClusterComputeResource"), c.get("value").asText(),
        c.hasNonNull("name") ? c.get("name").asText() : null);
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() || v.asText().isEmpty() ? null : v.asText();
  }
}
