package io.stunwatch.processor;

import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Groups vCenter events (keyed by VM id) into migrations, and raises "migration under load" at a migration's first
 * event when the VM was busy just before it; resolves the alert when the migration ends. Output records are
 * catalog values ({@link Migration}, {@link MigrationAlert}, {@link DeadLetter}) routed by {@link CatalogRouting}.
 */
final class MigrationProcessor implements Processor<String, VcenterEvent, String, Object> {

  /** VMware's published vGPU stun figure on vSphere 7: about 2 s per GiB of framebuffer used. */
  static final double REFERENCE_SECONDS_PER_GIB = 2.0;

  private final ProcessorConfig config;
  private final Clock clock;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, EventSet> events;
  private KeyValueStore<String, Migration> migrations;
  private KeyValueStore<String, MigrationAlert> alerts;
  private KeyValueStore<String, VmSamples> samples;
  private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;

  MigrationProcessor(ProcessorConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.events = context.getStateStore(StoreNames.MIGRATION_EVENTS);
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.alerts = context.getStateStore(StoreNames.ALERTS);
    this.samples = context.getStateStore(StoreNames.VM_SAMPLES);
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
  }

  @Override
  public void process(Record<String, VcenterEvent> record) {
    VcenterEvent e = record.value();
    try {
      String id = Keys.migration(e.vcenterUuid(), e.chainId() != null ? e.chainId() : e.eventKey());
      EventSet before = events.get(id);
      EventSet after = (before == null ? new EventSet(List.of()) : before).with(e);
      if (after == before) {
        return; // a duplicate: the migration cannot change
      }
      events.put(id, after);
      ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(e.vmKey());
      Migration m = MigrationAssembler.assemble(after.events(), vm == null ? null : vm.value());
      if (!m.equals(migrations.get(id))) {
        migrations.put(id, m);
        context.forward(new Record<>(id, m, record.timestamp()));
      }
      if (before == null) {
        raiseIfUnderLoad(record.key(), m, record.timestamp());
      }
      resolveIfEnded(m, record.timestamp());
    } catch (RuntimeException ex) {
      // A bug or an impossible input must not stop the application: the record goes to the dead letters.
      DeadLetter d = DeadLetter.of(Topics.VCENTER_EVENTS.name(), -1, -1, e.createdTime(), null,
          Topics.VCENTER_EVENTS.encodeValue(e), DeadLetter.Stage.PROCESSING, ex.toString(), "stream-processor",
          clock.instant());
      context.forward(new Record<>(Topics.VCENTER_EVENTS.name(), d, record.timestamp()));
    }
  }

  private void raiseIfUnderLoad(String vmKey, Migration m, long timestamp) {
    Instant start = m.startTime();
    VmSamples history = samples.get(vmKey);
    if (start == null || history == null) {
      return; // no samples of this VM: its load is unknown, not low
    }
    VmSamples.Load load = history.load(start.minus(config.alertWindow()), start);
    List<MigrationAlert.Reason> reasons = new ArrayList<>();
    if (load.gpuUtilizationAvgPct() != null && load.gpuUtilizationAvgPct() >= config.alertGpuPct()) {
      reasons.add(MigrationAlert.Reason.GPU_UTILIZATION);
    }
    if (load.fbUsedPct() != null && load.fbUsedPct() >= config.alertFbUsedPct()) {
      reasons.add(MigrationAlert.Reason.FB_USED);
    }
    if (reasons.isEmpty()) {
      return;
    }
    MigrationAlert a = new MigrationAlert(m.id(), MigrationAlert.AlertState.FIRING, m.vmMoref(), m.vmName(),
        m.vmId(), m.sourceHost(), m.destHost(), m.initiator(), m.vgpuProfile(),
        new MigrationAlert.Load(load.gpuUtilizationAvgPct(), config.alertWindow().toSeconds(), load.fbUsedMiB(),
            load.fbUsedPct(), null),
        reasons, forecast(load), start, m.updatedAt(), null);
    alerts.put(m.id(), a);
    context.forward(new Record<>(m.id(), a, timestamp));
  }

  private void resolveIfEnded(Migration m, long timestamp) {
    MigrationAlert a = alerts.get(m.id());
    if (a == null || !m.state().isFinal() || a.state() == MigrationAlert.AlertState.RESOLVED) {
      return;
    }
    MigrationAlert resolved = new MigrationAlert(a.migrationId(), MigrationAlert.AlertState.RESOLVED, a.vmMoref(),
        a.vmName(), a.vmId(), a.sourceHost(), m.destHost(), a.initiator(), a.vgpuProfile(), a.load(), a.reasons(),
        a.forecast(), a.raisedAt(), m.updatedAt(), new MigrationAlert.Measured(m.state(), m.durationSeconds(),
            new StunTime(null, StunTime.Source.UNKNOWN), null));
    alerts.put(m.id(), resolved);
    context.forward(new Record<>(m.id(), resolved, timestamp));
  }

  /** Until the fleet has stun observations to fit, VMware's published figure. */
  static StunForecast forecast(VmSamples.Load load) {
    if (load.fbUsedMiB() == null) {
      return null;
    }
    double gib = load.fbUsedMiB() / 1024.0;
    double p50 = gib * REFERENCE_SECONDS_PER_GIB;
    return new StunForecast(p50, p50 * 1.5, REFERENCE_SECONDS_PER_GIB, gib, 0, StunForecast.Basis.VMWARE_REFERENCE);
  }
}
