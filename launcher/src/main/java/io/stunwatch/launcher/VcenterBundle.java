package io.stunwatch.launcher;

import io.stunwatch.collectors.vcenter.VcenterReplay;
import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.collectors.worker.ReplayReport;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.topic.TypedProducer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * A vCenter replay: an inventory, event files, VMs' vmware.log files and hosts' vmkernel.log files, read in that
 * order (a stun names its VM from the inventory), then published together, inventory first, and reported file by
 * file.
 */
final class VcenterBundle {

  private final String eventType;
  private final LaunchContext ctx;
  private final ReplayReport report = new ReplayReport();
  private final Map<String, Integer> errors = new HashMap<>();
  private final Map<String, InputParseException> firstErrors = new HashMap<>();
  private final VcenterReplay replay;
  private VcenterReplay.Inventory inventory = VcenterReplay.Inventory.EMPTY;
  private final List<VcenterEvent> events = new ArrayList<>();
  private final List<StunObservation> stuns = new ArrayList<>();
  private final List<VmotionObservation> vmotions = new ArrayList<>();
  private final List<VmotionBandwidth> bandwidths = new ArrayList<>();
  /** Rows waiting for Kafka's acknowledgement before they count as published. */
  private final List<ReplayReport.Row> pending = new ArrayList<>();

  VcenterBundle(String vcenterUuid, String eventType, LaunchContext ctx) {
    this.eventType = eventType;
    this.ctx = ctx;
    this.replay = new VcenterReplay(vcenterUuid, e -> {
      errors.merge(e.source(), 1, Integer::sum);
      firstErrors.putIfAbsent(e.source(), e);
    });
  }

  void inventory(Path file) throws IOException {
    if (file != null) {
      inventory(file, file.toString());
    }
  }

  /** Reads an inventory file; {@code name} is how the report names it. */
  void inventory(Path file, String name) throws IOException {
    try {
      VcenterReplay.Inventory read = replay.inventory(file, ctx.clock().instant());
      List<io.stunwatch.model.VmInventoryEntry> vms = new ArrayList<>(inventory.vms());
      vms.addAll(read.vms());
      List<io.stunwatch.model.HostInventoryEntry> hosts = new ArrayList<>(inventory.hosts());
      hosts.addAll(read.hosts());
      inventory = new VcenterReplay.Inventory(vms, hosts);
      row(file, name, "vcenter-inventory", read.vms().size() + read.hosts().size());
    } catch (ReplayRefusedException e) {
      refused(name, e);
    }
  }

  void events(Path file) throws IOException {
    if (file != null) {
      events(file, file.toString());
    }
  }

  /** Reads an events file; {@code name} is how the report names it. */
  void events(Path file, String name) throws IOException {
    try {
      List<VcenterEvent> read = replay.events(file, eventType);
      events.addAll(read);
      row(file, name, "vcenter-events", read.size());
    } catch (ReplayRefusedException e) {
      refused(name, e);
    }
  }

  void vmwareLogs(String moref, List<Path> files) {
    vmwareLogs(moref, files.stream().map(f -> Map.entry(f, f.toString())).toList());
  }

  /** Reads a VM's vmware.log files, oldest first, each with how the report names it. */
  void vmwareLogs(String moref, java.util.Collection<Map.Entry<Path, String>> files) {
    for (Map.Entry<Path, String> f : files) {
      try {
        VcenterReplay.VmLogs read = replay.logs(moref, List.of(f.getKey()), List.of(f.getValue()), inventory);
        stuns.addAll(read.stuns());
        vmotions.addAll(read.vmotions());
        row(f.getKey(), f.getValue(), "vmware-log", read.stuns().size() + read.vmotions().size());
      } catch (IOException e) {
        refused(f.getValue(), new ReplayRefusedException("an unreadable vmware.log", e.getMessage()));
      }
    }
  }

  /** Reads a host's vmkernel.log; {@code hostname} is the host it came from, {@code name} how the report names it. */
  void vmkernelLog(Path file, String hostname, String name) {
    try {
      List<VmotionBandwidth> read = replay.vmkernelLog(file, hostname, name);
      bandwidths.addAll(read);
      row(file, name, "vmkernel-log", read.size());
    } catch (ReplayRefusedException e) {
      refused(name, e);
    } catch (IOException e) {
      refused(name, new ReplayRefusedException("an unreadable vmkernel.log", e.getMessage()));
    }
  }

  /** A file refused whole. */
  void refused(String file, ReplayRefusedException e) {
    pending.add(new ReplayReport.Row(file, e.what(), 0, 0, e.getMessage(), true));
  }

  private void row(Path file, String name, String kind, long published) {
    InputParseException first = firstErrors.get(file.toString());
    pending.add(new ReplayReport.Row(name, kind, published, errors.getOrDefault(file.toString(), 0),
        first == null ? null : first.getMessage().replace(file.toString(), name), false));
  }

  /** Publishes what was read, waits for Kafka, and gives the report. */
  ReplayReport publish(KafkaClientConfig kafka) throws IOException {
    Map<String, Object> props = new HashMap<>(kafka.clientProperties());
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    try (TypedProducer producer = TypedProducer.create(props)) {
      VcenterReplay.publish(producer, inventory, events, new VcenterReplay.VmLogs(stuns, vmotions), bandwidths);
    }
    pending.forEach(report::add);
    if (!replay.skippedTypes().isEmpty()) {
      ctx.out().println("events read but not kept (not a migration's): " + replay.skippedTypes());
    }
    return report;
  }
}
