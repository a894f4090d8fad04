package io.stunwatch.model;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An NVIDIA vGPU profile, such as {@code T4-16C}: the physical GPU model, the framebuffer given to the VM and the
 * series (A: virtual apps, B: virtual PCs, C: compute, Q: virtual workstations).
 *
 * <p>The guest's nvidia-smi reports it as a product name ({@code GRID T4-16C}, {@code NVIDIA A100-40C}) and vCenter
 * as a device backing ({@code grid_t4-16c}); {@link #parse(String)} maps all of them to the same profile. MIG-backed
 * profiles carry the number of compute slices ({@code A100-3-20C}); a framebuffer of {@code 0} means 512 MiB
 * ({@code M10-0B}).
 *
 * @param name          canonical upper-case name, e.g. {@code T4-16C} or {@code A100-3-20C}
 * @param gpuModel      physical GPU model, e.g. {@code T4}
 * @param framebufferMiB framebuffer assigned to the VM, in MiB
 * @param series        one of A, B, C, Q
 * @param migSlices     compute slices of a MIG-backed profile, absent otherwise
 */
public record VgpuProfile(String name, String gpuModel, long framebufferMiB, String series, Integer migSlices) {

  private static final Pattern PROFILE = Pattern.compile(
      "(?i)^(?:grid[ _]|nvidia[ _])?([a-z0-9]+?)-(?:(\\d+)-)?(\\d+)([abcq])(\\d*)$");

  public VgpuProfile {
    Checks.requiredText(name, "vgpuProfile.name");
    Checks.requiredText(gpuModel, "vgpuProfile.gpuModel");
    Checks.requiredText(series, "vgpuProfile.series");
    if (framebufferMiB <= 0) {
      throw new IllegalArgumentException("vgpuProfile.framebufferMiB must be positive, was " + framebufferMiB);
    }
  }

  /** Framebuffer in GiB, as in the profile name (0.5 for the 512 MiB profiles). */
  public double framebufferGiB() {
    return framebufferMiB / 1024.0;
  }

  /**
   * Parses a vGPU profile out of a GPU product name or a vCenter vGPU backing name; empty when the name is not a
   * vGPU profile (a physical or pass-through GPU such as {@code Tesla T4}).
   */
  public static Optional<VgpuProfile> parse(String nameOrBacking) {
    if (nameOrBacking == null) {
      return Optional.empty();
    }
    Matcher m = PROFILE.matcher(nameOrBacking.trim());
    if (!m.matches()) {
      return Optional.empty();
    }
    String model = m.group(1).toUpperCase(Locale.ROOT);
    Integer slices = m.group(2) == null ? null : Integer.valueOf(m.group(2));
    long gib = Long.parseLong(m.group(3));
    String series = m.group(4).toUpperCase(Locale.ROOT);
    String suffix = m.group(5);
    long mib = gib == 0 ? 512 : gib * 1024;
    String name = model + "-" + (slices == null ? "" : slices + "-") + gib + series + suffix;
    return Optional.of(new VgpuProfile(name, model, mib, series, slices));
  }
}
