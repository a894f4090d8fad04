package io.stunwatch.launcher.demo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.model.CounterReading;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.LogMessage;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the simulated fleet's tools print, in their real formats, for the collectors' parsers to read: nvidia-smi's
 * {@code --query-gpu --format=csv} lines, the ESXi hosts' {@code nvidia-smi vgpu -q}, tf_cnn_benchmarks/Horovod log lines, vim25 events and TaskInfo and
 * inventory objects in VI/JSON, and vmware.log lines. Each method is the inverse of a collector parser, which
 * {@code FleetOutputsTest} checks record by record.
 */
final class FleetOutputs {

  /** The columns the demo's nvidia-smi is asked for, as its CSV header prints them (a vGPU has no power reading). */
  static final String NVIDIA_SMI_HEADER = "timestamp, index, name, uuid, pci.bus_id, pstate, utilization.gpu [%], "
      + "utilization.memory [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W], "
      + "clocks.sm [MHz]";

  private static final DateTimeFormatter SMI_TIME = DateTimeFormatter.ofPattern("yyyy/MM/dd HH:mm:ss.SSS")
      .withZone(ZoneOffset.UTC);

  private FleetOutputs() {
  }

  /** One line of {@code nvidia-smi --query-gpu=<header's columns> --format=csv} in a UTC guest. */
  static String nvidiaSmiCsv(GpuSample s) {
    return String.join(", ", SMI_TIME.format(s.timestamp()), String.valueOf(s.gpuIndex()), s.name(), s.gpuUuid(),
        s.pciBusId(), na(s.pstate(), ""), na(s.utilizationGpuPct(), " %"), na(s.utilizationMemoryPct(), " %"),
        na(s.memoryUsedMiB(), " MiB"), na(s.memoryTotalMiB(), " MiB"), na(s.temperatureC(), ""),
        na(s.powerDrawW(), " W"), na(s.smClockMHz(), " MHz"));
  }

  /**
   * {@code nvidia-smi vgpu -q} on an ESXi host showing one vGPU, as its driver prints it: the physical GPU's block
   * with its scheduler policy, and the vGPU's with the VM's name (ESXi prints no VM UUID).
   */
  static String vgpuQuery(HostVgpuSample h) {
    return "GPU " + h.gpuPciBusId() + "\n"
        + "    Product Name                          : " + h.gpuName() + "\n"
        + "    vGPU Scheduler Policy                 : " + h.schedulerPolicy() + "\n"
        + "    Active vGPUs                          : 1\n"
        + "    vGPU ID                               : " + h.vgpuInstanceId() + "\n"
        + "        VM ID                             : " + na(h.vmWorldId(), "") + "\n"
        + "        VM Name                           : " + h.vmName() + "\n"
        + "        vGPU Name                         : " + h.vgpuType() + "\n"
        + "        GPU Instance ID                   : " + na(h.gpuInstanceId(), "") + "\n"
        + "        FB Memory Usage\n"
        + "            Total                         : " + na(h.fbTotalMiB(), " MiB") + "\n"
        + "            Used                          : " + na(h.fbUsedMiB(), " MiB") + "\n"
        + "        Utilization\n"
        + "            Gpu                           : " + na(h.utilizationGpuPct(), " %") + "\n"
        + "            Memory                        : " + na(h.utilizationMemoryPct(), " %") + "\n";
  }

  private static String na(Object v, String unit) {
    if (v == null) {
      return "[N/A]";
    }
    if (v instanceof Double d) {
      return (d == Math.rint(d) ? String.valueOf(d.longValue()) : String.format(Locale.ROOT, "%.2f", d)) + unit;
    }
    return v + unit;
  }

  /** A tf_cnn_benchmarks step line as Horovod's rank 0 logs it, with an ISO timestamp. */
  static String trainingLog(ThroughputSample s) {
    return s.timestamp() + " [1,0]<stdout>:" + "100\timages/sec: " + String.format(Locale.ROOT, "%.1f", s.value())
        + " +/- 0.0 (jitter = 1.2)\t7.061";
  }

  /** A vim25 event in VI/JSON, as the vCenter's event history returns it. */
  static String vimEvent(VcenterEvent e) {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("_typeName", e.eventType());
    o.put("key", e.eventKey());
    if (e.chainId() != null) {
      o.put("chainId", e.chainId());
    }
    o.put("createdTime", e.createdTime().toString());
    o.put("userName", e.userName() == null ? "" : e.userName());
    entity(o, "vm", "vm", e.vm());
    entity(o, "host", "host", e.host());
    entity(o, "computeResource", "computeResource", e.computeResource());
    entity(o, "datacenter", "datacenter", e.datacenter());
    entity(o, "ds", "datastore", e.datastore());
    // vim25 names only the end the event's host is not: VmMigratedEvent the source, the others the destination
    if (e.sourceHost() != null && !e.sourceHost().equals(e.host())) {
      entity(o, "sourceHost", "host", e.sourceHost());
    }
    if (e.destHost() != null && !e.destHost().equals(e.host())) {
      entity(o, "destHost", "host", e.destHost());
    }
    if (e.message() != null) {
      o.put("fullFormattedMessage", e.message());
    }
    if (e.faultMessage() != null && e.task() == null) {
      o.putObject("reason").put("localizedMessage", e.faultMessage());
    }
    if (e.task() != null) {
      o.set("info", taskInfo(e.task()));
    }
    return o.toString();
  }

  /** A TaskInfo in VI/JSON. */
  static ObjectNode taskInfo(TaskSnapshot t) {
    ObjectNode i = Json.mapper().createObjectNode();
    i.put("_typeName", "TaskInfo");
    i.put("key", t.key());
    i.put("descriptionId", t.descriptionId());
    if (t.entity() != null) {
      i.putObject("entity").put("type", t.entity().type()).put("value", t.entity().value());
      if (t.entity().name() != null) {
        i.put("entityName", t.entity().name());
      }
    }
    i.put("state", t.state());
    if (t.cancelled() != null) {
      i.put("cancelled", t.cancelled());
    }
    time(i, "queueTime", t.queueTime());
    time(i, "startTime", t.startTime());
    time(i, "completeTime", t.completeTime());
    if (t.error() != null || t.faultType() != null) {
      ObjectNode err = i.putObject("error");
      if (t.error() != null) {
        err.put("localizedMessage", t.error());
      }
      if (t.faultType() != null) {
        err.putObject("fault").put("_typeName", t.faultType());
      }
    }
    if (t.eventChainId() != null) {
      i.put("eventChainId", t.eventChainId());
    }
    if (t.reasonType() != null) {
      ObjectNode r = i.putObject("reason").put("_typeName", t.reasonType());
      if (t.userName() != null) {
        r.put("userName", t.userName());
      }
    }
    return i;
  }

  /** A VirtualMachine of the inventory in VI/JSON: the properties the vCenter collector retrieves. */
  static String inventoryVm(VmInventoryEntry vm) {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("_typeName", "VirtualMachine");
    o.put("moref", vm.moref());
    o.put("name", vm.name());
    if (vm.datacenter() != null) {
      o.put("datacenter", vm.datacenter());
    }
    if (vm.cluster() != null) {
      ref(o.putObject("cluster"), vm.cluster());
    }
    ObjectNode config = o.putObject("config");
    config.put("uuid", vm.biosUuid());
    if (vm.instanceUuid() != null) {
      config.put("instanceUuid", vm.instanceUuid());
    }
    config.putObject("files").put("vmPathName", vm.vmPathName());
    ObjectNode hw = config.putObject("hardware");
    if (vm.memoryMiB() != null) {
      hw.put("memoryMB", vm.memoryMiB());
    }
    var devices = hw.putArray("device");
    for (String b : vm.vgpuBackings()) {
      devices.addObject().putObject("backing").put("vgpu", b);
    }
    if (vm.host() != null) {
      o.putObject("runtime").putObject("host").put("type", vm.host().type()).put("value", vm.host().value());
    }
    return o.toString();
  }

  /** The simulated vCenter's and ESXi hosts' version. */
  static final String VERSION = "7.0.3";

  /** The simulated hosts' vMotion uplink, Mbit/s. */
  static final long VMOTION_MBPS = 25_000;

  /** The vCenter's {@code ServiceContent.about} in VI/JSON: its version chooses VMware's published stun figure. */
  static String about() {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("_typeName", "AboutInfo");
    o.put("fullName", "VMware vCenter Server " + VERSION + " build-20150588");
    o.put("version", VERSION);
    o.put("apiVersion", VERSION + ".0");
    o.put("instanceUuid", FleetScenario.VCENTER);
    return o.toString();
  }

  /**
   * A HostSystem of the inventory in VI/JSON: its ESXi version, and a vmknic selected for vMotion on a standard
   * switch over one {@value #VMOTION_MBPS} Mbit/s uplink, which give the forecasts their inputs.
   */
  static String inventoryHost(EntityRef host, EntityRef cluster) {
    ObjectNode o = Json.mapper().createObjectNode();
    o.put("_typeName", "HostSystem");
    o.put("moref", host.value());
    o.put("name", host.name());
    if (cluster != null) {
      ref(o.putObject("cluster"), cluster);
    }
    o.putObject("summary").putObject("config").putObject("product").put("version", VERSION);
    ObjectNode config = o.putObject("config");
    ObjectNode net = config.putObject("virtualNicManagerInfo").putArray("netConfig").addObject();
    net.put("nicType", "vmotion");
    net.putArray("selectedVnic").add("vmotion.key-vim.host.VirtualNic-vmk1");
    net.putArray("candidateVnic").addObject().put("key", "vmotion.key-vim.host.VirtualNic-vmk1")
        .put("device", "vmk1").put("portgroup", "vMotion");
    ObjectNode network = config.putObject("network");
    network.putArray("portgroup").addObject().putObject("spec").put("name", "vMotion").put("vswitchName", "vSwitch1");
    network.putArray("vswitch").addObject().put("name", "vSwitch1").putArray("pnic").add("key-vim.host.PhysicalNic-vmnic2");
    network.putArray("pnic").addObject().put("key", "key-vim.host.PhysicalNic-vmnic2").put("device", "vmnic2")
        .putObject("linkSpeed").put("speedMb", VMOTION_MBPS).put("duplex", true);
    return o.toString();
  }

  /**
   * The destination's vmware.log lines of one vMotion: the migration id when the VM is restored, and the stun the
   * checkpoint reports as the VM resumes.
   */
  static List<String> vmwareLog(StunObservation o, String sourceAddress) {
    Instant resumed = o.timestamp();
    Instant opened = resumed.minusMillis(o.stunMicros() / 1000 + 1000);
    return List.of(
        opened + " In(05) vmx - Migrate_Open: Restoring from <" + sourceAddress + "> with migration id "
            + o.migrationId(),
        resumed + " In(05) vcpu-0 - Checkpoint_Unstun: vm stopped for " + o.stunMicros() + " us");
  }

  /**
   * The source host's part of a vMotion in the VM's log, which ESXi rotates out as the destination begins its own:
   * the precopy's start with the vMotion id, the stop of the vCPUs and, for a failure, its message list.
   */
  static List<String> vmotionSourceLog(VmotionObservation v, String destAddress) {
    List<String> out = new ArrayList<>();
    out.add(v.precopyStart() + " In(05) vmx - Received migrate 'to' request for mid id " + v.vmotionId()
        + ", src ip <10.0.0.1>, dst ip <" + destAddress + ">.");
    out.add(v.precopyStart() + " In(05) vmx - MigrateSetState: Transitioning from state 0 to 1.");
    out.add(v.stunStart() + " In(05) vmx - Migrate: VM starting stun, waiting 100 seconds for go/no-go message.");
    out.add(v.stunned() + " In(05) vcpu-0 - Migrate: VM successfully stunned");
    if (v.destinationWaitSeconds() != null) {
      out.add(v.timestamp() + " In(05) worker-3476962 - Migrate: Remote Log: Destination waited for "
          + String.format(Locale.ROOT, "%.2f", v.destinationWaitSeconds()) + " seconds.");
    }
    if (!v.failureMessages().isEmpty()) {
      out.add(v.timestamp() + " In(05) vmx - Migrate: Caching migration error message list:");
      for (LogMessage m : v.failureMessages()) {
        out.add(v.timestamp() + " In(05) vmx - [" + m.id() + "] " + m.text());
      }
      out.add(v.timestamp() + " In(05) vmx - Migrate: Attempting to continue running on the source.");
    }
    return out;
  }

  /** The source host's vmkernel.log line of a vMotion's precopy stop, as ESXi 8 writes it. */
  static String vmkernelLine(VmotionBandwidth b) {
    return b.timestamp() + " In(182) vmkernel: cpu3:2099543)VMotion: 4650: " + b.vmotionId() + " S: Stopping "
        + "pre-copy: only " + b.pagesLeft() + " pages left to send, which can be sent within the switchover time goal "
        + "of " + String.format(Locale.ROOT, "%.3f", b.switchoverGoalSeconds()) + " seconds (network bandwidth ~"
        + String.format(Locale.ROOT, "%.3f", b.bandwidthMBps()) + " MB/s, 4096% t2d)";
  }

  /**
   * Writes a port's counters under {@code root} ({@code /sys/class/infiniband}) as the kernel exposes them: 64-bit
   * counters in {@code counters_ext/}, the others in {@code counters/}, an unavailable one as {@code N/A (no PMA)}.
   */
  static void sysfsPort(Path root, RdmaCounterSample r) throws IOException {
    Path port = root.resolve(r.device()).resolve("ports").resolve(String.valueOf(r.port()));
    Path counters = Files.createDirectories(port.resolve("counters"));
    Path ext = Files.createDirectories(port.resolve("counters_ext"));
    for (Map.Entry<String, CounterReading> c : r.counters().entrySet()) {
      Path f = (c.getKey().endsWith("_64") ? ext : counters).resolve(c.getKey());
      Files.writeString(f, c.getValue().value() == null ? "N/A (no PMA)\n" : c.getValue().value() + "\n",
          StandardCharsets.US_ASCII);
    }
    Path link = port.resolve("link_layer");
    if (r.linkLayer() != null && !Files.exists(link)) {
      Files.writeString(link, r.linkLayer() + "\n", StandardCharsets.US_ASCII);
    }
  }

  private static void entity(ObjectNode o, String field, String refField, EntityRef e) {
    if (e == null) {
      return;
    }
    ObjectNode arg = o.putObject(field);
    if (e.name() != null) {
      arg.put("name", e.name());
    }
    arg.putObject(refField).put("type", e.type()).put("value", e.value());
  }

  private static void ref(ObjectNode o, EntityRef e) {
    o.put("type", e.type()).put("value", e.value());
    if (e.name() != null) {
      o.put("name", e.name());
    }
  }

  private static void time(ObjectNode o, String field, Instant t) {
    if (t != null) {
      o.put(field, t.toString());
    }
  }
}
