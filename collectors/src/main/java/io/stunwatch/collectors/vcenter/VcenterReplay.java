package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.vmkernel.VmkernelLogParser;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Keys;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Replays recorded vCenter data through the live mapping: events in VI/JSON (or govmomi's dialect, with the class
 * from {@code _typeName}, a CloudEvents envelope or {@code --event-type}), and an inventory of
 * {@code VirtualMachine} and {@code HostSystem} objects in the same encoding; JSON values one per line,
 * pretty-printed back to back, or in arrays. A malformed value is reported with its line number; the rest goes on.
 *
 * <p>Inventory objects carry their moref as {@code "moref":"vm-42"} (or a {@code "self"} MoRef) and the properties
 * the collector reads live: {@code name}, {@code config.uuid}, {@code config.instanceUuid}, {@code guest.hostName},
 * {@code config.hardware.memoryMB}, {@code config.hardware.device[].backing.vgpu}, {@code config.files.vmPathName},
 * {@code runtime.host}, and the extras {@code datacenter} (name) and {@code cluster} (MoRef with {@code name});
 * hosts: {@code name}, {@code cluster}, and {@code config.virtualNicManagerInfo} with {@code config.network}, which
 * give the vMotion link speed ({@link VmotionLinkSpeed}), and {@code summary.config.product.version} (or
 * {@code config.product.version}). An {@code AboutInfo} object (the VI/JSON of {@code ServiceContent.about}) gives
 * the vCenter's {@code version}, which VMware's published stun figure is chosen by.
 */
public final class VcenterReplay {

  private final String vcenterUuid;
  private final Consumer<InputParseException> onError;
  private final VimEventMapper mapper = new VimEventMapper();
  private final VmwareLogParser logParser = new VmwareLogParser();

  public VcenterReplay(String vcenterUuid, Consumer<InputParseException> onError) {
    this.vcenterUuid = vcenterUuid;
    this.onError = onError;
  }

  /**
   * The kept events of a file, in file order. The file holds JSON values back to back: one per line, pretty-printed
   * over many lines (as VMware's event router and {@code govc events -json} print them), or in arrays. A CloudEvents
   * envelope gives its event in {@code data} and the event's class in {@code subject} or {@code type}. An event
   * with no class ({@code _typeName}) takes {@code eventType}, else the class its fields show (a
   * {@code VmMigratedEvent}'s source host and message).
   *
   * @throws ReplayRefusedException when the file is not JSON at all ({@code govc events} text, for one)
   */
  public List<VcenterEvent> events(Path file, String eventType) throws IOException {
    List<VcenterEvent> out = new ArrayList<>();
    String source = file.toString();
    for (JsonValues.Value v : JsonValues.read(file)) {
      if (v.error() != null) {
        onError.accept(v.error());
        continue;
      }
      for (JsonNode event : JsonValues.unwrap(v.node())) {
        try {
          JsonNode body = event.has("data") && event.has("specversion") ? event.get("data") : event;
          String type = eventType != null ? eventType : cloudEventClass(event);
          if (type == null && !body.has("_typeName") && !body.has("Type")) {
            type = inferredClass(body);
          }
          Optional<VcenterEvent> e = mapper.map(body, vcenterUuid, type);
          e.ifPresent(out::add);
          if (e.isEmpty()) {
            skippedTypes.merge(typeOf(body, type), 1, Integer::sum);
          }
        } catch (VimEventMapper.MappingException e) {
          onError.accept(new InputParseException(source, v.line(), e.getMessage()));
        }
      }
    }
    return out;
  }

  /** Event classes read but not kept (not a migration's), with how many of each: counted, never silent. */
  private final Map<String, Integer> skippedTypes = new TreeMap<>();

  public Map<String, Integer> skippedTypes() {
    return Map.copyOf(skippedTypes);
  }

  private static String typeOf(JsonNode body, String type) {
    String t = body.path("_typeName").asText(null);
    return t != null ? t : type != null ? type : "unknown";
  }

  /**
   * The event class a CloudEvents envelope names: the event router's {@code subject} ({@code VmMigratedEvent}) or
   * a type such as {@code com.vmware.vsphere.VmMigratedEvent.v0}; null for a bare event.
   */
  static String cloudEventClass(JsonNode envelope) {
    if (!envelope.has("specversion") || !envelope.has("data")) {
      return null;
    }
    String type = envelope.path("type").asText("");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("^com\\.vmware\\.vsphere\\.([A-Za-z]+)\\.v\\d+$")
        .matcher(type);
    if (m.matches()) {
      return m.group(1);
    }
    String subject = envelope.path("subject").asText(null);
    return subject != null && subject.matches("[A-Za-z]+") ? subject : null;
  }

  /**
   * The class a bare govmomi event's fields show, or null: a {@code VmMigratedEvent} has a source host,
   * datacenter and datastore and says it "was migrated from".
   */
  static String inferredClass(JsonNode e) {
    JsonNode message = e.has("FullFormattedMessage") ? e.get("FullFormattedMessage") : e.get("fullFormattedMessage");
    boolean source = e.has("SourceHost") || e.has("sourceHost");
    if (source && message != null && message.asText().contains(" was migrated from ")) {
      return "VmMigratedEvent";
    }
    return null;
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

  /** The inventory of a file: VMs and hosts, JSON values back to back (one per line, or pretty-printed). */
  public Inventory inventory(Path file, Instant observedAt) throws IOException {
    List<JsonNode> vmNodes = new ArrayList<>();
    List<JsonNode> hostNodes = new ArrayList<>();
    List<Long> vmLines = new ArrayList<>();
    List<Long> hostLines = new ArrayList<>();
    String vcenterVersion = null;
    for (JsonValues.Value value : JsonValues.read(file)) {
      if (value.error() != null) {
        onError.accept(value.error());
        continue;
      }
      long n = value.line();
      for (JsonNode raw : JsonValues.unwrap(value.node())) {
        JsonNode o = VimEventMapper.normalize(raw);
        String type = o.path("_typeName").asText();
        if (type.equals("VirtualMachine")) {
          vmNodes.add(o);
          vmLines.add(n);
        } else if (type.equals("HostSystem")) {
          hostNodes.add(o);
          hostLines.add(n);
        } else if (type.equals("AboutInfo")) {
          vcenterVersion = o.hasNonNull("version") ? o.get("version").asText() : null;
        } else {
          onError.accept(new InputParseException(file.toString(), n, "expected a VirtualMachine, HostSystem or "
              + "AboutInfo, found _typeName '" + type + "'"));
        }
      }
    }
    Map<String, HostInventoryEntry> hosts = new HashMap<>();
    for (int i = 0; i < hostNodes.size(); i++) {
      JsonNode h = hostNodes.get(i);
      String moref = moref(h);
      if (moref == null) {
        onError.accept(new InputParseException(file.toString(), hostLines.get(i), "HostSystem without a moref "
            + "(\"moref\" or \"self\"): its VMs' host has no name"));
        continue;
      }
      hosts.put(moref, new HostInventoryEntry(vcenterUuid, moref, text(h, "name"), cluster(h), List.of(),
          VmotionLinkSpeed.mbps(h.path("config").get("virtualNicManagerInfo"), h.path("config").get("network")),
          observedAt, productVersion(h), vcenterVersion));
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
            backings, backings.isEmpty() ? null : VgpuProfile.parse(backings.get(0)).orElse(null), observedAt,
            text(v.path("guest"), "hostName")));
      } catch (IllegalArgumentException e) {
        onError.accept(new InputParseException(file.toString(), vmLines.get(i), e.getMessage()));
      }
    }
    return new Inventory(vms, List.copyOf(hosts.values()));
  }

  /**
   * The stun observations of a VM's {@code vmware.log} files, through the parser the live collector uses: each file
   * in the order given (rotated logs oldest first), a figure at most once. The VM's name comes from the inventory.
   *
   * @param moref the VM's moref in this vCenter
   * @param files its vmware.log files
   */
  public List<StunObservation> stuns(String moref, List<Path> files, Inventory inventory) throws IOException {
    return stuns(moref, files, files.stream().map(Path::toString).toList(), inventory);
  }

  /**
   * As {@link #stuns(String, List, Inventory)}, each file named on its observations as {@code names} says (its
   * path inside a support bundle).
   */
  public List<StunObservation> stuns(String moref, List<Path> files, List<String> names, Inventory inventory)
      throws IOException {
    return logs(moref, files, names, inventory).stuns();
  }

  /**
   * What a VM's vmware.log files give.
   *
   * @param stuns    the stun observations, a figure at most once
   * @param vmotions the vMotion observations
   */
  public record VmLogs(List<StunObservation> stuns, List<VmotionObservation> vmotions) {
  }

  /**
   * The stun and vMotion observations of a VM's {@code vmware.log} files, through the parser the live collector
   * uses, each file named as {@code names} says. A vMotion without a timestamp (a redacted excerpt) cannot be
   * matched to its migration: it is reported at its line and not kept.
   */
  public VmLogs logs(String moref, List<Path> files, List<String> names, Inventory inventory) throws IOException {
    String name = inventory.vms().stream().filter(v -> v.moref().equals(moref)).map(VmInventoryEntry::name)
        .findFirst().orElse(null);
    LinkedHashSet<StunObservation> out = new LinkedHashSet<>();
    List<VmotionObservation> vmotions = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      Path file = files.get(i);
      String logName = names.get(i);
      // A guest can write to vmware.log: each line the parser skips is reported with its number, the rest counts.
      VmwareLogParser.Log log;
      try (var in = Files.newInputStream(file)) {
        log = logParser.read(in, null,
            (line, why) -> onError.accept(new InputParseException(file.toString(), line, why)));
      }
      for (VmwareLogParser.Stun s : log.stuns()) {
        if (s.timestamp() == null) {
          onError.accept(new InputParseException(file.toString(), s.lineNumber(),
              "a stun with no timestamp (a redacted or quoted log): it cannot be placed"));
        } else {
          out.add(s.observation(vcenterUuid, moref, name, logName));
        }
      }
      for (VmwareLogParser.Vmotion v : log.vmotions()) {
        if (v.timestamp() == null) {
          onError.accept(new InputParseException(file.toString(), v.lineNumber(),
              "a vMotion with no timestamp (a redacted or quoted log): it cannot be matched to its migration"));
        } else {
          vmotions.add(v.observation(vcenterUuid, moref, name, logName));
        }
      }
    }
    return new VmLogs(List.copyOf(out), List.copyOf(vmotions));
  }

  /**
   * The precopy bandwidths of a host's {@code vmkernel.log}, through the parser {@code collect hosts} uses.
   *
   * @param hostname the host whose log it is
   * @param name     how the records name the file
   */
  public List<VmotionBandwidth> vmkernelLog(Path file, String hostname, String name) throws IOException {
    VmkernelLogParser parser = new VmkernelLogParser(hostname, name,
        (line, why) -> onError.accept(new InputParseException(file.toString(), line, why)));
    List<VmotionBandwidth> out = new ArrayList<>();
    try (var lines = Files.newBufferedReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
      long n = 0;
      for (String l = lines.readLine(); l != null; l = lines.readLine()) {
        out.addAll(parser.line(l, ++n));
      }
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new ReplayRefusedException("not text", "a vmkernel.log is UTF-8 text; give the file unpacked");
    }
    return out;
  }

  /**
   * Publishes an inventory, then events and stun observations, and waits until Kafka has them all. Events and
   * observations of a VM in the inventory are keyed by its VM id, as the live collector keys them.
   *
   * @throws IOException saying how many records Kafka did not acknowledge, and the first reason
   */
  public static void publish(TypedProducer producer, Inventory inventory, List<VcenterEvent> events)
      throws IOException {
    publish(producer, inventory, events, List.of());
  }

  /** {@link #publish(TypedProducer, Inventory, List)} with stun observations. */
  public static void publish(TypedProducer producer, Inventory inventory, List<VcenterEvent> events,
      List<StunObservation> stuns) throws IOException {
    publish(producer, inventory, events, new VmLogs(stuns, List.of()), List.of());
  }

  /**
   * {@link #publish(TypedProducer, Inventory, List)} with what VMs' vmware.log and hosts' vmkernel.log files gave;
   * the bandwidths are keyed by vMotion id, as {@code collect hosts} keys them.
   */
  public static void publish(TypedProducer producer, Inventory inventory, List<VcenterEvent> events, VmLogs logs,
      List<VmotionBandwidth> bandwidths) throws IOException {
    List<StunObservation> stuns = logs.stuns();
    Map<String, String> vmIds = new HashMap<>();
    for (VmInventoryEntry vm : inventory.vms()) {
      if (vm.biosUuid() != null) {
        vmIds.put(vm.key(), vm.biosUuid());
      }
    }
    List<Future<?>> sent = new ArrayList<>();
    for (HostInventoryEntry h : inventory.hosts()) {
      sent.add(producer.send(Topics.HOST_INVENTORY, h.key(), h, h.observedAt()));
    }
    for (VmInventoryEntry vm : inventory.vms()) {
      sent.add(producer.send(Topics.VM_INVENTORY, vm.key(), vm, vm.observedAt()));
    }
    for (VcenterEvent e : events) {
      sent.add(producer.send(Topics.VCENTER_EVENTS, Keys.byVm(vmIds.get(e.vmKey()), e.vmKey()), e,
          e.createdTime()));
    }
    for (StunObservation o : stuns) {
      sent.add(producer.send(Topics.STUN_OBSERVATIONS, Keys.byVm(vmIds.get(o.key()), o.key()), o, o.timestamp()));
    }
    for (VmotionObservation o : logs.vmotions()) {
      sent.add(producer.send(Topics.VMOTION_OBSERVATIONS, Keys.byVm(vmIds.get(o.key()), o.key()), o,
          o.timestamp()));
    }
    for (VmotionBandwidth b : bandwidths) {
      sent.add(producer.send(Topics.VMOTION_BANDWIDTH, b.vmotionId(), b, b.timestamp()));
    }
    producer.flush();
    int failed = 0;
    Throwable first = null;
    for (Future<?> f : sent) {
      try {
        f.get();
      } catch (ExecutionException e) {
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
  private static String productVersion(JsonNode host) {
    for (JsonNode product : List.of(host.path("summary").path("config").path("product"),
        host.path("config").path("product"))) {
      if (product.hasNonNull("version")) {
        return product.get("version").asText();
      }
    }
    return null;
  }

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
