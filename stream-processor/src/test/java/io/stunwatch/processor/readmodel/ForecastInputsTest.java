package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForecastInputsTest {

  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

  /** Two vCenters, each with an esx01 and an esx02 of its own: a 7.0.3 site on 25/10 GbE, a 6.7 one on 1 GbE. */
  private final List<HostInventoryEntry> site = List.of(
      new HostInventoryEntry("vc-a", "host-1", "esx01", null, List.of(), 25_000L, T0, "7.0.3", "7.0.3"),
      new HostInventoryEntry("vc-a", "host-2", "esx02", null, List.of(), 10_000L, T0, "7.0.3", "7.0.3"),
      new HostInventoryEntry("vc-b", "host-1", "esx01", null, List.of(), 1_000L, T0, "6.7.0", null),
      new HostInventoryEntry("vc-b", "host-9", "esx02", null, List.of(), 1_000L, T0, "6.7.0", "6.7.0"));
  private final ForecastInputs.Hosts hosts = new ForecastInputs.Hosts() {
    @Override
    public HostInventoryEntry host(String vcenterUuid, String moref) {
      return site.stream().filter(h -> h.vcenterUuid().equals(vcenterUuid) && h.moref().equals(moref)).findFirst()
          .orElse(null);
    }

    @Override
    public String vcenterVersion(String vcenterUuid) {
      return site.stream().filter(h -> h.vcenterUuid().equals(vcenterUuid) && h.vcenterVersion() != null)
          .map(HostInventoryEntry::vcenterVersion).findFirst().orElse(null);
    }
  };

  @Test
  void eachVmGetsItsOwnVcentersHostsWhenTwoVcentersShareHostNames() {
    Forecasts.Query a = ForecastInputs.query("T4-16C", 15.0, "vc-a", new EntityRef("HostSystem", "host-1", "esx01"),
        new EntityRef("HostSystem", "host-2", "esx02"), hosts);
    assertThat(a).isEqualTo(new Forecasts.Query("T4-16C", 15.0, "esx01->esx02", 10_000L, "7.0.3"));
    Forecasts.Query b = ForecastInputs.query("T4-16C", 15.0, "vc-b", new EntityRef("HostSystem", "host-1", "esx01"),
        new EntityRef("HostSystem", "host-9", "esx02"), hosts);
    assertThat(b).as("its esx01 has no vCenter version: another host of its own vCenter gives it")
        .isEqualTo(new Forecasts.Query("T4-16C", 15.0, "esx01->esx02", 1_000L, "6.7.0"));
  }

  @Test
  void withoutADestinationTheSourcesUplinkBoundsTheCopyAndAnUnknownHostGivesNoLink() {
    EntityRef esx01 = new EntityRef("HostSystem", "host-1", "esx01");
    assertThat(ForecastInputs.query(null, 1.0, "vc-a", esx01, null, hosts))
        .isEqualTo(new Forecasts.Query(null, 1.0, null, 25_000L, "7.0.3"));
    assertThat(ForecastInputs.query(null, 1.0, "vc-a", esx01, new EntityRef("HostSystem", "host-7", null), hosts))
        .isEqualTo(new Forecasts.Query(null, 1.0, "esx01->host-7", null, "7.0.3"));
    assertThat(ForecastInputs.query(null, 1.0, "vc-c", null, null, hosts))
        .isEqualTo(new Forecasts.Query(null, 1.0, null, null, null));
  }
}
