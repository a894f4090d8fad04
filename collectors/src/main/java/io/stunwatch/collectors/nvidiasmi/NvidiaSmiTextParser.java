package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.LocalTimes;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.VgpuProfile;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads {@code nvidia-smi -q}, the text form, into the same {@link GpuSnapshot} as {@code -q -x} gives: the form
 * people paste and the one inside {@code nvidia-bug-report.log}.
 *
 * <p>The text is an indented tree of {@code Key : Value} lines, one {@code GPU <bus id>} block per GPU. Drivers
 * 375 to 580 differ in key case ({@code Gpu}/{@code GPU}), in where the MIG devices sit ({@code MIG devices} above
 * them or not) and in whether a process's {@code GPU instance ID} precedes its {@code Process ID}; keys are matched
 * without case and sections found by name wherever they are nested, so each of them reads.
 */
public final class NvidiaSmiTextParser {

  /** The banner each {@code -q} output starts with; a loop ({@code -q -l}) prints one per reading. */
  public static final String BANNER = "==============NVSMI LOG==============";

  private static final Pattern GPU_HEADER = Pattern.compile("^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}"
      + "\\.[0-9A-Fa-f])\\s*$");
  private static final Pattern KEY_VALUE = Pattern.compile("^(\\s*)([^:]*?)\\s*(?::\\s?(.*))?$");
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("EEE MMM d HH:mm:ss yyyy",
      Locale.ENGLISH);

  private final LocalTimes localTimes;
  private final WorkerIdentity identity;
  private final Clock clock;

  public NvidiaSmiTextParser(ZoneId zone, WorkerIdentity identity, Clock clock) {
    this.localTimes = new LocalTimes(zone, clock);
    this.identity = identity;
    this.clock = clock;
  }

  /** One line of the tree: its key, its value (null for a section) and the lines indented under it. */
  record Node(String key, String value, List<Node> children, long line) {

    Node child(String name) {
      for (Node c : children) {
        if (c.key.equalsIgnoreCase(name)) {
          return c;
        }
      }
      return null;
    }

    /** The value of a direct child, null when absent or one of nvidia-smi's "no value" forms. */
    String text(String name) {
      Node c = child(name);
      return c == null ? null : NvidiaSmiValues.text(c.value);
    }

    /** Every node named {@code name} at any depth below this one, in file order. */
    void findAll(String name, List<Node> out) {
      for (Node c : children) {
        if (c.key.equalsIgnoreCase(name)) {
          out.add(c);
        } else {
          c.findAll(name, out);
        }
      }
    }
  }

  /** Whether a text holds {@code -q} output: its banner, or the lines that open it when the banner was cut. */
  public static boolean looksLikeQuery(String head) {
    if (head.contains(BANNER)) {
      return true;
    }
    boolean driver = false;
    boolean attached = false;
    for (String line : head.split("\\R", 200)) {
      String k = line.strip().toLowerCase(Locale.ROOT);
      driver |= k.matches("driver version\\s*:.*");
      attached |= k.matches("attached gpus\\s*:.*");
    }
    return driver && attached;
  }

  /**
   * Parses one {@code -q} output (one reading).
   *
   * @param lines      its lines, from the banner or first key on
   * @param firstLine  the 1-based number of {@code lines[0]} in its file, for errors
   * @param source     names the file in errors
   * @param fallback   the time to give a reading whose output has no {@code Timestamp} (a bug report's date);
   *                   null for the read time
   */
  public GpuSnapshot parse(List<String> lines, long firstLine, String source, Instant fallback)
      throws InputParseException {
    Node root = tree(lines, firstLine);
    List<Node> gpus = new ArrayList<>();
    for (Node n : root.children) {
      if (GPU_HEADER.matcher(n.key).matches()) {
        gpus.add(n);
      }
    }
    if (gpus.isEmpty()) {
      throw new InputParseException(source, firstLine, "an nvidia-smi -q reading with no 'GPU <bus id>' block");
    }
    Node stamp = root.child("Timestamp");
    Instant timestamp;
    try {
      timestamp = stamp == null || NvidiaSmiValues.text(stamp.value) == null
          ? (fallback != null ? fallback : clock.instant())
          : localTimes.resolve(LocalDateTime.parse(stamp.value.strip().replaceAll("\\s+", " "), TIMESTAMP));
    } catch (DateTimeParseException e) {
      throw new InputParseException(source, stamp.line, "Timestamp '" + InputParseException.quote(stamp.value, 40)
          + "' is not like 'Wed Jul 22 15:37:16 2026'");
    }
    List<GpuSnapshot.Gpu> out = new ArrayList<>();
    for (Node gpu : gpus) {
      try {
        out.add(gpu(gpu));
      } catch (IllegalArgumentException e) {
        throw new InputParseException(source, gpu.line, e.getMessage());
      }
    }
    try {
      return new GpuSnapshot(identity.vmId(), identity.hostname(), timestamp, root.text("Driver Version"),
          root.text("CUDA Version"), out);
    } catch (IllegalArgumentException e) {
      throw new InputParseException(source, firstLine, e.getMessage());
    }
  }

  /** Whether this reading is a hypervisor host's: its GPUs run vGPUs for VMs, none of them is a VM's own. */
  public static boolean isHostReading(GpuSnapshot s) {
    return s.gpus().stream().anyMatch(g -> g.virtualizationMode() != null
        && g.virtualizationMode().toLowerCase(Locale.ROOT).startsWith("host"));
  }

  private GpuSnapshot.Gpu gpu(Node gpu) {
    Matcher header = GPU_HEADER.matcher(gpu.key);
    header.matches();
    String name = gpu.text("Product Name");
    Node fb = gpu.child("FB Memory Usage");
    Node util = gpu.child("Utilization");
    Node virt = gpu.child("GPU Virtualization Mode");
    Node mig = gpu.child("MIG Mode");
    List<Node> migNodes = new ArrayList<>();
    gpu.findAll("MIG Device", migNodes);
    List<GpuSnapshot.MigDevice> migDevices = new ArrayList<>();
    for (Node m : migNodes) {
      Node mfb = m.child("FB Memory Usage") != null ? m.child("FB Memory Usage") : m.child("Shared FB Memory Usage");
      Long index = NvidiaSmiValues.whole(m.text("Index"));
      migDevices.add(new GpuSnapshot.MigDevice(index == null ? migDevices.size() : index.intValue(),
          integer(m.text("GPU Instance ID")), integer(m.text("Compute Instance ID")),
          mfb == null ? null : NvidiaSmiValues.whole(mfb.text("Total")),
          mfb == null ? null : NvidiaSmiValues.whole(mfb.text("Used"))));
    }
    return new GpuSnapshot.Gpu(header.group(1), gpu.text("GPU UUID"), name, integer(gpu.text("Minor Number")),
        virt == null ? null : virt.text("Virtualization Mode"),
        virt == null ? null : virt.text("Host VGPU Mode"),
        mig == null ? null : mig.text("Current"),
        fb == null ? null : NvidiaSmiValues.whole(fb.text("Total")),
        fb == null ? null : NvidiaSmiValues.whole(fb.text("Used")),
        util == null ? null : NvidiaSmiValues.number(util.text("GPU")),
        VgpuProfile.parse(name).orElse(null), migDevices, processes(gpu.child("Processes")));
  }

  /**
   * The processes: each starts at a {@code Process ID}; its type, name and memory are indented under it (or, on
   * old drivers, follow it), and the {@code GPU instance ID} and {@code Compute instance ID} of a MIG process come
   * just before it.
   */
  private static List<GpuSnapshot.GpuProcess> processes(Node section) {
    List<GpuSnapshot.GpuProcess> out = new ArrayList<>();
    if (section == null) {
      return out;
    }
    List<Node> flat = new ArrayList<>();
    for (Node c : section.children) {
      flat.add(c);
      flat.addAll(c.children);
    }
    ProcessDraft d = new ProcessDraft();
    for (Node n : flat) {
      String v = NvidiaSmiValues.text(n.value);
      switch (n.key.toLowerCase(Locale.ROOT)) {
        // either one after a process's lines opens the next process
        case "gpu instance id", "process id" -> {
          if (d.open) {
            out.add(d.done());
            d = new ProcessDraft();
          }
          if (n.key.equalsIgnoreCase("process id")) {
            d.pid = NvidiaSmiValues.whole(v);
            d.open = true;
          } else {
            d.gi = v;
          }
        }
        case "compute instance id" -> d.ci = v;
        case "type" -> d.type = v;
        case "name", "process name" -> d.name = v;
        case "used gpu memory" -> d.memory = NvidiaSmiValues.whole(v);
        default -> {
          // other per-process keys are not kept
        }
      }
    }
    if (d.open) {
      out.add(d.done());
    }
    return out;
  }

  /** One process as its lines fill it in. */
  private static final class ProcessDraft {
    boolean open;
    Long pid;
    String gi;
    String ci;
    String type;
    String name;
    Long memory;

    GpuSnapshot.GpuProcess done() {
      return new GpuSnapshot.GpuProcess(pid, type, name, memory, integer(gi), integer(ci));
    }
  }

  private static Integer integer(String raw) {
    Long v = NvidiaSmiValues.whole(raw);
    return v == null ? null : Math.toIntExact(v);
  }

  /** The indented tree of the lines; the banner, blank lines and lines with no key are left out. */
  static Node tree(List<String> lines, long firstLine) {
    Node root = new Node("", null, new ArrayList<>(), firstLine);
    List<Node> stack = new ArrayList<>();
    List<Integer> indents = new ArrayList<>();
    stack.add(root);
    indents.add(-1);
    long n = firstLine - 1;
    for (String raw : lines) {
      n++;
      String line = raw.replace("\t", "    ").stripTrailing();
      if (line.isBlank() || line.strip().startsWith("=====")) {
        continue;
      }
      Matcher m = KEY_VALUE.matcher(line);
      if (!m.matches() || m.group(2).isEmpty()) {
        continue;
      }
      int indent = m.group(1).length();
      // a GPU's block opens with its bus id, whose colons are not a key's
      boolean gpu = GPU_HEADER.matcher(line.strip()).matches();
      while (indents.get(indents.size() - 1) >= indent) {
        stack.remove(stack.size() - 1);
        indents.remove(indents.size() - 1);
      }
      Node node = gpu ? new Node(line.strip(), null, new ArrayList<>(), n)
          : new Node(m.group(2).strip(), m.group(3) == null ? null : m.group(3).strip(), new ArrayList<>(), n);
      stack.get(stack.size() - 1).children.add(node);
      stack.add(node);
      indents.add(indent);
    }
    return root;
  }
}
