package io.stunwatch.launcher.bundle;

import io.stunwatch.collectors.vcenter.VmwareLogFiles;
import io.stunwatch.collectors.worker.ReplayKind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The files of a support bundle, each with the part of Stunwatch that reads it, told from its content (a name is
 * only a hint: admins rename files). What a file belongs to comes from where it lies: a {@code <moref>/} folder
 * ({@code vm-42}) for a VM's vmware.log, a {@code <vm-id>/} folder or a file name that starts with the VM's UUID
 * for a guest's recordings, any other folder for a host's {@code vgpu -q}.
 */
public final class BundleFiles {

  /** Which replay a file goes to, in the order they are replayed. */
  public enum Part {
    /** VI/JSON VirtualMachine, HostSystem and AboutInfo objects. */
    INVENTORY,
    /** vCenter events as JSON (or text that will be refused with its advice). */
    EVENTS,
    /** A VM's vmware.log. */
    VMWARE_LOG,
    /** A host's vmkernel.log: the precopy bandwidth of the vMotions it sent. */
    VMKERNEL_LOG,
    /** Anything a worker reads: nvidia-smi, vgpu -q, RDMA, training logs; detected by the worker's replay. */
    WORKER
  }

  /**
   * One file (or sysfs tree) of the bundle.
   *
   * @param path     where it is
   * @param name     its path inside the bundle
   * @param part     which replay reads it
   * @param moref    the VM's managed object id of a vmware.log
   * @param vmId     the VM of a guest's file
   * @param hostname the folder a host's file lies in
   * @param sysfs    whether it is a sysfs RDMA tree (a directory)
   */
  public record Entry(Path path, String name, Part part, Optional<String> moref, Optional<String> vmId,
      Optional<String> hostname, boolean sysfs) {
  }

  /** {@code vmkernel.log}, and the rotated {@code vmkernel.0.log} or {@code vmkernel.1} of a support bundle. */
  static final Pattern VMKERNEL_NAME = Pattern.compile("vmkernel(\\.\\d{1,4})?(\\.log)?");
  static final Pattern MOREF = Pattern.compile("vm-\\d+");
  static final Pattern UUID = Pattern.compile("(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  /**
   * A vmware.log line of ESXi 5 to 8: {@code <ts>| vmx| }, {@code <ts>| vcpu-0| I125: }, {@code <ts> In(05) vmx - }.
   */
  private static final Pattern VMWARE_LOG_LINE = Pattern.compile(
      "^\\S+\\|\\s*(vmx|vcpu-\\d+|mks|svga|worker-\\d+)\\|.*|^\\S+ (In|Wa|No|Er|Cr|Db)\\(\\d+\\) \\S+ - .*");
  private static final Pattern INVENTORY_TYPE = Pattern.compile(
      "\"_typeName\"\\s*:\\s*\"(VirtualMachine|HostSystem|AboutInfo)\"");

  private BundleFiles() {
  }

  /** Every file of the bundle under {@code root}, in path order, each with its part. */
  public static List<Entry> list(Path root) throws IOException {
    List<Entry> out = new ArrayList<>();
    walk(root, root, out);
    return out;
  }

  private static void walk(Path root, Path dir, List<Entry> out) throws IOException {
    List<Path> children;
    try (Stream<Path> s = Files.list(dir)) {
      children = s.sorted().toList();
    }
    if (dir != root && children.stream().anyMatch(c -> Files.isDirectory(c.resolve("ports")))) {
      out.add(new Entry(dir, name(root, dir), Part.WORKER, Optional.empty(), vmId(root, dir), Optional.empty(),
          true));
      return;
    }
    for (Path c : children) {
      if (Files.isSymbolicLink(c)) {
        continue; // never followed: a bundle's link may point anywhere on this machine
      }
      if (Files.isDirectory(c)) {
        walk(root, c, out);
      } else if (Files.isRegularFile(c)) {
        out.add(entry(root, c));
      }
    }
  }

  private static Entry entry(Path root, Path file) throws IOException {
    String head = head(file);
    String first = head.lines().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
    Part part;
    if (VMKERNEL_NAME.matcher(file.getFileName().toString()).matches()) {
      part = Part.VMKERNEL_LOG;
    } else if (VmwareLogFiles.LOG_NAME.matcher(file.getFileName().toString()).matches()
        || head.lines().limit(20).filter(l -> !l.isBlank()).anyMatch(l -> VMWARE_LOG_LINE.matcher(l).matches())) {
      part = Part.VMWARE_LOG;
    } else if (first.startsWith("{") || first.startsWith("[")) {
      part = INVENTORY_TYPE.matcher(head).find() ? Part.INVENTORY : Part.EVENTS;
    } else if (ReplayKind.GOVC_EVENT.matcher(first).matches()) {
      part = Part.EVENTS;
    } else {
      part = Part.WORKER;
    }
    return new Entry(file, name(root, file), part, ancestor(root, file, MOREF), vmId(root, file),
        hostname(root, file), false);
  }

  /** The VM of a guest's file: the nearest {@code <uuid>/} folder, else a UUID the file's name starts with. */
  private static Optional<String> vmId(Path root, Path file) {
    Optional<String> folder = ancestor(root, file, UUID);
    if (folder.isPresent()) {
      return folder;
    }
    String n = file.getFileName().toString();
    return n.length() >= 36 && UUID.matcher(n.substring(0, 36)).matches() ? Optional.of(n.substring(0, 36))
        : Optional.empty();
  }

  /**
   * The folder a host's file lies in, when it is not the bundle's root nor a VM's folder; an ESXi support bundle's
   * {@code var/run/log} is passed over for the folder above it.
   */
  private static Optional<String> hostname(Path root, Path file) {
    Path parent = file.getParent();
    while (parent != null && !parent.equals(root) && LOG_FOLDERS.contains(parent.getFileName().toString())) {
      parent = parent.getParent();
    }
    if (parent == null || parent.equals(root) || !parent.startsWith(root)) {
      return Optional.empty();
    }
    String n = parent.getFileName().toString();
    return MOREF.matcher(n).matches() || UUID.matcher(n).matches() ? Optional.empty() : Optional.of(n);
  }

  /** The folders of an ESXi support bundle's path to its logs, which name no host. */
  private static final java.util.Set<String> LOG_FOLDERS = java.util.Set.of("var", "run", "log", "logs", "scratch");

  private static Optional<String> ancestor(Path root, Path file, Pattern name) {
    for (Path p = file.getParent(); p != null && p.startsWith(root) && !p.equals(root); p = p.getParent()) {
      if (name.matcher(p.getFileName().toString()).matches()) {
        return Optional.of(p.getFileName().toString());
      }
    }
    return Optional.empty();
  }

  private static String name(Path root, Path p) {
    return root.relativize(p).toString();
  }

  private static String head(Path file) throws IOException {
    if (ReplayKind.gzip(file)) {
      return ""; // gzipped: the worker's replay reads an nvidia-bug-report.log.gz, and refuses others by name
    }
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(16 << 10), StandardCharsets.UTF_8);
    }
  }
}
