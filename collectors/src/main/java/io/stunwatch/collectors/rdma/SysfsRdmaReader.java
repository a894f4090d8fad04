package io.stunwatch.collectors.rdma;

import io.stunwatch.collectors.worker.InputParseException;
import io.stunwatch.collectors.worker.WorkerIdentity;
import io.stunwatch.model.CounterReading;
import io.stunwatch.model.CounterState;
import io.stunwatch.model.RdmaCounterSample;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Reads every port under {@code <root>/<device>/ports/<n>/} (root: {@code /sys/class/infiniband}).
 *
 * <ul>
 *   <li>{@code counters/}, {@code counters_ext/} (64-bit {@code *_64}) and {@code hw_counters/} are read raw.
 *       {@code port_xmit_data} and {@code port_rcv_data} count 4-octet words.</li>
 *   <li>A PMA counter narrower than 64 bits latches at all ones instead of wrapping: at exactly its maximum it is
 *       {@code SATURATED}, so no rate is derived from it. But a device with extended-width PMA (mlx5, mlx4, hfi1)
 *       shows 64-bit values in the same files: a value above the maximum marks the file 64 bits wide, and from
 *       then on all ones is a value like any other.</li>
 *   <li>{@code N/A (no PMA)} and a missing {@code counters/} directory (the {@code vmw_pvrdma} driver) are
 *       {@code UNAVAILABLE} with the reason, never zero traffic.</li>
 * </ul>
 */
public final class SysfsRdmaReader {

  /** Bit widths of the InfiniBand PortCounters attributes (IBA 1.3, 16.1.3.5); others are taken as 64-bit. */
  private static final Map<String, Integer> WIDTH = Map.ofEntries(
      Map.entry("port_xmit_data", 32), Map.entry("port_rcv_data", 32),
      Map.entry("port_xmit_packets", 32), Map.entry("port_rcv_packets", 32),
      Map.entry("port_xmit_wait", 32),
      Map.entry("symbol_error", 16), Map.entry("port_rcv_errors", 16),
      Map.entry("port_rcv_remote_physical_errors", 16), Map.entry("port_rcv_switch_relay_errors", 16),
      Map.entry("port_xmit_discards", 16), Map.entry("VL15_dropped", 16),
      Map.entry("link_error_recovery", 8), Map.entry("link_downed", 8),
      Map.entry("port_xmit_constraint_errors", 8), Map.entry("port_rcv_constraint_errors", 8),
      Map.entry("local_link_integrity_errors", 4), Map.entry("excessive_buffer_overrun_errors", 4));

  private final Path root;
  private final WorkerIdentity identity;
  /** Counter files that have shown a value wider than their PMA attribute: extended-width counters. */
  private final Set<Path> wide = ConcurrentHashMap.newKeySet();

  public SysfsRdmaReader(Path root, WorkerIdentity identity) {
    this.root = root;
    this.identity = identity;
  }

  /** The result of one read: samples, and the files that could not be read (already folded in as unavailable). */
  public record Result(List<RdmaCounterSample> samples, List<InputParseException> problems) {
  }

  /**
   * Reads every port once.
   *
   * @param timestamp the time stamped on every sample
   * @return one sample per port; an empty list when the root has no devices
   * @throws InputParseException when the root itself cannot be read
   */
  public Result read(Instant timestamp) throws InputParseException {
    List<RdmaCounterSample> out = new ArrayList<>();
    List<InputParseException> problems = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      throw new InputParseException(root.toString(), 0, "not a directory (no RDMA devices, or the wrong root)");
    }
    for (Path device : sorted(root)) {
      Path ports = device.resolve("ports");
      if (!Files.isDirectory(ports)) {
        continue;
      }
      for (Path port : sorted(ports)) {
        int n;
        try {
          n = Integer.parseInt(port.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        out.add(readPort(device.getFileName().toString(), n, port, timestamp, problems));
      }
    }
    return new Result(out, problems);
  }

  private RdmaCounterSample readPort(String device, int port, Path dir, Instant timestamp,
      List<InputParseException> problems) {
    Map<String, CounterReading> counters = new TreeMap<>();
    Map<String, CounterReading> hw = new TreeMap<>();
    String unavailable = null;
    Path c = dir.resolve("counters");
    if (Files.isDirectory(c)) {
      readDir(c, counters, problems);
      readDir(dir.resolve("counters_ext"), counters, problems);
    } else {
      unavailable = "no counters/ directory: the driver exposes no traffic counters (e.g. vmw_pvrdma)";
    }
    readDir(dir.resolve("hw_counters"), hw, problems);
    if (unavailable == null && !counters.isEmpty()
        && counters.values().stream().allMatch(r -> r.state() == CounterState.UNAVAILABLE)) {
      unavailable = "every counter is unavailable: " + counters.values().iterator().next().reason();
    }
    return new RdmaCounterSample(identity.vmId(), identity.hostname(), timestamp, device, port,
        text(dir.resolve("link_layer")), counters, hw, unavailable);
  }

  private void readDir(Path dir, Map<String, CounterReading> into, List<InputParseException> problems) {
    if (!Files.isDirectory(dir)) {
      return;
    }
    for (Path f : sorted(dir)) {
      if (!Files.isRegularFile(f)) {
        continue;
      }
      String name = f.getFileName().toString();
      String raw;
      try {
        raw = Files.readString(f, StandardCharsets.US_ASCII).trim();
      } catch (IOException e) {
        into.put(name, CounterReading.unavailable("unreadable: " + e.getMessage()));
        problems.add(new InputParseException(f.toString(), 0, "unreadable: " + e));
        continue;
      }
      into.put(name, reading(name, raw, f, problems));
    }
  }

  CounterReading reading(String name, String raw, Path file, List<InputParseException> problems) {
    if (raw.startsWith("N/A")) {
      return CounterReading.unavailable(raw); // "N/A (no PMA)": the port has no performance management agent
    }
    long v;
    try {
      v = Long.parseUnsignedLong(raw);
    } catch (NumberFormatException e) {
      problems.add(new InputParseException(file.toString(), 1, "not a counter value: '" + raw + "'"));
      return CounterReading.unavailable("not a counter value: '" + raw + "'");
    }
    if (v < 0) {
      return CounterReading.unavailable("above 2^63-1, beyond what is published: " + raw);
    }
    Integer width = WIDTH.get(name);
    if (width != null && width < 64) {
      long max = (1L << width) - 1;
      if (v > max) {
        wide.add(file); // extended-width PMA: the kernel shows the 64-bit counter here
      } else if (v == max && !wide.contains(file)) {
        return CounterReading.saturated(v, width + "-bit PMA counter latched at all ones");
      }
    }
    return CounterReading.valid(v);
  }

  private static String text(Path f) {
    try {
      String t = Files.readString(f, StandardCharsets.US_ASCII).trim();
      return t.isEmpty() ? null : t;
    } catch (IOException e) {
      return null;
    }
  }

  private static List<Path> sorted(Path dir) {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
      s.forEach(out::add);
    } catch (IOException e) {
      return List.of();
    }
    out.sort(null);
    return out;
  }
}
