package io.stunwatch.processor.processors;

import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunTime;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.readmodel.ForecastInputs;
import io.stunwatch.processor.readmodel.Forecasts;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The "migration under load" alert of {@link MigrationMachine}'s migrations: raised at the start when the VM's
 * load over {@code process.alert.window} crossed a threshold, with a stun forecast; resolved when the migration ends,
 * then again with the measured impact. Its only store is {@link StoreNames#ALERTS}; each change is forwarded under
 * the migration's id.
 */
final class MigrationAlerting {

  private final ProcessorConfig config;
  private final LiveCommits live;
  private final ProcessorContext<String, Object> context;
  private final SampleHistory samples;
  private final KeyValueStore<String, MigrationAlert> alerts;
  private final KeyValueStore<String, ValueAndTimestamp<StunModelEntry>> model;
  private final KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts;

  MigrationAlerting(ProcessorConfig config, LiveCommits live, ProcessorContext<String, Object> context,
      SampleHistory samples) {
    this.config = config;
    this.live = live;
    this.context = context;
    this.samples = samples;
    this.alerts = context.getStateStore(StoreNames.ALERTS);
    this.model = context.getStateStore(StoreNames.STUN_MODEL_GLOBAL);
    this.hosts = context.getStateStore(StoreNames.HOST_INVENTORY);
  }

  /**
   * Raises the migration's alert when the VM was under load over the alert window before its start; once: an alert
   * raised stays raised.
   */
  void raiseIfUnderLoad(String vmKey, Migration m, long timestamp) {
    Instant start = m.startTime();
    if (start == null || alerts.get(m.id()) != null) {
      return;
    }
    Instant from = start.minus(config.alertWindow());
    Instant to = start.minus(MigrationRanges.ALERT_WINDOW_END);
    VmSamples history = samples.range(vmKey, from, to);
    VmSamples.Load load = history.load(from, to);
    if (!UnderLoad.known(load)) {
      return; // no samples of this VM: its load is unknown, not low
    }
    List<MigrationAlert.Reason> reasons = UnderLoad.reasons(load, config);
    if (reasons.isEmpty()) {
      return;
    }
    MigrationAlert a = new MigrationAlert(m.id(), MigrationAlert.AlertState.FIRING, m.vmMoref(), m.vmName(),
        m.vmId(), m.sourceHost(), m.destHost(), m.initiator(), m.vgpuProfile(),
        UnderLoad.figures(load, history, config),
        reasons, forecast(load, m), start, m.updatedAt(), null);
    alerts.put(m.id(), a);
    context.forward(new Record<>(m.id(), a, timestamp));
    live.requestIfLive(context, start.toEpochMilli());
  }

  /** Whether the migration has an alert, raised or resolved. */
  boolean raised(String migrationId) {
    return alerts.get(migrationId) != null;
  }

  /** Resolves the alert of a migration that ended, before its impact is known. */
  void resolveIfEnded(Migration m, long timestamp) {
    MigrationAlert a = alerts.get(m.id());
    if (a == null || !m.state().isFinal() || a.state() == MigrationAlert.AlertState.RESOLVED) {
      return;
    }
    MigrationAlert resolved = a.resolved(m, m.updatedAt(), new MigrationAlert.Measured(m.state(),
        m.durationSeconds(), new StunTime(null, StunTime.Source.UNKNOWN), null));
    alerts.put(m.id(), resolved);
    context.forward(new Record<>(m.id(), resolved, timestamp));
  }

  /** Resolves the migration's alert, if it has one, with the impact's figures and the migration as it settled. */
  void resolve(Migration m, MigrationImpact impact, long at) {
    MigrationAlert a = alerts.get(m.id());
    if (a == null) {
      return;
    }
    MigrationAlert updated = a.resolved(m, Instant.ofEpochMilli(at), new MigrationAlert.Measured(m.state(),
        impact.durationSeconds(), impact.stun(), impact.throughputDipPct()));
    if (!updated.equals(a)) {
      alerts.put(m.id(), updated);
      context.forward(new Record<>(m.id(), updated, at));
    }
  }

  /**
   * Shows a revised stun (a host log read after the impact) in the migration's resolved alert, with the dip that the
   * stunned seconds give: the alert's measured figures follow the impact's.
   */
  void restun(String migrationId, StunTime stun, Double throughputDipPct, long timestamp) {
    MigrationAlert a = alerts.get(migrationId);
    if (a != null && a.measured() != null) {
      MigrationAlert updated = a.withMeasured(a.measured().withStun(stun, throughputDipPct));
      alerts.put(migrationId, updated);
      context.forward(new Record<>(migrationId, updated, timestamp));
    }
  }

  /**
   * From the site's own stuns of this profile (else of the whole site), else VMware's figure for the vCenter's
   * version; narrowed to the hosts' link speed and adjusted for the host pair where the model knows them.
   */
  private StunForecast forecast(VmSamples.Load load, Migration m) {
    if (load.fbUsedMiB() == null) {
      return null;
    }
    Forecasts.Query q = ForecastInputs.query(m.vgpuProfile(), load.fbUsedMiB() / 1024.0, m.vcenterUuid(),
        m.sourceHost(), m.destHost(), HostInventoryLookup.directory(hosts));
    return Forecasts.forecast(q, k -> {
      ValueAndTimestamp<StunModelEntry> v = model.get(k);
      return v == null ? null : v.value();
    });
  }
}
