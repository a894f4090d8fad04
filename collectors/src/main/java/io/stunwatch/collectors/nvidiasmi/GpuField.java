package io.stunwatch.collectors.nvidiasmi;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code --query-gpu} fields the collector asks for, with the other names nvidia-smi knows them by (its
 * {@code --help-query-gpu} lists {@code "clocks.current.sm" or "clocks.sm"}; a CSV header prints the first).
 */
enum GpuField {
  TIMESTAMP("timestamp"),
  INDEX("index"),
  UUID("uuid", "gpu_uuid"),
  NAME("name", "gpu_name"),
  PCI_BUS_ID("pci.bus_id", "gpu_bus_id"),
  UTILIZATION_GPU("utilization.gpu"),
  UTILIZATION_MEMORY("utilization.memory"),
  MEMORY_USED("memory.used"),
  MEMORY_TOTAL("memory.total"),
  POWER_DRAW("power.draw"),
  TEMPERATURE_GPU("temperature.gpu"),
  CLOCKS_SM("clocks.sm", "clocks.current.sm"),
  PSTATE("pstate");

  /** Fields without which a sample cannot be made: the query fails fast when the driver lacks them. */
  static final List<GpuField> REQUIRED = List.of(INDEX);

  private final List<String> names;

  GpuField(String... names) {
    this.names = List.of(names);
  }

  /** The name to put in {@code --query-gpu}. */
  String queryName() {
    return names.get(0);
  }

  List<String> names() {
    return names;
  }

  /** The field of a query name or a CSV header cell such as {@code clocks.current.sm [MHz]}. */
  static Optional<GpuField> of(String nameOrHeader) {
    String n = nameOrHeader.trim();
    int unit = n.indexOf(" [");
    if (unit > 0) {
      n = n.substring(0, unit);
    }
    n = n.toLowerCase(Locale.ROOT);
    for (GpuField f : values()) {
      if (f.names.contains(n)) {
        return Optional.of(f);
      }
    }
    return Optional.empty();
  }
}
