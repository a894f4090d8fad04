package io.stunwatch.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MigrationAlertTest {

  private static MigrationAlert firing() {
    // raised while the migration was known only by its first event: no name, no destination yet
    return new MigrationAlert(Samples.migration().id(), MigrationAlert.AlertState.FIRING, "vm-42", null, null,
        Samples.host("host-1"), null, Initiator.DRS, "T4-16C", new MigrationAlert.Load(88.0, 60L, 15360L, 93.75, null),
        List.of(MigrationAlert.Reason.GPU_UTILIZATION),
        new StunForecast(30.0, 45.0, 2.0, 15.0, 12, StunForecast.Basis.SITE_MEDIAN_RATIO), Samples.T0, Samples.T0, null);
  }

  @Test
  void resolvingTakesTheSettledMigrationAndKeepsWhatWasDecidedAtTheRaise() {
    MigrationAlert a = firing();
    Migration settled = Samples.migration();
    MigrationAlert.Measured measured = new MigrationAlert.Measured(MigrationState.SUCCEEDED, 180.0, Samples.stun(),
        12.5);

    MigrationAlert r = a.resolved(settled, Samples.T0.plusSeconds(300), measured);

    assertThat(r.state()).isEqualTo(MigrationAlert.AlertState.RESOLVED);
    assertThat(r.vmName()).isEqualTo("train-01");
    assertThat(r.vmId()).isEqualTo(Samples.VM);
    assertThat(r.destHost()).isEqualTo(Samples.host("host-2"));
    assertThat(r.load()).isEqualTo(a.load());
    assertThat(r.reasons()).isEqualTo(a.reasons());
    assertThat(r.forecast()).isEqualTo(a.forecast());
    assertThat(r.raisedAt()).isEqualTo(Samples.T0);
    assertThat(r.updatedAt()).isEqualTo(Samples.T0.plusSeconds(300));
    assertThat(r.measured()).isEqualTo(measured);
  }

  @Test
  void aLaterStunChangesTheMeasurementsAndNothingElse() {
    MigrationAlert r = firing().resolved(Samples.migration(), Samples.T0.plusSeconds(300),
        new MigrationAlert.Measured(MigrationState.SUCCEEDED, 180.0, new StunTime(4.0, StunTime.Source.SAMPLE_GAP_ESTIMATE),
            3.0));

    MigrationAlert revised = r.withMeasured(r.measured().withStun(Samples.stun(), 12.5));

    assertThat(revised.measured()).isEqualTo(new MigrationAlert.Measured(MigrationState.SUCCEEDED, 180.0,
        Samples.stun(), 12.5));
    assertThat(revised.withMeasured(r.measured())).isEqualTo(r);
  }
}
