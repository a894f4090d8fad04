package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.Map;

/**
 * The raw cumulative counters of one RDMA port ({@code /sys/class/infiniband/<device>/ports/<port>/}). Rates are
 * computed downstream, where a reset or a saturated counter becomes "no rate for this interval".
 *
 * @param vmId              canonical SMBIOS UUID of the VM; the Kafka key
 * @param hostname          guest or host name
 * @param timestamp         when the counters were read
 * @param device            RDMA device, e.g. {@code mlx5_0} or {@code vmw_pvrdma0}
 * @param port              port number, from 1
 * @param linkLayer         {@code InfiniBand} or {@code Ethernet} (RoCE), when known
 * @param counters          files of {@code counters/} by name, e.g. {@code port_xmit_data} (4-octet words),
 *                          {@code port_rcv_packets}
 * @param hwCounters        files of {@code hw_counters/} by name
 * @param unavailableReason set when the port exposes no traffic counters at all (e.g. {@code vmw_pvrdma})
 */
@Schema(name = "rdma-counter-sample")
public record RdmaCounterSample(
    String vmId,
    String hostname,
    Instant timestamp,
    String device,
    int port,
    String linkLayer,
    Map<String, CounterReading> counters,
    Map<String, CounterReading> hwCounters,
    String unavailableReason) implements VmInput {

  public RdmaCounterSample {
    Checks.requiredText(vmId, "vmId");
    Checks.required(timestamp, "timestamp");
    Checks.requiredText(device, "device");
    if (port < 1) {
      throw new IllegalArgumentException("port must be 1 or more, was " + port);
    }
    counters = Checks.map(counters);
    hwCounters = Checks.map(hwCounters);
  }
}
