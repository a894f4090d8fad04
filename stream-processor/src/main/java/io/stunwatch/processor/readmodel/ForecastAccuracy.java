package io.stunwatch.processor.readmodel;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunModelEntry.Observation;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * How good the stun forecasts are, by backtest: for each past migration with a {@code vmware.log} stun, the forecast
 * {@link Forecasts} would have given just before it started (from the stuns of migrations that started earlier) set
 * against the stun measured. Errors are absolute percentage errors, {@code |forecast p50 - measured| / measured}.
 * VMware's published figure is scored on the same migrations.
 *
 * <p>It reads the model's kept stuns (the newest 200 per
 * group), so it scores the recent past, not the whole history; a stun without a recorded start cannot be placed in
 * time and is left out.
 */
public final class ForecastAccuracy {

  /** Prior stuns of its profile a forecast must have had to count in the "after warm-up" figures. */
  public static final int WARMUP = 20;

  private ForecastAccuracy() {
  }

  /**
   * Errors of a set of forecasts; figures are null when the set is empty.
   *
   * @param count                      forecasts scored
   * @param medianAbsPctError          median absolute percentage error of the forecasts, percent
   * @param p90AbsPctError             its 90th percentile, percent
   * @param referenceMedianAbsPctError the same of VMware's published figure for the same migrations
   * @param referenceP90AbsPctError    its 90th percentile
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  public record Score(long count, Double medianAbsPctError, Double p90AbsPctError, Double referenceMedianAbsPctError,
      Double referenceP90AbsPctError) {
  }

  /**
   * One profile's scores.
   *
   * @param profile     the vGPU profile
   * @param all         every migration of it the model keeps
   * @param afterWarmup those forecast with at least {@link #WARMUP} earlier stuns of the profile
   */
  public record ProfileScore(String profile, Score all, Score afterWarmup) {
  }

  /**
   * The backtest.
   *
   * @param warmup             {@link #WARMUP}
   * @param overall            every profile's migrations together
   * @param overallAfterWarmup the same after warm-up
   * @param profiles           by profile name
   */
  public record Result(int warmup, Score overall, Score overallAfterWarmup, List<ProfileScore> profiles) {
  }

  /** One backtested migration. */
  public record Case(String profile, Observation stun, int prior, StunForecast forecast) {

    /** Absolute percentage error of the forecast's p50. */
    public double error() {
      return Math.abs(forecast.p50Seconds() - stun.stunSeconds()) / stun.stunSeconds() * 100;
    }

    /** Absolute percentage error of VMware's figure. */
    public double referenceError() {
      return Math.abs(forecast.reference().p50Seconds() - stun.stunSeconds()) / stun.stunSeconds() * 100;
    }
  }

  /**
   * Backtests every profile group of {@code model}.
   *
   * @param vcenterVersion the vCenter version VMware's figure is chosen by, or null
   */
  public static Result backtest(Collection<StunModelEntry> model, String vcenterVersion) {
    List<Case> cases = cases(model, vcenterVersion);
    List<ProfileScore> profiles = new ArrayList<>();
    cases.stream().map(Case::profile).distinct().sorted().forEach(p -> {
      List<Case> of = cases.stream().filter(c -> c.profile().equals(p)).toList();
      profiles.add(new ProfileScore(p, score(of), score(of.stream().filter(c -> c.prior() >= WARMUP).toList())));
    });
    return new Result(WARMUP, score(cases), score(cases.stream().filter(c -> c.prior() >= WARMUP).toList()),
        profiles);
  }

  /** Every backtested migration, by profile and then start. */
  public static List<Case> cases(Collection<StunModelEntry> model, String vcenterVersion) {
    List<Observation> site = model.stream().filter(e -> e.group() == StunModelEntry.Group.SITE)
        .flatMap(e -> e.recent().stream()).filter(o -> o.at() != null).toList();
    List<Case> out = new ArrayList<>();
    model.stream().filter(e -> e.group() == StunModelEntry.Group.PROFILE)
        .sorted(Comparator.comparing(StunModelEntry::groupKey)).forEach(e -> {
          List<Observation> obs = e.recent().stream()
              .filter(o -> o.at() != null && o.stunSeconds() > 0 && o.fbUsedGiB() > 0)
              .sorted(Forecasts.CHRONOLOGICAL).toList();
          for (Observation o : obs) {
            List<Observation> prior = obs.stream().filter(p -> p.at().isBefore(o.at())).toList();
            List<Observation> sitePrior = site.stream().filter(p -> p.at().isBefore(o.at())).toList();
            StunForecast f = Forecasts.forecast(new Forecasts.Query(e.groupKey(), o.fbUsedGiB(), o.hostPair(),
                o.linkMbps(), vcenterVersion), prior, sitePrior);
            out.add(new Case(e.groupKey(), o, prior.size(), f));
          }
        });
    return out;
  }

  static Score score(List<Case> cases) {
    if (cases.isEmpty()) {
      return new Score(0, null, null, null, null);
    }
    double[] errors = cases.stream().mapToDouble(Case::error).sorted().toArray();
    double[] reference = cases.stream().mapToDouble(Case::referenceError).sorted().toArray();
    return new Score(cases.size(), round(Forecasts.median(errors.clone())), round(Forecasts.quantile(errors, 0.9)),
        round(Forecasts.median(reference.clone())), round(Forecasts.quantile(reference, 0.9)));
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
