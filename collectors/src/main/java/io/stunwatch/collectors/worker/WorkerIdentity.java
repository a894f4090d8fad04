package io.stunwatch.collectors.worker;

import io.stunwatch.model.VmIds;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The identity every worker sample carries: the VM id the topology joins on (the canonical SMBIOS UUID, which vCenter
 * reports as {@code config.uuid}) and the hostname.
 *
 * @param vmId     canonical SMBIOS UUID; null on a hypervisor host, whose readings name their VMs themselves
 * @param hostname guest hostname, or the hypervisor host's name
 */
public record WorkerIdentity(String vmId, String hostname) {

  public WorkerIdentity {
    vmId = vmId == null ? null : VmIds.canonical(vmId);
  }

  /** A hypervisor host's identity: its name, and no VM id. */
  public static WorkerIdentity host(Optional<String> hostnameOverride) {
    return new WorkerIdentity(null, hostnameOverride.orElseGet(WorkerIdentity::systemHostname));
  }

  /** How to read the first three groups of {@code product_uuid}. */
  public enum ByteOrder {
    /**
     * Decide from the SMBIOS version: Linux prints the UUID in RFC 4122 order from SMBIOS 2.6 on, and the raw
     * (little-endian) bytes before, which then look byte-swapped next to vCenter's {@code config.uuid}.
     */
    AUTO,
    /** Take product_uuid as it is. */
    AS_IS,
    /** Swap the first three groups. */
    SWAPPED
  }

  /**
   * Resolves the identity.
   *
   * @param vmIdOverride    an explicit VM id ({@code --vm-id}), used as is when given
   * @param productUuid     the SMBIOS UUID file, usually {@code /sys/class/dmi/id/product_uuid} (root-readable)
   * @param smbiosEntry     the SMBIOS entry point, usually {@code /sys/firmware/dmi/tables/smbios_entry_point}
   * @param order           how to read the byte order
   * @param hostnameOverride an explicit hostname, else the system's
   * @throws IllegalStateException naming the file and the reason when no VM id can be found
   */
  public static WorkerIdentity resolve(Optional<String> vmIdOverride, Path productUuid, Path smbiosEntry,
      ByteOrder order, Optional<String> hostnameOverride) {
    String hostname = hostnameOverride.orElseGet(WorkerIdentity::systemHostname);
    if (vmIdOverride.isPresent()) {
      return new WorkerIdentity(vmIdOverride.get(), hostname);
    }
    String raw;
    try {
      raw = Files.readString(productUuid, StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the VM's SMBIOS UUID from " + productUuid + " (" + e
          + "); run as root, or give --vm-id with the VM's config.uuid");
    }
    if (!VmIds.isUuid(raw)) {
      throw new IllegalStateException(productUuid + " does not hold a UUID: '" + raw + "'; give --vm-id");
    }
    boolean swap = switch (order) {
      case AS_IS -> false;
      case SWAPPED -> true;
      case AUTO -> smbiosVersion(smbiosEntry).map(v -> v < 0x0206).orElse(false);
    };
    return new WorkerIdentity(swap ? VmIds.byteSwapped(raw) : VmIds.canonical(raw), hostname);
  }

  /**
   * The SMBIOS version as {@code major << 8 | minor}, read from the entry point structure: {@code _SM_} (32-bit,
   * version at bytes 6 and 7) or {@code _SM3_} (64-bit, bytes 7 and 8). Empty when unreadable.
   */
  static Optional<Integer> smbiosVersion(Path entryPoint) {
    try {
      byte[] b = Files.readAllBytes(entryPoint);
      if (b.length >= 9 && b[0] == '_' && b[1] == 'S' && b[2] == 'M' && b[3] == '3' && b[4] == '_') {
        return Optional.of((b[7] & 0xff) << 8 | (b[8] & 0xff));
      }
      if (b.length >= 8 && b[0] == '_' && b[1] == 'S' && b[2] == 'M' && b[3] == '_') {
        return Optional.of((b[6] & 0xff) << 8 | (b[7] & 0xff));
      }
      return Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static String systemHostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("unknown");
    }
  }
}
