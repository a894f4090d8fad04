package io.stunwatch.model;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The VM identity that worker samples and vCenter data are joined on: the SMBIOS UUID, which vCenter reports as
 * the VM's {@code config.uuid} and the guest reads from {@code /sys/class/dmi/id/product_uuid}.
 *
 * <p>The canonical form is the lower-case 8-4-4-4-12 hex string. SMBIOS before 2.6 stores the first three groups
 * little-endian, so a guest on old firmware may read a UUID whose first three groups are byte-swapped relative to
 * vCenter's; {@link #byteSwapped(String)} gives that other form so a join can try both.
 */
public final class VmIds {

  private static final Pattern UUID = Pattern.compile(
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  // vCenter also prints config.uuid as "42 1c 9f ..."-style byte lists (vmx uuid.bios); accept them too.
  private static final Pattern HEX_ONLY = Pattern.compile("[0-9a-f]{32}");

  private VmIds() {
  }

  /**
   * Canonical form of a UUID written in any common layout: upper or lower case, with or without braces, dashes or
   * the space-separated byte list of {@code uuid.bios} in a .vmx file.
   *
   * @throws IllegalArgumentException naming the input when it is not 16 bytes of hex
   */
  public static String canonical(String uuid) {
    if (uuid == null) {
      throw new IllegalArgumentException("VM UUID is required");
    }
    String s = uuid.trim().toLowerCase(Locale.ROOT);
    if (UUID.matcher(s).matches()) {
      return s;
    }
    String hex = s.replaceAll("[\\s{}\\-]", "");
    if (!HEX_ONLY.matcher(hex).matches()) {
      throw new IllegalArgumentException("not a VM UUID (need 32 hex digits): '" + uuid + "'");
    }
    return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
        + hex.substring(16, 20) + "-" + hex.substring(20);
  }

  /** True when {@link #canonical(String)} would accept the input. */
  public static boolean isUuid(String uuid) {
    try {
      canonical(uuid);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The same UUID with the byte order of its first three groups reversed (SMBIOS &lt; 2.6 versus RFC 4122). */
  public static String byteSwapped(String uuid) {
    String c = canonical(uuid);
    return reverseBytes(c.substring(0, 8)) + "-" + reverseBytes(c.substring(9, 13)) + "-"
        + reverseBytes(c.substring(14, 18)) + c.substring(18);
  }

  private static String reverseBytes(String hex) {
    StringBuilder b = new StringBuilder(hex.length());
    for (int i = hex.length() - 2; i >= 0; i -= 2) {
      b.append(hex, i, i + 2);
    }
    return b.toString();
  }
}
