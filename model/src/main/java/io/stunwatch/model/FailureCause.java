package io.stunwatch.model;

import java.util.List;
import java.util.Locale;

/**
 * Why a vMotion failed, as one can filter and count by. Derived from the {@code msg.*} ids of the VM's
 * {@code vmware.log} message list where there is one ({@link #ofLogMessage}), else from vCenter's fault type and
 * message ({@link #ofVcenter}).
 */
public enum FailureCause {
  /**
   * The switchover took longer than the VM's limit ({@code vmotion.maxSwitchoverSeconds}, 100 s unless changed) and
   * ESXi failed the move to keep the VM running on the source: {@code msg.checkpoint.migration.maxSwitchoverTimeExceeded}.
   */
  SWITCHOVER_TIME_EXCEEDED,
  /** The destination gave up waiting for the source's data: {@code msg.migrate.waitdata.*}. */
  DESTINATION_NO_DATA,
  /** The source saw the destination fail to resume the VM: {@code msg.migrate.fail.dst}. */
  DESTINATION_FAILED_TO_RESUME,
  /** The precopy of memory failed: {@code msg.checkpoint.precopyfailure}. */
  PRECOPY_FAILED,
  /** The vMotion network: a connection closed or timed out ({@code msg.vmk.status.VMK_MIG_CONN_CLOSED} and kin). */
  NETWORK,
  /** The vGPU could not be saved, restored or placed on the destination. */
  VGPU,
  /** The destination had not the memory, CPU or GPU to take the VM. */
  INSUFFICIENT_RESOURCES,
  /** The destination cannot run the VM as configured (a {@code MigrationFault} such as a device or network). */
  NOT_COMPATIBLE,
  /** vCenter timed the operation out. */
  TIMED_OUT,
  /** A failure none of the above describes; its id and message are kept beside it. */
  OTHER;

  /** The cause a {@code vmware.log} message id gives, else the cause its text gives; {@link #OTHER} for neither. */
  public static FailureCause ofLogMessage(String id, String text) {
    String i = id == null ? "" : id.toLowerCase(Locale.ROOT);
    if (i.contains("maxswitchovertime")) {
      return SWITCHOVER_TIME_EXCEEDED;
    }
    if (i.startsWith("msg.migrate.waitdata")) {
      return DESTINATION_NO_DATA;
    }
    if (i.equals("msg.migrate.fail.dst")) {
      return DESTINATION_FAILED_TO_RESUME;
    }
    if (i.contains("precopyfailure")) {
      return PRECOPY_FAILED;
    }
    if (i.contains("vgpu") || i.contains("nvidia")) {
      return VGPU;
    }
    if (i.startsWith("msg.vmk.status.vmk_mig_conn") || i.contains("timeout") || i.contains("conn_closed")) {
      return NETWORK;
    }
    return ofText(text);
  }

  /**
   * The cause of vCenter's fault: its type ({@code TaskInfo.error.fault}'s class, e.g. {@code Timedout}) where that
   * says enough, else its message.
   */
  public static FailureCause ofVcenter(String faultType, String message) {
    String t = faultType == null ? "" : faultType;
    if (t.equals("Timedout")) {
      return TIMED_OUT;
    }
    if (t.startsWith("Insufficient") || t.equals("NotEnoughCpus") || t.equals("NotEnoughLogicalCpus")) {
      return INSUFFICIENT_RESOURCES;
    }
    FailureCause byText = ofText(message);
    if (byText != OTHER) {
      return byText;
    }
    return MIGRATION_FAULTS.contains(t) ? NOT_COMPATIBLE : OTHER;
  }

  /** What a message alone says, in the words ESXi and vCenter use. */
  private static FailureCause ofText(String text) {
    String s = text == null ? "" : text.toLowerCase(Locale.ROOT);
    if (s.contains("maximum switchover time")) {
      return SWITCHOVER_TIME_EXCEEDED;
    }
    if (s.contains("timed out waiting for migration data") || s.contains("did not receive")) {
      return DESTINATION_NO_DATA;
    }
    if (s.contains("destination failed to resume")) {
      return DESTINATION_FAILED_TO_RESUME;
    }
    if (s.contains("vgpu") || s.contains("graphics device") || s.contains("nvidia")) {
      return VGPU;
    }
    if (s.contains("insufficient") || s.contains("not enough")) {
      return INSUFFICIENT_RESOURCES;
    }
    if (s.contains("connection closed") || s.contains("connection reset") || s.contains("network")
        || s.contains("unreachable")) {
      return NETWORK;
    }
    if (s.contains("precopy") || s.contains("pre-copy")) {
      return PRECOPY_FAILED;
    }
    if (s.contains("timed out") || s.contains("timeout")) {
      return TIMED_OUT;
    }
    return OTHER;
  }

  /** vim25's subclasses of {@code MigrationFault} that mean the destination cannot run the VM as it is. */
  private static final List<String> MIGRATION_FAULTS = List.of("MigrationFault", "MigrationNotReady",
      "DisallowedMigrationDeviceAttached", "VMotionInterfaceIssue", "VMotionProtocolIncompatible",
      "MismatchedNetworkPolicies", "MismatchedVMotionNetworkNames", "NetworksMayNotBeTheSame",
      "IncompatibleDefaultDevice", "MigrationFeatureNotSupported", "MigrationDisabled", "CpuIncompatible",
      "DeviceNotSupported", "VMotionNotSupported", "VMotionNotConfigured", "VMotionNotLicensed");
}
