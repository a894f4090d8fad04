package io.stunwatch.collectors.prometheus;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.ExporterGpuSample;
import io.stunwatch.model.VmIds;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Turns the samples of an exporter's page into one {@link ExporterGpuSample} per GPU (or MIG instance) and time.
 *
 * <p>Metrics read, by exporter:
 * <ul>
 *   <li><b>dcgm-exporter</b>: {@code DCGM_FI_DEV_GPU_UTIL} (percent), {@code DCGM_FI_DEV_MEM_COPY_UTIL} (percent),
 *       {@code DCGM_FI_DEV_FB_USED}, {@code DCGM_FI_DEV_FB_FREE} and {@code DCGM_FI_DEV_FB_TOTAL} (MiB), and for a MIG
 *       instance, which has no {@code GPU_UTIL}, {@code DCGM_FI_PROF_GR_ENGINE_ACTIVE} (a ratio). Labels
 *       {@code gpu}, {@code UUID}, {@code modelName}, {@code Hostname}, {@code GPU_I_ID}.</li>
 *   <li><b>nvidia_gpu_exporter</b>: {@code nvidia_smi_utilization_gpu_ratio}, {@code nvidia_smi_utilization_memory_ratio}
 *       (ratios), {@code nvidia_smi_memory_used_bytes}, {@code nvidia_smi_memory_free_bytes},
 *       {@code nvidia_smi_memory_total_bytes}, and {@code nvidia_smi_gpu_info} for {@code name} and {@code index}.
 *       Label {@code uuid}.</li>
 * </ul>
 * A total is the exporter's, else used plus free. {@code NaN} and infinities are unknown, never 0. A GPU split into MIG
 * instances gives a sample per instance ({@link ExporterGpuSample#migInstanceId()}) and none of its own.
 *
 * <p>The VM, in this order: the target's mapping ({@code NAME=URL}), the configured VM label (a UUID is the VM id,
 * anything else its name in vCenter), the host-name label ({@code Hostname} by default), the host of the
 * {@code instance} label (in a Prometheus dump), the host of the target's URL. The last three are matched against the
 * guest host name VMware Tools reports ({@code guest.hostName}) by the processor.
 */
public final class ExporterMapping {

  /** dcgm-exporter's name in {@link ExporterGpuSample#exporter()}. */
  public static final String DCGM = "dcgm-exporter";
  /** nvidia_gpu_exporter's name in {@link ExporterGpuSample#exporter()}. */
  public static final String NVIDIA_GPU_EXPORTER = "nvidia_gpu_exporter";

  private static final double MIB = 1024 * 1024;

  private final String vmLabel;
  private final String hostnameLabel;

  /**
   * @param vmLabel       the label that names the VM (its UUID or its name), or null
   * @param hostnameLabel the label that holds the guest's host name
   */
  public ExporterMapping(String vmLabel, String hostnameLabel) {
    this.vmLabel = vmLabel;
    this.hostnameLabel = hostnameLabel;
  }

  /**
   * Why a well-formed page gave no GPU, or null when it gave one or held nothing: the families it did hold (the first
   * five), so that a node_exporter page or an exporter release that renamed its metrics is named, never read as an
   * idle fleet.
   *
   * @param mapped how many GPU samples {@link #map} made of the page
   */
  public static String noGpuFamilies(ExpositionParser.Page page, int mapped) {
    if (mapped > 0 || page.samples().isEmpty()) {
      return null;
    }
    java.util.Set<String> families = new java.util.TreeSet<>();
    page.samples().forEach(s -> families.add(s.name()));
    String seen = families.stream().limit(5).collect(java.util.stream.Collectors.joining(", "));
    return "none of the GPU families read (DCGM_FI_DEV_*, DCGM_FI_PROF_*, nvidia_smi_*) among its " + families.size()
        + " families: " + seen + (families.size() > 5 ? ", ..." : "");
  }

  /** One GPU at one time, as the page's samples fill it in. */
  private static final class Gpu {
    String exporter;
    String vm;
    String hostname;
    int index;
    String uuid;
    String name;
    Integer mig;
    long at;
    Double util;
    Double engineActive;
    Double memUtil;
    Double usedMiB;
    Double freeMiB;
    Double totalMiB;
    int line;
  }

  /**
   * Maps a page.
   *
   * @param page     the parsed page
   * @param target   the target: its mapped VM (or null) and its URL or file
   * @param scraped  when it was scraped: the time of samples without their own
   * @param onError  told of each GPU that cannot become a sample (a figure out of range, no VM identity)
   * @return the samples, oldest first
   */
  public List<ExporterGpuSample> map(ExpositionParser.Page page, ScrapeTarget target, Instant scraped,
      Consumer<InputParseException> onError) {
    Map<String, Gpu> gpus = new LinkedHashMap<>();
    // nvidia_gpu_exporter names and numbers its GPUs in an info metric of its own
    Map<String, ExpositionParser.Sample> info = new LinkedHashMap<>();
    for (ExpositionParser.Sample s : page.samples()) {
      if (s.name().equals("nvidia_smi_gpu_info") && s.label("uuid") != null) {
        info.put(s.label("uuid"), s);
      }
    }
    for (ExpositionParser.Sample s : page.samples()) {
      String n = s.name();
      boolean dcgm = n.startsWith("DCGM_FI_");
      if (!dcgm && !n.startsWith("nvidia_smi_")) {
        continue;
      }
      String field = field(n);
      if (field == null) {
        continue;
      }
      long at = s.timestampMillis() != null ? s.timestampMillis() : scraped.toEpochMilli();
      String uuid = dcgm ? s.label("UUID") : s.label("uuid");
      String index = dcgm ? s.label("gpu") : null;
      String mig = dcgm ? s.label("GPU_I_ID") : null;
      String vm = target.vm() != null ? target.vm() : vmLabel == null ? null : s.label(vmLabel);
      String hostname = s.label(hostnameLabel);
      if (hostname == null || hostname.isBlank()) {
        hostname = host(s.label("instance"));
      }
      if (hostname == null || hostname.isBlank()) {
        hostname = target.host();
      }
      String key = String.join("\u0000", dcgm ? DCGM : NVIDIA_GPU_EXPORTER, String.valueOf(vm),
          String.valueOf(hostname), String.valueOf(uuid), String.valueOf(index), String.valueOf(mig),
          Long.toString(at));
      Gpu g = gpus.get(key);
      if (g == null) {
        g = new Gpu();
        g.exporter = dcgm ? DCGM : NVIDIA_GPU_EXPORTER;
        g.vm = vm;
        g.hostname = hostname;
        g.uuid = uuid;
        g.at = at;
        g.line = s.line();
        g.mig = mig == null ? null : parseInt(mig);
        ExpositionParser.Sample i = dcgm ? null : info.get(uuid);
        String idx = dcgm ? index : i == null ? null : i.label("index");
        g.index = idx == null || parseInt(idx) == null ? 0 : parseInt(idx);
        g.name = dcgm ? s.label("modelName") : i == null ? null : i.label("name");
        gpus.put(key, g);
      }
      Double v = Double.isFinite(s.value()) ? s.value() : null;
      switch (field) {
        case "util" -> g.util = v;
        case "engine" -> g.engineActive = v == null ? null : v * 100;
        case "util-ratio" -> g.util = v == null ? null : v * 100;
        case "mem-util" -> g.memUtil = v;
        case "mem-util-ratio" -> g.memUtil = v == null ? null : v * 100;
        case "used" -> g.usedMiB = v;
        case "free" -> g.freeMiB = v;
        case "total" -> g.totalMiB = v;
        case "used-bytes" -> g.usedMiB = v == null ? null : v / MIB;
        case "free-bytes" -> g.freeMiB = v == null ? null : v / MIB;
        case "total-bytes" -> g.totalMiB = v == null ? null : v / MIB;
        default -> throw new IllegalStateException(field);
      }
    }
    // A GPU split into MIG instances is counted by its instances: its whole-GPU figures (the framebuffer of all of
    // them together) would count the same memory twice.
    Set<String> split = new HashSet<>();
    for (Gpu g : gpus.values()) {
      if (g.mig != null) {
        split.add(g.uuid + "@" + g.at);
      }
    }
    List<ExporterGpuSample> out = new ArrayList<>();
    for (Gpu g : gpus.values()) {
      if (g.mig == null && split.contains(g.uuid + "@" + g.at)) {
        continue;
      }
      Double util = g.util != null ? g.util : g.engineActive;
      Long used = g.usedMiB == null ? null : Math.round(g.usedMiB);
      Double totalMiB = g.totalMiB != null ? g.totalMiB
          : g.usedMiB != null && g.freeMiB != null ? g.usedMiB + g.freeMiB : null;
      Long total = totalMiB == null ? null : Math.round(totalMiB);
      if (util == null && used == null && g.memUtil == null) {
        continue; // only figures Stunwatch does not read, or none known
      }
      String vmId = g.vm != null && VmIds.isUuid(g.vm) ? g.vm : null;
      String vmName = g.vm != null && vmId == null ? g.vm : null;
      try {
        out.add(new ExporterGpuSample(vmId, vmName, g.hostname, g.exporter, target.redacted(),
            Instant.ofEpochMilli(g.at), g.index, g.uuid, g.name, g.mig, util, g.memUtil, used, total));
      } catch (IllegalArgumentException e) {
        onError.accept(new InputParseException(target.redacted(), g.line, "GPU " + Objects.requireNonNullElse(g.uuid,
            "index " + g.index) + (g.mig == null ? "" : " MIG instance " + g.mig) + ": " + e.getMessage()));
      }
    }
    out.sort(Comparator.comparing(ExporterGpuSample::timestamp));
    return out;
  }

  private static String field(String metric) {
    return switch (metric) {
      case "DCGM_FI_DEV_GPU_UTIL" -> "util";
      case "DCGM_FI_PROF_GR_ENGINE_ACTIVE" -> "engine";
      case "DCGM_FI_DEV_MEM_COPY_UTIL" -> "mem-util";
      case "DCGM_FI_DEV_FB_USED" -> "used";
      case "DCGM_FI_DEV_FB_FREE" -> "free";
      case "DCGM_FI_DEV_FB_TOTAL" -> "total";
      case "nvidia_smi_utilization_gpu_ratio" -> "util-ratio";
      case "nvidia_smi_utilization_memory_ratio" -> "mem-util-ratio";
      case "nvidia_smi_memory_used_bytes" -> "used-bytes";
      case "nvidia_smi_memory_free_bytes" -> "free-bytes";
      case "nvidia_smi_memory_total_bytes" -> "total-bytes";
      default -> null;
    };
  }

  private static Integer parseInt(String s) {
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The host of an {@code instance} label ({@code host:port}, or {@code [v6]:port}). */
  static String host(String instance) {
    if (instance == null || instance.isBlank()) {
      return null;
    }
    try {
      String h = URI.create("http://" + instance).getHost();
      return h == null ? instance : h;
    } catch (IllegalArgumentException e) {
      return instance;
    }
  }
}
