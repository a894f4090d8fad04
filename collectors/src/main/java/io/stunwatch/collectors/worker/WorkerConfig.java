package io.stunwatch.collectors.worker;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.model.VmIds;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of the worker collector as a whole: identity, time zone and self-metrics.
 *
 * @param vmId             explicit VM id, overriding product_uuid
 * @param hostname         explicit hostname, overriding the system's
 * @param productUuidFile  the SMBIOS UUID file
 * @param smbiosEntryPoint the SMBIOS entry point (for the UUID byte order)
 * @param uuidByteOrder    how to read product_uuid's byte order
 * @param timezone         zone of local-time timestamps (nvidia-smi, logs)
 * @param metricsPort      port of the Prometheus {@code /metrics} page; 0 turns it off
 * @param metricsHost      interface of the {@code /metrics} page
 */
public record WorkerConfig(String vmId, String hostname, Path productUuidFile, Path smbiosEntryPoint,
    WorkerIdentity.ByteOrder uuidByteOrder, ZoneId timezone, int metricsPort, String metricsHost) {

  public static final ConfigKey<String> VM_ID = ConfigKeys.custom("worker.vm-id", "uuid",
      "a UUID (the VM's config.uuid)", null,
      "The VM id stamped on every sample, overriding product_uuid: the VM's config.uuid in vCenter.",
      raw -> {
        if (!VmIds.isUuid(raw)) {
          throw new IllegalArgumentException("must be a UUID such as 421c9f3a-5b6c-7d8e-9fa0-b1c2d3e4f506");
        }
        return VmIds.canonical(raw);
      });
  public static final ConfigKey<String> HOSTNAME = ConfigKeys.optionalString("worker.hostname",
      "Hostname stamped on every sample. Default: this machine's.");
  public static final ConfigKey<Path> PRODUCT_UUID_FILE = ConfigKeys.path("worker.product-uuid-file",
      Path.of("/sys/class/dmi/id/product_uuid"), "Where the VM's SMBIOS UUID is read (readable by root only).");
  public static final ConfigKey<Path> SMBIOS_ENTRY_POINT = ConfigKeys.path("worker.smbios-entry-point",
      Path.of("/sys/firmware/dmi/tables/smbios_entry_point"),
      "The SMBIOS entry point, whose version says how to read product_uuid's byte order.");
  public static final ConfigKey<WorkerIdentity.ByteOrder> UUID_BYTE_ORDER = ConfigKeys.enumeration(
      "worker.uuid-byte-order", WorkerIdentity.ByteOrder.class, WorkerIdentity.ByteOrder.AUTO,
      "Byte order of product_uuid's first three groups: auto (from the SMBIOS version: swapped before 2.6), "
          + "as-is, or swapped.");
  public static final ConfigKey<ZoneId> TIMEZONE = ConfigKeys.custom("worker.timezone", "zone",
      "a time zone id such as UTC or Europe/Berlin", null,
      "Zone of local-time timestamps (nvidia-smi's, and log lines without an offset). Unset: this machine's zone.",
      WorkerConfig::zone);
  public static final ConfigKey<Integer> METRICS_PORT = ConfigKeys.port("worker.metrics-port", 0,
      "Port of the collector's Prometheus /metrics page; 0 turns it off.");
  public static final ConfigKey<String> METRICS_HOST = ConfigKeys.string("worker.metrics-host", "localhost",
      "Interface of the /metrics page. Loopback by default; 0.0.0.0 lets a remote Prometheus scrape it.");

  public static final List<ConfigKey<?>> KEYS = List.of(VM_ID, HOSTNAME, PRODUCT_UUID_FILE, SMBIOS_ENTRY_POINT,
      UUID_BYTE_ORDER, TIMEZONE, METRICS_PORT, METRICS_HOST);

  public static WorkerConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    WorkerConfig c = new WorkerConfig(r.get(VM_ID), r.get(HOSTNAME), r.get(PRODUCT_UUID_FILE),
        r.get(SMBIOS_ENTRY_POINT), r.get(UUID_BYTE_ORDER), Objects.requireNonNullElseGet(r.get(TIMEZONE),
        ZoneId::systemDefault), r.get(METRICS_PORT),
        r.get(METRICS_HOST));
    r.done();
    return c;
  }

  /** Whether a VM id was configured ({@code worker.vm-id} or {@code --vm-id}) rather than read from SMBIOS. */
  public boolean vmIdConfigured() {
    return vmId != null;
  }

  /**
   * The identity on the samples, resolved from these settings.
   *
   * @param vmIdNeeded false when only the host vGPU input runs (on a hypervisor host, whose readings name their VMs):
   *                   then no VM id is looked for
   */
  public WorkerIdentity identity(boolean vmIdNeeded) {
    if (!vmIdNeeded && vmId == null) {
      return WorkerIdentity.host(Optional.ofNullable(hostname));
    }
    return identity();
  }

  public WorkerIdentity identity() {
    return WorkerIdentity.resolve(Optional.ofNullable(vmId), productUuidFile, smbiosEntryPoint,
        uuidByteOrder, Optional.ofNullable(hostname));
  }

  private static ZoneId zone(String raw) {
    try {
      return ZoneId.of(raw);
    } catch (DateTimeException e) {
      throw new IllegalArgumentException("must be a time zone id such as UTC or Europe/Berlin");
    }
  }
}
