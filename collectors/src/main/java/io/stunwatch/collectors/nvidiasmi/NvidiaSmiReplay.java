package io.stunwatch.collectors.nvidiasmi;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.Inputs;
import io.stunwatch.collectors.worker.ReplayKind;
import io.stunwatch.collectors.worker.ReplayRefusedException;
import io.stunwatch.metrics.CollectorInput;
import io.stunwatch.model.GpuSnapshot;
import io.stunwatch.model.topic.Topics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/** Replays recorded nvidia-smi output through the live parse-and-publish path. */
public final class NvidiaSmiReplay {

  /** How many lines may come before a CSV's header (a scheduler's banner, a prompt, {@code --help-query-gpu}). */
  static final int MAX_PREAMBLE = 200;

  private NvidiaSmiReplay() {
  }

  /**
   * A {@code --query-gpu} CSV, with units or without ({@code nounits}); timestamps come from its {@code timestamp}
   * column, read in {@code zone}.
   * <ul>
   *   <li>With a header line, the header gives the columns. Lines before it are a preamble: each is skipped and
   *       counted.</li>
   *   <li>Without one ({@code noheader}), {@code columns} gives them; when absent, a file whose rows have the
   *       collector's own query's shape is read with that query, and any other is refused with the advice to give
   *       the columns.</li>
   * </ul>
   *
   * @throws ReplayRefusedException for a headerless file whose columns cannot be known
   */
  public static void csv(Path file, ZoneId zone, Inputs inputs, Optional<List<String>> columns) throws IOException {
    List<String> head = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String l = r.readLine(); l != null && head.size() < MAX_PREAMBLE; l = r.readLine()) {
        head.add(l);
      }
    }
    String source = file.toString();
    int header = ReplayKind.csvHeaderLine(head);
    NvidiaSmiCsvParser parser;
    int firstData;
    if (header >= 0) {
      try {
        parser = NvidiaSmiCsvParser.forHeader(head.get(header), header + 1, zone, inputs.identity(), inputs.clock(),
            source);
      } catch (InputParseException e) {
        throw new ReplayRefusedException("a CSV that is not nvidia-smi --query-gpu's", e.getMessage());
      }
      for (int i = 0; i < header; i++) {
        inputs.parseError(CollectorInput.NVIDIA_SMI, new InputParseException(source, i + 1,
            "before the CSV header (line " + (header + 1) + "): '" + NvidiaSmiCsvParser.abbreviate(head.get(i))
                + "'"));
      }
      firstData = header + 1;
    } else {
      int data = ReplayKind.csvDataLine(head);
      if (columns.isPresent()) {
        try {
          parser = NvidiaSmiCsvParser.forColumns(columns.get(), zone, inputs.identity(), inputs.clock(), source);
        } catch (IllegalArgumentException e) {
          throw new ReplayRefusedException("a CSV with no header line", e.getMessage());
        }
        firstData = 0;
      } else if (data >= 0 && NvidiaSmiCsvParser.ownQueryLine(head.get(data))) {
        parser = NvidiaSmiCsvParser.forOwnQuery(zone, inputs.identity(), inputs.clock(), source);
        firstData = 0;
      } else {
        throw new ReplayRefusedException("nvidia-smi CSV with no header line (noheader)",
            "give --columns with the --query-gpu list that wrote it, e.g. --columns timestamp,index,uuid,"
                + "utilization.gpu,memory.used,memory.total");
      }
    }
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      long n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        if (n > firstData && !line.isBlank()) {
          NvidiaSmiStreamingSource.accept(parser, line, n, false, inputs);
        }
      }
    }
  }

  /** An {@code nvidia-smi -q -x} document. */
  public static void xml(Path file, ZoneId zone, Inputs inputs) throws IOException {
    NvidiaSmiXmlSnapshotSource.accept(new NvidiaSmiXmlParser(zone, inputs.identity(), inputs.clock()),
        Files.readAllBytes(file), file.toString(), inputs);
  }

  /**
   * {@code nvidia-smi -q} text: one snapshot per reading ({@code -q -l} prints one after another, each with its
   * banner).
   *
   * @throws ReplayRefusedException for a hypervisor host's output, whose GPUs are no VM's
   */
  public static void text(Path file, ZoneId zone, Inputs inputs) throws IOException {
    List<String> lines;
    try (InputStream in = open(file)) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
    publish(readings(lines, 0, lines.size()), lines, file.toString(), zone, inputs);
  }

  /**
   * {@code nvidia-bug-report.log}, plain or gzipped: each {@code nvidia-smi -q} section of the report, at the time
   * its own {@code Timestamp} gives. The report's {@code nvidia-smi --query --unit} section (S-class units, no
   * GPUs) is not a reading and is passed over.
   *
   * @throws ReplayRefusedException when the report holds no {@code nvidia-smi -q} output (nvidia-smi failed when
   *                                the report was taken), or is a host's
   */
  public static void bugReport(Path file, ZoneId zone, Inputs inputs) throws IOException {
    List<String> lines;
    try (InputStream in = open(file)) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
    List<int[]> sections = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(NvidiaSmiTextParser.BANNER)) {
        int end = i + 1;
        // a section ends at the report's separator line, its next "***"/"____" heading, or the next banner
        while (end < lines.size() && !lines.get(end).startsWith("____") && !lines.get(end).startsWith("*** ")
            && !lines.get(end).contains(NvidiaSmiTextParser.BANNER)) {
          end++;
        }
        // 'nvidia-smi --query --unit' prints the same banner over S-class units, which are no GPU readings
        if (lines.subList(i, end).stream().anyMatch(l -> l.strip().toLowerCase(Locale.ROOT)
            .matches("attached gpus\\s*:.*"))) {
          sections.add(new int[] {i, end});
        }
        i = end - 1;
      }
    }
    if (sections.isEmpty()) {
      throw new ReplayRefusedException("an nvidia-bug-report with no nvidia-smi -q output",
          "nvidia-smi printed no readings when the report was taken (its driver was not loaded, or it failed); "
              + "nothing in it is a GPU reading");
    }
    publish(sections, lines, file.toString(), zone, inputs);
  }

  /** The {@code [from, to)} line ranges of the readings in {@code lines[from, to)}: one per banner. */
  static List<int[]> readings(List<String> lines, int from, int to) {
    List<int[]> out = new ArrayList<>();
    int start = -1;
    for (int i = from; i < to; i++) {
      if (lines.get(i).contains(NvidiaSmiTextParser.BANNER)) {
        if (start >= 0) {
          out.add(new int[] {start, i});
        }
        start = i;
      }
    }
    out.add(new int[] {start < 0 ? from : start, to});
    return out;
  }

  private static void publish(List<int[]> readings, List<String> lines, String source, ZoneId zone, Inputs inputs)
      throws ReplayRefusedException {
    NvidiaSmiTextParser parser = new NvidiaSmiTextParser(zone, inputs.identity(), inputs.clock());
    for (int[] r : readings) {
      try {
        GpuSnapshot s = parser.parse(lines.subList(r[0], r[1]), r[0] + 1, source, null);
        inputs.sample(CollectorInput.NVIDIA_SMI_SNAPSHOT, Topics.GPU_SNAPSHOTS, s.vmId(), s, s.timestamp());
      } catch (InputParseException e) {
        inputs.parseError(CollectorInput.NVIDIA_SMI_SNAPSHOT, e);
      }
    }
  }

  /**
   * Whether a {@code -q} text is a hypervisor host's: it has the host driver's {@code vGPU Driver Capability} section
   * or a GPU in {@code Host VGPU} mode. Its GPUs run vGPUs for many VMs and are none of them.
   */
  public static boolean hostQuery(Path file) throws IOException {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(open(file), StandardCharsets.UTF_8))) {
      for (String l = r.readLine(); l != null; l = r.readLine()) {
        String k = l.strip().toLowerCase(Locale.ROOT);
        if (k.startsWith("vgpu driver capability") || k.matches("virtualization mode\\s*:\\s*host vgpu.*")) {
          return true;
        }
      }
    }
    return false;
  }

  /** The advice for a host's {@code -q}: the host view is per vGPU. */
  public static ReplayRefusedException hostRefusal() {
    return new ReplayRefusedException("a hypervisor host's nvidia-smi -q",
        "its GPUs run vGPUs for many VMs and are no one VM's; Stunwatch reads a host per vGPU from "
            + "'nvidia-smi vgpu -q': record 'nvidia-smi vgpu -q -l 5' on the host and replay it with --hostname");
  }

  private static InputStream open(Path file) throws IOException {
    InputStream in = Files.newInputStream(file);
    return ReplayKind.gzip(file) ? new GZIPInputStream(in) : in;
  }
}
