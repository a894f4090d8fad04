package io.stunwatch.launcher;

import static io.stunwatch.launcher.ProcessorIT.host;
import static io.stunwatch.launcher.ProcessorIT.line;
import static io.stunwatch.launcher.ProcessorIT.moref;
import static io.stunwatch.launcher.ProcessorIT.taskLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The site {@link AgentlessSourcesIT} records: three GPU VMs that run no Stunwatch worker, each migrating once, as
 * its vCenter's inventory and events, the host-only VM's {@code vmware.log}, each ESXi host's {@code nvidia-smi vgpu
 * -q -l 5}, and the exporters' scrapes of the two others.
 */
final class AgentlessSite {

  static final int SECONDS = 14 * 60;
  /** How long esx02's recording shows no vGPU at all, as a host idle when its recording began. */
  static final int IDLE_HOST_SECONDS = 300;

  /** One VM of the site: its migration starts at {@code base + startOffset} and lasts {@code seconds}. */
  record Vm(int n, String guestHostName, int fromHost, int toHost, int startOffset, int seconds) {
    String moref() {
      return "vm-" + n;
    }

    String name() {
      return "gpu-vm-" + n;
    }

    String uuid() {
      return String.format("42000000-0000-4000-8000-%012d", n);
    }

    long chain() {
      return n * 100L;
    }
  }

  static final Vm HOST_ONLY = new Vm(21, null, 1, 2, 360, 60);
  static final Vm LABELED = new Vm(22, "trainer-22.lab.example", 1, 2, 380, 40);
  static final Vm BY_HOST_NAME = new Vm(23, "trainer-23.lab.example", 2, 1, 400, 50);

  private AgentlessSite() {
  }

  static void writeSite(Path site, Instant base) throws Exception {
    Files.write(site.resolve("inventory.jsonl"), List.of(hostLine(1), hostLine(2),
        vmLine(HOST_ONLY), vmLine(LABELED), vmLine(BY_HOST_NAME)));
    List<String> events = new ArrayList<>();
    for (Vm vm : List.of(HOST_ONLY, LABELED, BY_HOST_NAME)) {
      Instant start = base.plusSeconds(vm.startOffset());
      events.add(taskLine(vm.chain(), vm.moref(), vm.name(), "VirtualMachine.relocate", "TaskReasonUser", start));
      events.add(line("VmBeingHotMigratedEvent", vm.chain() + 1, vm.chain(), vm.moref(), vm.name(),
          start.plusMillis(300), "\"host\":" + host(vm.fromHost()) + ",\"destHost\":" + host(vm.toHost())));
      events.add(line("VmMigratedEvent", vm.chain() + 2, vm.chain(), vm.moref(), vm.name(),
          start.plusSeconds(vm.seconds()), "\"host\":" + host(vm.toHost()) + ",\"sourceHost\":"
              + host(vm.fromHost())));
      events.add(line("VmPoweredOnEvent", vm.chain() + 50, vm.chain() + 50, vm.moref(), vm.name(),
          base.plusSeconds(30), "\"host\":" + host(vm.fromHost())));
    }
    Files.write(site.resolve("events.jsonl"), events);
    DateTimeFormatter log = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    Path logs = Files.createDirectories(site.resolve("logs").resolve(HOST_ONLY.moref()));
    Files.write(logs.resolve("vmware.log"), List.of(log.format(base.plusSeconds(HOST_ONLY.startOffset()
        + HOST_ONLY.seconds() - 1)) + "| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 12500000 us"));
    writeHostVgpu(site, base);
    writeExporters(site, base);
  }

  /**
   * Each ESXi host's {@code nvidia-smi vgpu -q -l 5}: the host-only VM's vGPU on esx01 until its migration ends, then
   * on esx02; busy (90 %) before, at half its load during, 85 % after; a second, idle vGPU of another VM on each.
   * esx01 prints no banner; esx02 has no vGPU at all for its first five minutes, as a host that was idle when its
   * recording began.
   */
  private static void writeHostVgpu(Path site, Instant base) throws Exception {
    DateTimeFormatter ts = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy", Locale.ENGLISH)
        .withZone(ZoneOffset.UTC);
    Instant start = base.plusSeconds(HOST_ONLY.startOffset());
    Instant end = start.plusSeconds(HOST_ONLY.seconds());
    for (int h = 1; h <= 2; h++) {
      StringBuilder b = new StringBuilder();
      for (int s = 0; s < SECONDS; s += 5) {
        Instant t = base.plusSeconds(s);
        boolean here = h == 1 ? t.isBefore(end) : !t.isBefore(end);
        int util = t.isBefore(start) ? 90 : t.isBefore(end) ? 45 : 85;
        boolean idleHost = h == 2 && s < IDLE_HOST_SECONDS;
        b.append(h == 1 ? "" : "\n==============NVSMI LOG==============\n\n")
            .append("Timestamp                                 : ").append(ts.format(t)).append('\n')
            .append("Driver Version                            : 550.90.05\n\n")
            .append("GPU 00000000:3B:00.0\n")
            .append("    Product Name                          : Tesla T4\n")
            .append("    vGPU Software Licensed Product\n")
            .append("        Product Name                      : NVIDIA Virtual Compute Server\n")
            .append("    vGPU Scheduler Policy                 : ")
            .append(h == 1 ? "Best Effort (Time-sliced)" : "Equal Share").append('\n')
            .append("    Active vGPUs                          : ").append((here ? 1 : 0) + (idleHost ? 0 : 1))
            .append('\n');
        if (here) {
          vgpu(b, "32516342" + h + "1", HOST_ONLY.name(), util, 15360);
        }
        if (!idleHost) {
          vgpu(b, "32516342" + h + "2", "idle-vm-" + h, 2, 512);
        }
      }
      Files.writeString(site.resolve("esx0" + h + "-vgpu-q.txt"), b.toString());
    }
  }

  private static void vgpu(StringBuilder b, String id, String vm, int util, long usedMiB) {
    b.append("    vGPU ID                               : ").append(id).append('\n')
        .append("        VM ID                             : 2103").append(id.substring(id.length() - 2)).append('\n')
        .append("        VM Name                           : ").append(vm).append('\n')
        .append("        vGPU Name                         : GRID T4-16C\n")
        .append("        FB Memory Usage\n")
        .append("            Total                         : 16384 MiB\n")
        .append("            Used                          : ").append(usedMiB).append(" MiB\n")
        .append("            Free                          : ").append(16384 - usedMiB).append(" MiB\n")
        .append("        Utilization\n")
        .append("            Gpu                           : ").append(util).append(" %\n")
        .append("            Memory                        : 30 %\n");
  }

  /**
   * What {@code promtool tsdb dump-openmetrics} gives of each exporter's series, a point every 5 s: dcgm-exporter in
   * the labeled VM's guest, its {@code vm} label added by the site's relabeling; nvidia_gpu_exporter in the other, known
   * by its {@code instance} only. Each GPU at 96 %, half during its migration.
   */
  private static void writeExporters(Path site, Instant base) throws Exception {
    StringBuilder dcgm = new StringBuilder("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n");
    StringBuilder used = new StringBuilder("# TYPE DCGM_FI_DEV_FB_USED gauge\n");
    StringBuilder free = new StringBuilder("# TYPE DCGM_FI_DEV_FB_FREE gauge\n");
    String dcgmLabels = "{gpu=\"0\",UUID=\"GPU-22\",device=\"nvidia0\",modelName=\"NVIDIA A100-SXM4-40GB\","
        + "Hostname=\"" + LABELED.guestHostName() + "\",instance=\"10.1.0.22:9400\",job=\"dcgm\",vm=\""
        + LABELED.name() + "\"}";
    StringBuilder nvUtil = new StringBuilder("# TYPE nvidia_smi_utilization_gpu_ratio gauge\n");
    StringBuilder nvUsed = new StringBuilder("# TYPE nvidia_smi_memory_used_bytes gauge\n");
    StringBuilder nvTotal = new StringBuilder("# TYPE nvidia_smi_memory_total_bytes gauge\n");
    String nvLabels = "{instance=\"trainer-23.lab.example:9835\",job=\"gpu\",uuid=\"GPU-23\"}";
    for (int s = 0; s < SECONDS; s += 5) {
      Instant t = base.plusSeconds(s);
      String secs = " " + t.getEpochSecond() + ".000\n";
      dcgm.append("DCGM_FI_DEV_GPU_UTIL").append(dcgmLabels).append(' ').append(util(LABELED, base, t)).append(secs);
      used.append("DCGM_FI_DEV_FB_USED").append(dcgmLabels).append(" 38912").append(secs);
      free.append("DCGM_FI_DEV_FB_FREE").append(dcgmLabels).append(" 2048").append(secs);
      nvUtil.append("nvidia_smi_utilization_gpu_ratio").append(nvLabels).append(' ')
          .append(util(BY_HOST_NAME, base, t) / 100.0).append(secs);
      nvUsed.append("nvidia_smi_memory_used_bytes").append(nvLabels).append(" 4.0802189312e+10").append(secs);
      nvTotal.append("nvidia_smi_memory_total_bytes").append(nvLabels).append(" 4.294967296e+10").append(secs);
    }
    Files.writeString(site.resolve("dcgm-exporter.om"), dcgm.append(used).append(free).append("# EOF\n").toString());
    Files.writeString(site.resolve("nvidia-gpu-exporter.om"), nvUtil.append(nvUsed).append(nvTotal)
        .append("# EOF\n").toString());
  }

  private static int util(Vm vm, Instant base, Instant t) {
    Instant start = base.plusSeconds(vm.startOffset());
    return !t.isBefore(start) && t.isBefore(start.plusSeconds(vm.seconds())) ? 48 : 96;
  }

  private static String vmLine(Vm vm) {
    return "{\"_typeName\":\"VirtualMachine\",\"moref\":\"" + vm.moref() + "\",\"name\":\"" + vm.name() + "\","
        + "\"datacenter\":\"dc1\",\"config\":{\"uuid\":\"" + vm.uuid() + "\",\"hardware\":{\"memoryMB\":131072,"
        + "\"device\":[{\"_typeName\":\"VirtualPCIPassthrough\",\"backing\":{\"_typeName\":"
        + "\"VirtualPCIPassthroughVmiopBackingInfo\",\"vgpu\":\"grid_t4-16c\"}}]},\"files\":{\"vmPathName\":\"[ds1] "
        + vm.name() + "/" + vm.name() + ".vmx\"}},"
        + (vm.guestHostName() == null ? "" : "\"guest\":{\"hostName\":\"" + vm.guestHostName() + "\"},")
        + "\"runtime\":{\"host\":" + moref("HostSystem", "host-" + vm.toHost()) + "}}";
  }

  private static String hostLine(int h) {
    return "{\"_typeName\":\"HostSystem\",\"moref\":\"host-" + h + "\",\"name\":\"esx0" + h + "\",\"cluster\":"
        + "{\"_typeName\":\"ManagedObjectReference\",\"type\":\"ClusterComputeResource\",\"value\":\"domain-c7\","
        + "\"name\":\"gpu\"}}";
  }
}
