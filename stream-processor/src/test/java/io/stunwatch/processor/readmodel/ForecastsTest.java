package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry.Observation;
import io.stunwatch.model.StunTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ForecastsTest {

  static final Instant T0 = Instant.parse("2026-11-20T00:00:00Z");

  /** {@code n} stuns of {@code intercept + slope * fb}, fb spread over 2 to 14 GiB, with ±{@code noise} jitter. */
  static List<Observation> law(int n, double intercept, double slope, double noise, String pair, Long link,
      long seed) {
    Random r = new Random(seed);
    List<Observation> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double fb = 2 + 12 * r.nextDouble();
      double stun = (intercept + slope * fb) * (1 - noise + 2 * noise * r.nextDouble());
      out.add(new Observation("m-" + seed + "-" + i, stun, fb, StunTime.Source.VMWARE_LOG, T0.plusSeconds(600L * i),
          pair, link));
    }
    return out;
  }

  static Forecasts.Query query(double fbGiB) {
    return new Forecasts.Query("T4-16C", fbGiB, null, null, null);
  }

  @Test
  void withoutStunsItIsVmwaresFigureForTheVcentersVersion() {
    StunForecast seven = Forecasts.forecast(query(10), List.of(), List.of());
    assertThat(seven.basis()).isEqualTo(StunForecast.Basis.VMWARE_REFERENCE);
    assertThat(seven.p50Seconds()).isEqualTo(20.0);
    assertThat(seven.p95Seconds()).isEqualTo(30.0);
    assertThat(seven.reference()).isEqualTo(new StunForecast.Reference(null, 2.0, 20.0));
    StunForecast six = Forecasts.forecast(new Forecasts.Query("T4-16C", 10, null, null, "6.7.0"), List.of(),
        List.of());
    assertThat(six.p50Seconds()).isEqualTo(90.0);
    assertThat(six.reference().vsphereVersion()).isEqualTo("6.7.0");
  }

  @Test
  void aLawWithAFixedOverheadIsFittedAsALineNotARatio() {
    List<Observation> stuns = law(30, 4, 0.8, 0.05, null, null, 1);
    StunForecast f = Forecasts.forecast(query(10), stuns, List.of());
    assertThat(f.basis()).isEqualTo(StunForecast.Basis.SITE_LINEAR_FIT);
    assertThat(f.group()).isEqualTo("profile:T4-16C");
    assertThat(f.interceptSeconds()).isCloseTo(4, within(0.8));
    assertThat(f.secondsPerGiB()).isCloseTo(0.8, within(0.1));
    assertThat(f.p50Seconds()).isCloseTo(12, within(0.6));
    assertThat(f.p95Seconds()).isGreaterThan(f.p50Seconds()).isLessThan(f.p50Seconds() * 1.1);
    assertThat(f.reference().p50Seconds()).as("VMware's slope says 20 s, the site says 12").isEqualTo(20.0);
    // A ratio through the origin would be wrong at both ends; the line is right at 2 GiB too.
    assertThat(Forecasts.forecast(query(2), stuns, List.of()).p50Seconds()).isCloseTo(5.6, within(0.6));
  }

  @Test
  void stunsOfOneFramebufferSizeGiveTheirMedianRatio() {
    List<Observation> stuns = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      stuns.add(new Observation("m" + i, 16 + (i % 3), 8, StunTime.Source.VMWARE_LOG, T0.plusSeconds(i), null,
          null));
    }
    StunForecast f = Forecasts.forecast(query(8), stuns, List.of());
    assertThat(f.basis()).isEqualTo(StunForecast.Basis.SITE_MEDIAN_RATIO);
    assertThat(f.interceptSeconds()).isNull();
    assertThat(f.p50Seconds()).isEqualTo(17.0);
    assertThat(f.p95Seconds()).isEqualTo(18.0);
  }

  @Test
  void theForecastDoesNotDependOnTheOrderTheStunsCameIn() {
    List<Observation> stuns = law(80, 3, 1.5, 0.2, null, null, 2);
    List<Observation> shuffled = new ArrayList<>(stuns);
    Collections.shuffle(shuffled, new Random(3));
    assertThat(Forecasts.forecast(query(9), shuffled, List.of())).isEqualTo(
        Forecasts.forecast(query(9), stuns, List.of()));
    assertThat(Forecasts.forecast(query(9), stuns, List.of()).observations()).isEqualTo(Forecasts.FIT_WINDOW);
  }

  @Test
  void aSlowerHostPairIsAdjustedForAndAFasterLinkNarrowsTheHistory() {
    List<Observation> stuns = new ArrayList<>(law(30, 0, 2, 0.05, "esx01->esx02", 25_000L, 4));
    stuns.addAll(law(6, 0, 4, 0.05, "esx01->esx03", 10_000L, 5));
    StunForecast slowPair = Forecasts.forecast(new Forecasts.Query("T4-16C", 10, "esx01->esx03", null, null), stuns,
        List.of());
    assertThat(slowPair.hostPairFactor()).isGreaterThan(1.6);
    assertThat(slowPair.p50Seconds()).isCloseTo(40, within(6.0));
    StunForecast fast = Forecasts.forecast(new Forecasts.Query("T4-16C", 10, null, 25_000L, null), stuns, List.of());
    assertThat(fast.linkMbps()).isEqualTo(25_000L);
    assertThat(fast.basis()).as("a proportional law: the line does not earn its second parameter")
        .isEqualTo(StunForecast.Basis.SITE_MEDIAN_RATIO);
    assertThat(fast.observations()).as("the 25 GbE stuns of the 8-16 GiB bucket").isBetween(3L, 30L);
    assertThat(fast.p50Seconds()).isCloseTo(20, within(1.5));
    StunForecast unknownPair = Forecasts.forecast(new Forecasts.Query("T4-16C", 10, "esx09->esx01", 1_000L, null),
        stuns, List.of());
    assertThat(unknownPair.hostPairFactor()).as("no stuns of that pair").isNull();
    assertThat(unknownPair.linkMbps()).as("none over that speed").isNull();
  }

  @Test
  void aProfileTheSiteHasNotMovedGetsTheSitesLaw() {
    StunForecast f = Forecasts.forecast(new Forecasts.Query("A100-40C", 10, null, null, null), List.of(),
        law(20, 4, 0.8, 0.05, null, null, 6));
    assertThat(f.group()).isEqualTo("site:all");
    assertThat(f.basis()).isEqualTo(StunForecast.Basis.SITE_LINEAR_FIT);
    assertThat(f.p50Seconds()).isCloseTo(12, within(1.0));
  }
}
