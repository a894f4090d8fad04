package io.stunwatch.collectors.vcenter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** How a VM's {@code vmware.log} files are named and laid out in a support bundle, and which is the newest. */
public final class VmwareLogFiles {

  private VmwareLogFiles() {
  }

  /**
   * The vmware.log files of a support bundle's directory: {@code <moref>/vmware*.log}, each VM's files oldest first
   * ({@code vmware-N.log} before {@code vmware.log}, a higher N older), by moref.
   */
  public static Map<String, List<Path>> vmwareLogs(Path dir) throws IOException {
    Map<String, List<Path>> out = new TreeMap<>();
    try (var vms = Files.list(dir)) {
      for (Path vm : vms.sorted().toList()) {
        if (!Files.isDirectory(vm)) {
          continue;
        }
        try (var logs = Files.list(vm)) {
          List<Path> files = logs.filter(f -> LOG_NAME.matcher(f.getFileName().toString()).matches())
              .sorted(Comparator.comparingInt(VmwareLogFiles::rotation).reversed()).toList();
          if (!files.isEmpty()) {
            out.put(vm.getFileName().toString(), files);
          }
        }
      }
    }
    return out;
  }

  /** A VM's log file name: {@code vmware.log}, or a rotated {@code vmware-N.log}. */
  public static final Pattern LOG_NAME = Pattern.compile("vmware(-\\d+)?\\.log");

  /** N of vmware-N.log; 0 for vmware.log (or any other name), the newest. */
  public static int rotation(Path log) {
    String name = log.getFileName().toString();
    return name.matches("vmware-\\d+\\.log") ? Integer.parseInt(name.substring("vmware-".length(), name.length() - 4))
        : 0;
  }
}
