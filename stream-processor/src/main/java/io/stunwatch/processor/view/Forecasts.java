package io.stunwatch.processor.view;

import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The stun-time forecast for migrating a VM now, shared by the alerts and the API: the model group of the VM's
 * profile and framebuffer bucket when it has enough observations, else its profile's, else VMware's published
 * 2 s/GiB.
 */
public final class Forecasts {

  /** VMware's published vGPU stun figure on vSphere 7: about 2 s per GiB of framebuffer used. */
  public static final double REFERENCE_SECONDS_PER_GIB = 2.0;

  /** Observations a group needs before its fit replaces VMware's reference figure. */
  public static final int MIN_OBSERVATIONS = 3;

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
      candidates.add(model.apply(key(StunModelEntry.Group.FB_BUCKET, profile + "|" + bucket(gib))));
      candidates.add(model.apply(key(StunModelEntry.Group.PROFILE, profile)));
    }
    return forecast(gib, candidates);
  }

  /** The framebuffer bucket of {@code fbUsedMiB}, as in the model's keys. */
  public static String bucket(long fbUsedMiB) {
    return bucket(fbUsedMiB / 1024.0);
  }

  static String key(StunModelEntry.Group group, String groupKey) {
    return group.name().toLowerCase(Locale.ROOT) + ":" + groupKey;
  }

  /** Framebuffer-used bucket: 0-4, 4-8, 8-16, 16-32, 32-64, 64+ GiB. */
  public static String bucket(double gib) {
    int[] edges = {4, 8, 16, 32, 64};
    int lo = 0;
    for (int e : edges) {
      if (gib < e) {
        return lo + "-" + e + "GiB";
      }
      lo = e;
    }
    return "64+GiB";
  }

  /**
   * A forecast for {@code fbUsedGiB} from the best group with enough observations, else VMware's reference.
   *
   * @param entries candidate groups, most specific first (null entries are skipped)
   */
  static StunForecast forecast(double fbUsedGiB, List<StunModelEntry> entries) {
    for (StunModelEntry e : entries) {
      if (e != null && e.observations() >= MIN_OBSERVATIONS && e.p50SecondsPerGiB() != null) {
        return new StunForecast(e.p50SecondsPerGiB() * fbUsedGiB, e.p95SecondsPerGiB() * fbUsedGiB,
            e.fittedSecondsPerGiB(), fbUsedGiB, e.observations(), StunForecast.Basis.FITTED);
      }
    }
    double p50 = fbUsedGiB * REFERENCE_SECONDS_PER_GIB;
    return new StunForecast(p50, p50 * 1.5, REFERENCE_SECONDS_PER_GIB, fbUsedGiB, 0,
        StunForecast.Basis.VMWARE_REFERENCE);
  }
}
