package io.stunwatch.collectors.hostvgpu;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmIds;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the text of {@code nvidia-smi vgpu -q} on a hypervisor host: one {@code GPU <bus id>} block per physical GPU
 * and, in it, one {@code vGPU ID : N} block per vGPU, with indented {@code Key : Value} lines and sub-sections
 * ({@code FB Memory Usage}, {@code Utilization}). Keys are matched case-insensitively, so {@code Gpu} and {@code GPU}
 * both work, as different drivers print them.
 */
public final class VgpuQueryParser {

  /**
   * Parses one output of the command.
   *
   * @param text      the command's output
   * @param hostname  the hypervisor host
   * @param timestamp when it was taken
   * @param source    names the command or file in errors
   * @return one sample per vGPU
   * @throws InputParseException naming the source, line and reason when the text is not {@code vgpu -q} output
   */
  public List<HostVgpuSample> parse(String text, String hostname, Instant timestamp, String source)
      throws InputParseException {
    List<HostVgpuSample> out = new ArrayList<>();
    String gpuBusId = null;
    Map<String, String> gpu = new HashMap<>();
    Map<String, String> vgpu = null;
    int vgpuLine = 0;
    List<Section> sections = new ArrayList<>();
    String[] lines = text.split("\\R", -1);
    boolean sawGpu = false;
    for (int i = 0; i < lines.length; i++) {
      String raw = lines[i].replace("\t", "    ");
      if (raw.isBlank()) {
        continue;
      }
      int indent = raw.length() - raw.stripLeading().length();
      String line = raw.strip();
      if (indent == 0 && line.startsWith("GPU ")) {
        vgpuLine = flush(out, vgpu, gpuBusId, gpu, hostname, timestamp, source, vgpuLine);
        vgpu = null;
        gpuBusId = line.substring(4).trim();
        gpu = new HashMap<>();
        sections.clear();
        sawGpu = true;
        continue;
      }
      if (!sawGpu) {
        continue; // banners such as "==============NVSMI LOG=============="
      }
      while (!sections.isEmpty() && sections.get(sections.size() - 1).indent >= indent) {
        sections.remove(sections.size() - 1);
      }
      int colon = line.indexOf(" : ");
      if (colon < 0 && line.endsWith(":")) {
        colon = line.length() - 1;
      }
      if (colon < 0) {
        sections.add(new Section(indent, key(line)));
        continue;
      }
      String key = key(line.substring(0, colon));
      String value = line.substring(Math.min(line.length(), colon + 3)).trim();
      if (key.equals("vgpu id")) {
        vgpuLine = flush(out, vgpu, gpuBusId, gpu, hostname, timestamp, source, vgpuLine);
        vgpu = new HashMap<>();
        vgpu.put(key, value);
        vgpuLine = i + 1;
        sections.clear();
        sections.add(new Section(indent, "")); // keys under the vGPU are indented deeper than its id
        continue;
      }
      String path = path(sections, key);
      (vgpu == null ? gpu : vgpu).put(path, value);
    }
    flush(out, vgpu, gpuBusId, gpu, hostname, timestamp, source, vgpuLine);
    if (!sawGpu) {
      throw new InputParseException(source, 0, "no 'GPU <bus id>' block: not nvidia-smi vgpu -q output");
    }
    return out;
  }

  private static int flush(List<HostVgpuSample> out, Map<String, String> v, String busId, Map<String, String> gpu,
      String hostname, Instant timestamp, String source, int line) throws InputParseException {
    if (v == null) {
      return line;
    }
    try {
      String vmUuid = text(v.get("vm uuid"));
      String vmIdPrinted = text(v.get("vm id"));
      if (vmUuid == null && vmIdPrinted != null && VmIds.isUuid(vmIdPrinted)) {
        vmUuid = vmIdPrinted; // hypervisors that print the VM's UUID under "VM ID"
        vmIdPrinted = null;
      }
      String type = text(v.get("vgpu name"));
      out.add(new HostVgpuSample(vmUuid == null || !VmIds.isUuid(vmUuid) ? null : vmUuid, hostname, timestamp,
          busId, text(gpu.get("product name")), text(v.get("vm name")), text(v.get("vgpu id")), type,
          VgpuProfile.parse(type).orElse(null),
          mib(v.get("fb memory usage/total")), mib(v.get("fb memory usage/used")),
          pct(v.get("utilization/gpu")), pct(v.get("utilization/memory")), schedulerPolicy(gpu),
          vmIdPrinted, integer(v.get("gpu instance id"))));
    } catch (IllegalArgumentException e) {
      throw new InputParseException(source, line, "vGPU " + v.get("vgpu id") + ": " + e.getMessage());
    }
    return line;
  }

  private static String schedulerPolicy(Map<String, String> gpu) {
    for (Map.Entry<String, String> e : gpu.entrySet()) {
      if (e.getKey().endsWith("scheduling policy") || e.getKey().endsWith("scheduler policy")
          || e.getKey().endsWith("vgpu scheduler policy")) {
        return text(e.getValue());
      }
    }
    return null;
  }

  private static String path(List<Section> sections, String key) {
    StringBuilder b = new StringBuilder();
    for (Section s : sections) {
      if (!s.name.isEmpty()) {
        b.append(s.name).append('/');
      }
    }
    return b.append(key).toString();
  }

  private static String key(String k) {
    return k.trim().toLowerCase(Locale.ROOT);
  }

  private static String text(String v) {
    if (v == null) {
      return null;
    }
    String t = v.trim();
    return t.isEmpty() || t.equalsIgnoreCase("N/A") || t.startsWith("[") ? null : t;
  }

  private static Long mib(String v) {
    String t = text(v);
    if (t == null) {
      return null;
    }
    String n = t.replaceAll("(?i)\\s*MiB$", "");
    try {
      return Long.parseLong(n);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + t + "' is not a size in MiB");
    }
  }

  private static Integer integer(String v) {
    String t = text(v);
    if (t == null) {
      return null;
    }
    try {
      return Integer.parseInt(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + t + "' is not a whole number");
    }
  }

  private static Double pct(String v) {
    String t = text(v);
    if (t == null) {
      return null;
    }
    try {
      return Double.parseDouble(t.replace("%", "").trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + t + "' is not a percentage");
    }
  }

  private record Section(int indent, String name) {
  }
}
