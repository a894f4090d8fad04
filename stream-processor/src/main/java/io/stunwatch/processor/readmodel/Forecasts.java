package io.stunwatch.processor.readmodel;

import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunModelEntry.Observation;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The stun-time forecast of migrating a VM now, shared by the alerts, the API and the accuracy backtest
 * ({@link ForecastAccuracy}). It learns the site from its own {@code vmware.log} stuns:
 * <ol>
 *   <li>the VM's profile group, when it has {@value #MIN_OBSERVATIONS} stuns or more: a line fitted to its newest
 *       {@value #FIT_WINDOW} ({@link StunForecast.Basis#SITE_LINEAR_FIT}) when at least {@value #MIN_FIT} of them span
 *       enough framebuffer sizes to tell a per-GiB slope from a fixed overhead and the line predicts them clearly
 *       better than a ratio does, else the median seconds per GiB of those in the same framebuffer bucket (or of all)
 *       ({@link StunForecast.Basis#SITE_MEDIAN_RATIO});</li>
 *   <li>else the whole site's stuns, the same way: a profile the site has not moved yet still gets the site's law;</li>
 *   <li>else VMware's published figure for the vCenter's version.</li>
 * </ol>
 * Two inputs narrow or adjust it when known: the vMotion link speed (only stuns over links of the same speed, when the
 * group has enough of them and not only those), and the host pair (the pair's own stuns against the line, when it has
 * enough). VMware's figure is always given beside the forecast.
 *
 * <p>A pure function of the model's observations: the same stuns give the same forecast, whatever order they came
 * in.
 */
public final class Forecasts {

  /** Stuns a group needs before its own figure replaces VMware's. */
  public static final int MIN_OBSERVATIONS = 3;

  /** Stuns a group needs before a line is fitted rather than a ratio taken. */
  public static final int MIN_FIT = 8;

  /** The newest stuns of a group a forecast rests on: a site that changes (new NICs, a new release) is learnt anew. */
  public static final int FIT_WINDOW = 60;

  /** The smallest framebuffer spread, max over min of the stuns used, that a line is fitted across. */
  static final double MIN_SPREAD = 1.3;

  /** How much lower the line's median relative error on the window must be than the ratio's for the line. */
  static final double LINE_MUST_BEAT = 0.8;

  /** VMware's reference p95: the published figure is a typical one, so half as much again. */
  static final double REFERENCE_P95_FACTOR = 1.5;

  /**
   * What a forecast is asked for.
   *
   * @param profile        the VM's vGPU profile, or null
   * @param fbUsedGiB      framebuffer used now, GiB
   * @param hostPair       {@code <source>-><destination>} by host name, when the destination is known
   * @param linkMbps       the slower of the two hosts' vMotion uplinks, Mbit/s, when known
   * @param vcenterVersion the vCenter's version, for VMware's figure, when known
   */
  public record Query(String profile, double fbUsedGiB, String hostPair, Long linkMbps, String vcenterVersion) {
  }

  private Forecasts() {
  }

  /** The forecast for {@code q} from the model's groups ({@code model} returns null for a missing group). */
  public static StunForecast forecast(Query q, Function<String, StunModelEntry> model) {
    StunModelEntry profile = q.profile() == null ? null
        : model.apply(key(StunModelEntry.Group.PROFILE, q.profile()));
    StunModelEntry site = model.apply(key(StunModelEntry.Group.SITE, StunModelEntry.SITE_KEY));
    return forecast(q, profile == null ? List.of() : profile.recent(), site == null ? List.of() : site.recent());
  }

  /**
   * The forecast for {@code q} from the profile's stuns, else the site's: both as the model keeps them, in any order.
   */
  public static StunForecast forecast(Query q, List<Observation> profileStuns, List<Observation> siteStuns) {
    StunForecast.Reference reference = StunForecast.Reference.of(q.vcenterVersion(), q.fbUsedGiB());
    if (profileStuns.size() >= MIN_OBSERVATIONS) {
      return fromGroup(q, key(StunModelEntry.Group.PROFILE, q.profile()), profileStuns, reference);
    }
    if (siteStuns.size() >= MIN_OBSERVATIONS) {
      return fromGroup(q, key(StunModelEntry.Group.SITE, StunModelEntry.SITE_KEY), siteStuns, reference);
    }
    return new StunForecast(reference.p50Seconds(), reference.p50Seconds() * REFERENCE_P95_FACTOR,
        reference.secondsPerGiB(), q.fbUsedGiB(), 0, StunForecast.Basis.VMWARE_REFERENCE, null, null, null, null,
        reference);
  }

  /** The framebuffer bucket of {@code fbUsedMiB}, as in the model's keys. */
  public static String bucket(long fbUsedMiB) {
    return bucket(fbUsedMiB / 1024.0);
  }

  /** The model key of a group. */
  public static String key(StunModelEntry.Group group, String groupKey) {
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

  /** Oldest first: by start, then id; an observation without a start sorts first. */
  public static final Comparator<Observation> CHRONOLOGICAL = Comparator.comparing(Observation::at,
      Comparator.nullsFirst(Comparator.<Instant>naturalOrder())).thenComparing(Observation::migrationId);

  private static StunForecast fromGroup(Query q, String group, List<Observation> all,
      StunForecast.Reference reference) {
    List<Observation> usable = all.stream().filter(o -> o.fbUsedGiB() > 0).sorted(CHRONOLOGICAL).toList();
    Long link = null;
    if (q.linkMbps() != null) {
      List<Observation> same = usable.stream().filter(o -> q.linkMbps().equals(o.linkMbps())).toList();
      if (same.size() >= MIN_OBSERVATIONS && same.size() < usable.size()) {
        usable = same;
        link = q.linkMbps();
      }
    }
    List<Observation> window = usable.subList(Math.max(0, usable.size() - FIT_WINDOW), usable.size());
    if (window.size() < MIN_OBSERVATIONS) {
      return forecast(new Query(null, q.fbUsedGiB(), null, null, q.vcenterVersion()), List.of(), List.of());
    }
    double[] line = line(window);
    double ratio = median(window.stream().mapToDouble(o -> o.stunSeconds() / o.fbUsedGiB()).toArray());
    // The line has two parameters to the ratio's one, so it must earn them: it is used only when it predicts the
    // window's own stuns clearly better, in relative error (a 1 s miss on a 2 s stun matters as much as 10 s on 20 s).
    if (line != null && relativeError(window, line[0], line[1]) >= LINE_MUST_BEAT * relativeError(window, 0, ratio)) {
      line = null;
    }
    StunForecast.Basis basis;
    double intercept;
    double slope;
    List<Observation> used = window;
    if (line != null) {
      basis = StunForecast.Basis.SITE_LINEAR_FIT;
      intercept = line[0];
      slope = line[1];
    } else {
      // Too few, too alike or too proportional for a line: the median ratio, of this framebuffer bucket's stuns when
      // enough of them.
      String bucket = bucket(q.fbUsedGiB());
      List<Observation> same = window.stream().filter(o -> bucket(o.fbUsedGiB()).equals(bucket)).toList();
      if (same.size() >= MIN_OBSERVATIONS) {
        used = same;
      }
      basis = StunForecast.Basis.SITE_MEDIAN_RATIO;
      intercept = 0;
      slope = used == window ? ratio
          : median(used.stream().mapToDouble(o -> o.stunSeconds() / o.fbUsedGiB()).toArray());
    }
    double p50 = intercept + slope * q.fbUsedGiB();
    // The spread: each stun over what the fit says of it, so that the p95 scales with the framebuffer.
    double[] over = used.stream().mapToDouble(o -> o.stunSeconds() / (intercept + slope * o.fbUsedGiB()))
        .filter(Double::isFinite).sorted().toArray();
    double p95 = p50 * Math.max(1, quantile(over, 0.95));
    Double pairFactor = null;
    if (q.hostPair() != null) {
      // The pair's stuns against the fit, over the whole window (a bucket may hold few of them), relative to how the
      // window's stuns as a whole sit against it.
      double[] pair = window.stream().filter(o -> q.hostPair().equals(o.hostPair()))
          .mapToDouble(o -> o.stunSeconds() / (intercept + slope * o.fbUsedGiB())).filter(Double::isFinite)
          .toArray();
      if (pair.length >= MIN_OBSERVATIONS && pair.length < window.size()) {
        double whole = median(window.stream().mapToDouble(o -> o.stunSeconds() / (intercept + slope * o.fbUsedGiB()))
            .filter(Double::isFinite).toArray());
        pairFactor = Math.max(0.25, Math.min(4, median(pair) / whole));
        p50 *= pairFactor;
        p95 *= pairFactor;
      }
    }
    return new StunForecast(p50, p95, slope, q.fbUsedGiB(), used.size(), basis,
        basis == StunForecast.Basis.SITE_LINEAR_FIT ? intercept : null, group, pairFactor, link, reference);
  }

  /**
   * Theil-Sen: the median of the pairwise slopes, then the median of the intercepts they leave, both at least 0; null
   * for fewer than {@link #MIN_FIT} stuns or a framebuffer spread under {@link #MIN_SPREAD}.
   *
   * @return {intercept, slope}
   */
  static double[] line(List<Observation> obs) {
    if (obs.size() < MIN_FIT) {
      return null;
    }
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Observation o : obs) {
      lo = Math.min(lo, o.fbUsedGiB());
      hi = Math.max(hi, o.fbUsedGiB());
    }
    if (hi < lo * MIN_SPREAD) {
      return null;
    }
    double[] slopes = new double[obs.size() * (obs.size() - 1) / 2];
    int n = 0;
    for (int i = 0; i < obs.size(); i++) {
      for (int j = i + 1; j < obs.size(); j++) {
        double dx = obs.get(j).fbUsedGiB() - obs.get(i).fbUsedGiB();
        // Pairs of (nearly) one size say nothing of the slope: a VM's framebuffer use barely moves between its moves.
        if (Math.abs(dx) >= 0.05 * hi) {
          slopes[n++] = (obs.get(j).stunSeconds() - obs.get(i).stunSeconds()) / dx;
        }
      }
    }
    if (n == 0) {
      return null;
    }
    double slope = Math.max(0, median(Arrays.copyOf(slopes, n)));
    double intercept = Math.max(0, median(obs.stream().mapToDouble(o -> o.stunSeconds() - slope * o.fbUsedGiB())
        .toArray()));
    return slope == 0 && intercept == 0 ? null : new double[] {intercept, slope};
  }

  /** The median of {@code |predicted - stun| / stun} over {@code obs} for {@code intercept + slope * fb}. */
  static double relativeError(List<Observation> obs, double intercept, double slope) {
    double[] errors = obs.stream().filter(o -> o.stunSeconds() > 0)
        .mapToDouble(o -> Math.abs(intercept + slope * o.fbUsedGiB() - o.stunSeconds()) / o.stunSeconds())
        .toArray();
    return errors.length == 0 ? Double.POSITIVE_INFINITY : median(errors);
  }

  /** The median (the mean of the middle two of an even count) of at least one value; sorts {@code values}. */
  public static double median(double[] values) {
    Arrays.sort(values);
    int m = values.length / 2;
    return values.length % 2 == 1 ? values[m] : (values[m - 1] + values[m]) / 2;
  }

  /** Nearest-rank quantile of sorted values; 1 for none (no spread known). */
  static double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return 1;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
