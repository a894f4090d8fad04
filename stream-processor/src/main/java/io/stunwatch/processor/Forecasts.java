package io.stunwatch.processor;

import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The stun-time forecast for migrating a VM now, shared by the alerts and the API: the model group of the VM's
 * profile and framebuffer bucket when it has enough observations, else its profile's, else VMware's published
 * 2 s/GiB.
 */
public final class Forecasts {

  private Forecasts() {
  }

  /**
   * @param profile   the VM's vGPU profile, or null
   * @param fbUsedMiB framebuffer used now, MiB
   * @param model     the stun-time model by {@link StunModelEntry#key()}; returns null for a missing group
   */
  public static StunForecast forecast(String profile, long fbUsedMiB, Function<String, StunModelEntry> model) {
    double gib = fbUsedMiB / 1024.0;
    List<StunModelEntry> candidates = new ArrayList<>();
    if (profile != null) {
      candidates.add(model.apply(key(StunModelEntry.Group.FB_BUCKET, profile + "|" + StunModel.bucket(gib))));
      candidates.add(model.apply(key(StunModelEntry.Group.PROFILE, profile)));
    }
    return StunModel.forecast(gib, candidates);
  }

  /** The framebuffer bucket of {@code fbUsedMiB}, as in the model's keys. */
  public static String bucket(long fbUsedMiB) {
    return StunModel.bucket(fbUsedMiB / 1024.0);
  }

  static String key(StunModelEntry.Group group, String groupKey) {
    return group.name().toLowerCase(java.util.Locale.ROOT) + ":" + groupKey;
  }
}
