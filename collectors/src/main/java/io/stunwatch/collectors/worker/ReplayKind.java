package io.stunwatch.collectors.worker;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/** What a replay file holds; {@link #detect} tells from its content, {@code --replay-as} overrides. */
public enum ReplayKind {
  /** {@code nvidia-smi --query-gpu ... --format=csv} with its header. */
  NVIDIA_SMI_CSV,
  /** {@code nvidia-smi -q -x}. */
  NVIDIA_SMI_XML,
  /** {@code nvidia-smi vgpu -q}. */
  VGPU_QUERY,
  /** A directory laid out like {@code /sys/class/infiniband}. */
  SYSFS,
  /** A training log. */
  LOG;

  /** Detects the kind of a file or directory from its first bytes or its layout. */
  public static ReplayKind detect(Path path) throws IOException {
    if (Files.isDirectory(path)) {
      try (Stream<Path> devices = Files.list(path)) {
        if (devices.anyMatch(d -> Files.isDirectory(d.resolve("ports")))) {
          return SYSFS;
        }
      }
      throw new IOException(path + " is a directory but not a sysfs RDMA tree (no <device>/ports)");
    }
    String head;
    try (InputStream in = Files.newInputStream(path)) {
      head = new String(in.readNBytes(4096), StandardCharsets.UTF_8).stripLeading();
    }
    if (head.startsWith("<?xml") || head.startsWith("<nvidia_smi_log") || head.startsWith("<!DOCTYPE nvidia")) {
      return NVIDIA_SMI_XML;
    }
    String firstLine = head.lines().findFirst().orElse("");
    if (firstLine.contains(", ") && firstLine.toLowerCase(Locale.ROOT).matches("(.*, )?index(, .*)?")) {
      return NVIDIA_SMI_CSV;
    }
    if (isVgpuQuery(path)) {
      return VGPU_QUERY;
    }
    return LOG;
  }

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
}
