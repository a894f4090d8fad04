package io.stunwatch.collectors.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * What a worker's replay file holds; {@link #detect} tells from its content, {@code --replay-as} overrides.
 *
 * <p>Detection never guesses silently: a file that is a known form that cannot make records (nvidia-smi's summary
 * table, {@code vgpu -s}, {@code govc events} text, a vCenter JSON given to the worker) is refused with a
 * {@link ReplayRefusedException} that says what to record or pass instead.
 */
public enum ReplayKind {
  /** {@code nvidia-smi --query-gpu ... --format=csv}: with its header (after any preamble lines), or without. */
  NVIDIA_SMI_CSV,
  /** {@code nvidia-smi -q -x}. */
  NVIDIA_SMI_XML,
  /** {@code nvidia-smi -q}, the text form, one reading or a loop of them. */
  NVIDIA_SMI_TEXT,
  /** {@code nvidia-bug-report.log} or {@code .log.gz}: its {@code nvidia-smi -q} sections. */
  NVIDIA_BUG_REPORT,
  /** {@code nvidia-smi vgpu -q}. */
  VGPU_QUERY,
  /** A directory laid out like {@code /sys/class/infiniband}. */
  SYSFS,
  /** A listing of sysfs RDMA counters as {@code grep -H . /sys/class/infiniband/&#42;/ports/&#42;/...} prints it. */
  RDMA_LISTING,
  /** A training log. */
  LOG;

  /** How much of a file detection reads. */
  static final int HEAD_BYTES = 64 << 10;

  /** A {@code grep -H} line of one sysfs RDMA file: {@code /sys/class/infiniband/mlx5_0/ports/1/counters/x:12}. */
  static final Pattern RDMA_LINE = Pattern.compile("^(?:\\S*/)?infiniband/[^/\\s]+/ports/\\d+/\\S+:.*$");
  /** {@code govc events}: {@code [Wed Dec  6 14:05:44 2017] [info] ...}. */
  public static final Pattern GOVC_EVENT = Pattern.compile(
      "^\\[\\w{3} \\w{3} +\\d{1,2} \\d\\d:\\d\\d:\\d\\d \\d{4}] \\[\\w+] .*");
  /** A value as only nvidia-smi prints it in a CSV cell. */
  static final Pattern NVIDIA_CELL = Pattern.compile("\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d+)?"
      + "|GPU-[0-9a-fA-F-]{36}|[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]"
      + "|\\d+(\\.\\d+)? (%|MiB|W|MHz)|\\[N/A]|\\[Not Supported]|P\\d{1,2}");

  /** Detects the kind of a file or directory from its first bytes or its layout. */
  public static ReplayKind detect(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      try (Stream<Path> devices = Files.list(path)) {
        if (devices.anyMatch(d -> Files.isDirectory(d.resolve("ports")))) {
          return SYSFS;
        }
      }
      throw new ReplayRefusedException("a directory that is not a sysfs RDMA tree",
          "give a copy of /sys/class/infiniband, whose <device>/ports/<n>/counters hold the counters");
    }
    String head = head(path);
    String trimmed = head.stripLeading();
    if (trimmed.startsWith("<?xml") || trimmed.startsWith("<nvidia_smi_log")
        || trimmed.startsWith("<!DOCTYPE nvidia")) {
      return NVIDIA_SMI_XML;
    }
    if (head.contains("nvidia-bug-report.sh") || head.contains("nvidia-bug-report.log")) {
      return NVIDIA_BUG_REPORT;
    }
    if (gzip(path)) {
      throw new ReplayRefusedException("a gzip file that is not an nvidia-bug-report.log.gz",
          "gunzip it and replay what it holds");
    }
    if (binary(head)) {
      throw new ReplayRefusedException("a binary file, not a recording",
          "replay what the tools printed: nvidia-smi's CSV, -q or -q -x, nvidia-bug-report.log[.gz], 'nvidia-smi "
              + "vgpu -q', an RDMA counter listing or a training log");
    }
    if (trimmed.startsWith("{") || trimmed.startsWith("[{") || trimmed.startsWith("[\n") || trimmed.equals("[")) {
      throw new ReplayRefusedException("JSON, not a worker's recording",
          "vCenter events and inventory are replayed with 'stunwatch collect vcenter --replay' or "
              + "'stunwatch replay'");
    }
    List<String> lines = head.lines().limit(400).toList();
    if (lines.stream().anyMatch(l -> l.strip().toLowerCase(Locale.ROOT).matches("(active vgpus|vgpu id)\\s*:.*"))) {
      return VGPU_QUERY;
    }
    if (isQueryText(head) && !isVgpuQuery(path)) {
      return NVIDIA_SMI_TEXT;
    }
    if (isSummaryTable(lines)) {
      throw new ReplayRefusedException("nvidia-smi's summary table",
          "it has no time per reading and rounds its values; record 'nvidia-smi --query-gpu=timestamp,index,uuid,"
              + "name,utilization.gpu,memory.used,memory.total --format=csv -l 1' on a VM, or "
              + "'nvidia-smi vgpu -q -l 5' on a host (replayed with --hostname)");
    }
    if (lines.stream().anyMatch(l -> l.strip().toLowerCase(Locale.ROOT).startsWith("vgpu type id"))
        && lines.stream().noneMatch(l -> l.strip().toLowerCase(Locale.ROOT).matches("(active vgpus|vgpu id)\\s*:.*"))) {
      throw new ReplayRefusedException("nvidia-smi vgpu -s (the vGPU types a host supports)",
          "it lists types, not readings; record 'nvidia-smi vgpu -q -l 5' on the host and replay it with --hostname");
    }
    if (lines.stream().filter(l -> !l.isBlank()).limit(5).anyMatch(l -> GOVC_EVENT.matcher(l).matches())) {
      throw govcEventsRefusal();
    }
    if (lines.stream().filter(l -> !l.isBlank()).limit(20).anyMatch(l -> RDMA_LINE.matcher(l).matches())) {
      return RDMA_LISTING;
    }
    if (csvHeaderLine(lines) >= 0 || csvDataLine(lines) >= 0) {
      return NVIDIA_SMI_CSV;
    }
    if (isVgpuQuery(path)) {
      return VGPU_QUERY;
    }
    return LOG;
  }

  /**
   * Whether a file's first bytes are not text: a NUL, or more than one in a hundred characters that are neither
   * printable, whitespace, nor valid UTF-8. Every recording Stunwatch reads is text (a gzip is looked into first).
   */
  static boolean binary(String head) {
    if (head.isEmpty()) {
      return false;
    }
    int odd = 0;
    for (int i = 0; i < head.length(); i++) {
      char c = head.charAt(i);
      if (c == 0) {
        return true;
      }
      if (c == '\uFFFD' || c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') {
        odd++;
      }
    }
    return odd * 100 > head.length();
  }

  /** {@code govc events} text: a known form with no managed object ids, and the command that gives full events. */
  public static ReplayRefusedException govcEventsRefusal() {
    return new ReplayRefusedException("govc events text",
        "it names VMs and hosts but carries no managed object ids, so it cannot make migration records; run "
            + "'govc events -json -l' (or take the event router's JSON) and replay that with "
            + "'stunwatch collect vcenter --replay' or 'stunwatch replay'");
  }

  /** The first {@link #HEAD_BYTES} of a file as text, through gunzip when it is gzipped. */
  static String head(Path path) throws IOException {
    try (InputStream raw = Files.newInputStream(path);
        InputStream in = gzip(path) ? new GZIPInputStream(raw) : raw) {
      return new String(in.readNBytes(HEAD_BYTES), StandardCharsets.UTF_8);
    } catch (java.util.zip.ZipException e) {
      throw new ReplayRefusedException("a damaged gzip file", e.getMessage());
    }
  }

  /** Whether a file starts with gzip's magic bytes. */
  public static boolean gzip(Path path) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      byte[] magic = in.readNBytes(2);
      return magic.length == 2 && (magic[0] & 0xff) == 0x1f && (magic[1] & 0xff) == 0x8b;
    }
  }

  /** nvidia-smi's default output: a box with {@code NVIDIA-SMI <version>} in its first row. */
  static boolean isSummaryTable(List<String> lines) {
    return lines.stream().limit(40).anyMatch(l -> l.matches("^\\|\\s*NVIDIA-SMI \\d.*"));
  }

  /** {@code nvidia-smi -q} text: its banner, or its opening keys. */
  static boolean isQueryText(String head) {
    // vgpu -q prints the banner too, but never 'Attached GPUs'
    return head.lines().limit(200).anyMatch(l -> l.strip().toLowerCase(Locale.ROOT).matches("attached gpus\\s*:.*"))
        && head.lines().limit(200).anyMatch(l -> l.strip().toLowerCase(Locale.ROOT).matches("driver version\\s*:.*"));
  }

  /**
   * The index of a {@code --query-gpu} CSV header among the first lines, or -1: a line of {@code ", "}-separated
   * cells of which at least two are query fields ({@code utilization.gpu [%]}) or one is {@code index}. What comes
   * before it is a preamble (a scheduler's lines, a prompt), skipped and counted.
   */
  public static int csvHeaderLine(List<String> lines) {
    for (int i = 0; i < Math.min(lines.size(), 200); i++) {
      String l = lines.get(i);
      if (!l.contains(",")) {
        continue;
      }
      String[] cells = l.split(",\\s*");
      int known = 0;
      boolean index = false;
      for (String c : cells) {
        String n = c.trim().toLowerCase(Locale.ROOT).replaceAll(" \\[.*]$", "");
        if (n.matches("[a-z_]+(\\.[a-z_]+)*") && KNOWN_FIELDS.matcher(n).matches()) {
          known++;
        }
        index |= n.equals("index");
      }
      if (cells.length >= 2 && (index || known >= 2)) {
        return i;
      }
    }
    return -1;
  }

  /** The index of the first line that is a headerless CSV row of nvidia-smi values, or -1. */
  public static int csvDataLine(List<String> lines) {
    for (int i = 0; i < Math.min(lines.size(), 200); i++) {
      String[] cells = lines.get(i).split(", ", -1);
      if (cells.length < 2) {
        continue;
      }
      int matching = 0;
      boolean distinctive = false;
      for (String c : cells) {
        if (NVIDIA_CELL.matcher(c.trim()).matches()) {
          matching++;
        }
        // nvidia-smi's timestamp, a GPU UUID or a PCI bus id: no training log prints a row of them with commas
        distinctive |= DISTINCTIVE_CELL.matcher(c.trim()).matches();
      }
      if (distinctive || matching >= 2 && matching * 2 >= cells.length) {
        return i;
      }
    }
    return -1;
  }

  /** A cell that only nvidia-smi writes: its timestamp, a GPU UUID or a PCI bus id. */
  static final Pattern DISTINCTIVE_CELL = Pattern.compile("\\d{4}/\\d{2}/\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d+)?"
      + "|GPU-[0-9a-fA-F-]{36}|[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\\.[0-9A-Fa-f]");

  /** Names of {@code --query-gpu} fields, enough of them to tell a header from prose with commas. */
  private static final Pattern KNOWN_FIELDS = Pattern.compile("timestamp|index|uuid|name|pci\\.bus_id|driver_version"
      + "|pstate|utilization\\.(gpu|memory)|memory\\.(used|total|free)|power\\.draw|temperature\\.gpu"
      + "|clocks\\.(current\\.)?(sm|graphics|memory)|fan\\.speed|count|serial|gpu_(uuid|name|bus_id)");

  /** How far into a file detection looks for a vGPU block: a host's loop can open with hours of idle blocks. */
  static final long VGPU_SCAN_BYTES = 16L << 20;

  /**
   * Whether the file is {@code nvidia-smi vgpu -q} output, in any of its shapes: with or without the banner and
   * {@code Timestamp}, and with no vGPU at all in its first blocks. The {@code Active vGPUs} and {@code vGPU ID}
   * lines are printed by no other nvidia-smi query.
   */
  private static boolean isVgpuQuery(Path path) throws IOException {
    long read = 0;
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null && read < VGPU_SCAN_BYTES; line = in.readLine()) {
        read += line.length() + 1;
        String key = line.strip().toLowerCase(Locale.ROOT);
        if (key.matches("(active vgpus|vgpu id)\\s*:.*")) {
          return true;
        }
      }
    } catch (MalformedInputException e) {
      return false; // not text; a training log is read leniently later
    }
    return false;
  }

  /** Parses a {@code --replay-as} value. */
  public static ReplayKind parse(String raw) {
    return valueOf(raw.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  /** The kind as the replay's table names it. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
