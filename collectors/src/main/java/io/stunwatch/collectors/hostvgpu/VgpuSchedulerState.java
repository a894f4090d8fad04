package io.stunwatch.collectors.hostvgpu;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads {@code nvidia-smi vgpu -ss}: for each {@code GPU <bus id>} block, every {@code Key : Value} line the driver
 * prints (scheduler policy, ARR mode, time slice, average factor, and whatever a newer driver adds), keyed by the
 * path of its sections, as printed. Lines it does not understand are left out; nothing here is required.
 */
public final class VgpuSchedulerState {

  private VgpuSchedulerState() {
  }

  /** The fields of each GPU, by bus id (lower case), in the order printed. */
  public static Map<String, Map<String, String>> parse(String text) {
    Map<String, Map<String, String>> gpus = new LinkedHashMap<>();
    Map<String, String> gpu = null;
    String section = "";
    int sectionIndent = -1;
    for (String raw : text.split("\\R")) {
      if (raw.isBlank()) {
        continue;
      }
      int indent = raw.length() - raw.stripLeading().length();
      String line = raw.strip();
      if (indent == 0 && line.startsWith("GPU ")) {
        gpu = gpus.computeIfAbsent(line.substring(4).trim().toLowerCase(Locale.ROOT), k -> new LinkedHashMap<>());
        section = "";
        sectionIndent = -1;
        continue;
      }
      if (gpu == null) {
        continue;
      }
      int colon = line.indexOf(" : ");
      if (colon < 0 && line.endsWith(":")) {
        colon = line.length() - 1;
      }
      if (indent <= sectionIndent) {
        section = "";
        sectionIndent = -1;
      }
      if (colon < 0 || line.substring(Math.min(line.length(), colon + 1)).isBlank()) {
        section = (colon < 0 ? line : line.substring(0, colon)).strip();
        sectionIndent = indent;
        continue;
      }
      String key = line.substring(0, colon).strip();
      gpu.put(section.isEmpty() ? key : section + "/" + key, line.substring(colon + 3).strip());
    }
    return gpus;
  }

  /** The scheduling policy among a GPU's fields: the first whose name ends in "policy", or null. */
  public static String policy(Map<String, String> fields) {
    for (Map.Entry<String, String> e : fields.entrySet()) {
      String k = e.getKey().toLowerCase(Locale.ROOT);
      if (k.endsWith("policy") && !e.getValue().isBlank() && !e.getValue().equalsIgnoreCase("N/A")) {
        return e.getValue();
      }
    }
    return null;
  }
}
