package io.stunwatch.processor.node;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.domain.ImpactBuilder;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.view.StoreNames;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps what each VM's hosts logged of its migrations, for impacts to come: its vmware.log stun and vMotion
 * observations, and the vmkernel.log precopy bandwidths joined to them by vMotion id ({@link VmotionIdProcessor}).
 * It revises an impact already closed without them: in a catch-up an observation (one repartition hop behind) can
 * arrive after the VM's samples have run past the settle window, and the impact, its alert and the model must end
 * with the log's figures all the same.
 */
public final class StunProcessor implements Processor<String, Object, String, Object> {
  private final ProcessorConfig config;
  private ProcessorContext<String, Object> context;
  private KeyValueStore<String, Tracked.Stuns> stuns;
  private KeyValueStore<String, Tracked.Recent> recent;
  private KeyValueStore<String, MigrationImpact> impacts;
  private KeyValueStore<String, MigrationAlert> alerts;
  private KeyValueStore<String, Migration> migrations;
  private MigrationIndex index;

  public StunProcessor(ProcessorConfig config) {
    this.config = config;
  }

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    stuns = context.getStateStore(StoreNames.VM_STUNS);
    recent = context.getStateStore(StoreNames.VM_MIGRATIONS);
    impacts = context.getStateStore(StoreNames.IMPACTS);
    alerts = context.getStateStore(StoreNames.ALERTS);
    migrations = context.getStateStore(StoreNames.MIGRATIONS);
    index = new MigrationIndex(context);
  }

  @Override
  public void process(Record<String, Object> record) {
    Tracked.Stuns old = stuns.get(record.key());
    Tracked.Stuns was = old == null ? new Tracked.Stuns(null) : old;
    Tracked.Stuns now;
    if (record.value() instanceof StunObservation s) {
      now = was.with(s);
    } else if (record.value() instanceof VmotionObservation v) {
      now = was.with(v);
    } else if (record.value() instanceof VmotionBandwidth b) {
      now = was.with(b);
    } else {
      throw new IllegalArgumentException("not a host log record: " + record.value().getClass());
    }
    if (now.equals(was)) {
      return; // read before: nothing to revise
    }
    stuns.put(record.key(), now);
    Tracked.Recent ids = recent.get(record.key());
    for (String id : ids == null ? List.<String>of() : ids.migrationIds()) {
      // The migration as stored is the impact's (a revision of one revises the other), and far smaller to read:
      // most observations belong to no settled migration, so the impact is read only for one they change.
      Migration m = migrations.get(id);
      if (m == null || m.startTime() == null) {
        continue;
      }
      StunTime stun = ImpactBuilder.stun(m, List.of(), now.stuns());
      MigrationImpact.VmotionDetail vmotion = ImpactBuilder.vmotion(m, now);
      boolean fromLog = stun.source() == StunTime.Source.VMWARE_LOG;
      if (!fromLog && vmotion.equals(ImpactBuilder.vmotion(m, null))) {
        continue; // nothing from the logs for this migration
      }
      MigrationImpact i = impacts.get(id);
      if (i == null || (!fromLog || stun.equals(i.stun())) && vmotion.equals(i.vmotion())) {
        continue; // not settled yet (its impact will read the logs when it is), or nothing new
      }
      MigrationImpact revised = (fromLog ? ImpactBuilder.withStun(i, stun) : i).withVmotion(vmotion);
      impacts.put(id, revised);
      context.forward(new Record<>(id, revised, record.timestamp()));
      MigrationAlert a = alerts.get(id);
      if (fromLog && !stun.equals(i.stun()) && a != null && a.measured() != null) {
        // the dip counts the stunned seconds: it follows the stun
        MigrationAlert updated = a.withMeasured(a.measured().withStun(stun, revised.throughputDipPct()));
        alerts.put(id, updated);
        context.forward(new Record<>(id, updated, record.timestamp()));
      }
      index.refresh(record.key(), m, revised);
    }
  }
}
