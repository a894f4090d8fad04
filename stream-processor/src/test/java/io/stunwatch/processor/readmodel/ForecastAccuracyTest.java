package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunModelEntry.Group;
import io.stunwatch.model.StunModelEntry.Observation;
import io.stunwatch.model.StunTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForecastAccuracyTest {

  static StunModelEntry entry(Group g, String key, List<Observation> recent) {
    return new StunModelEntry(g, key, recent.size(), null, null, null, null, null, recent, ForecastsTest.T0);
  }

  @Test
  void eachStunIsForecastFromTheStunsBeforeItAndScoredBesideVmwaresFigure() {
    List<Observation> stuns = ForecastsTest.law(40, 4, 0.8, 0.1, null, null, 7);
    ForecastAccuracy.Result r = ForecastAccuracy.backtest(List.of(entry(Group.PROFILE, "T4-16C", stuns),
        entry(Group.SITE, StunModelEntry.SITE_KEY, stuns)), null);
    assertThat(r.overall().count()).isEqualTo(40);
    assertThat(r.overallAfterWarmup().count()).isEqualTo(20);
    assertThat(r.profiles()).singleElement().satisfies(p -> {
      assertThat(p.profile()).isEqualTo("T4-16C");
      assertThat(p.afterWarmup().medianAbsPctError()).isLessThan(10.0);
      assertThat(p.afterWarmup().referenceMedianAbsPctError()).as("2 s/GiB against 4 s + 0.8 s/GiB")
          .isGreaterThan(40.0);
      assertThat(p.afterWarmup().p90AbsPctError()).isGreaterThanOrEqualTo(p.afterWarmup().medianAbsPctError());
    });
    List<ForecastAccuracy.Case> cases = ForecastAccuracy.cases(List.of(entry(Group.PROFILE, "T4-16C", stuns)), null);
    assertThat(cases.get(0).prior()).isZero();
    assertThat(cases.get(0).forecast().basis()).as("nothing before the first").isEqualTo(
        io.stunwatch.model.StunForecast.Basis.VMWARE_REFERENCE);
    assertThat(cases.get(39).prior()).isEqualTo(39);
  }

  @Test
  void aStunWithoutAStartCannotBePlacedInTimeAndIsLeftOut() {
    List<Observation> stuns = new ArrayList<>(ForecastsTest.law(5, 0, 2, 0, null, null, 8));
    stuns.add(new Observation("old", 20, 10, StunTime.Source.VMWARE_LOG));
    ForecastAccuracy.Result r = ForecastAccuracy.backtest(List.of(entry(Group.PROFILE, "T4-8C", stuns)), null);
    assertThat(r.overall().count()).isEqualTo(5);
    assertThat(ForecastAccuracy.backtest(List.of(), null).overall().medianAbsPctError()).isNull();
  }
}
