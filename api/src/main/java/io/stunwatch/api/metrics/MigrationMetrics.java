package io.stunwatch.api.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.stunwatch.metrics.Meters;
import io.stunwatch.metrics.PipelineSource;
import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.topic.RecordDecodeException;
import io.stunwatch.model.topic.Topics;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The migration and pipeline meters, fed with the processor's output topics and the collectors' checkpoints by
 * {@link TopicMetricsFeed}. Pure bookkeeping: it never touches Kafka, so a unit test drives it record by record.
 *
 * <p>Each migration is counted once, at its first settled impact: a later revision (a late {@code vmware.log}
 * figure) changes the record, not how many migrations there were. Alerts likewise count at their first FIRING.
 * The remembered ids are bounded ({@link #REMEMBERED_IDS}); an id forgotten that long ago is not revised any more.
 */
public final class MigrationMetrics {

  /** How many migration and alert ids are remembered to count each once. */
  static final int REMEMBERED_IDS = 200_000;
  /** Histogram bucket bounds of migration duration, seconds (vMotion of a large vGPU VM takes minutes). */
  static final double[] DURATION_BUCKETS = {5, 10, 20, 30, 60, 120, 180, 300, 600, 1200};
  /** Histogram bucket bounds of stun time, seconds (about 2 s/GiB of framebuffer on vSphere 7, 9 s/GiB on 6.7). */
  static final double[] STUN_BUCKETS = {0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300};

  private static final Logger LOG = LoggerFactory.getLogger(MigrationMetrics.class);

  private final MeterRegistry registry;
  private final Clock clock;
  private final Set<String> countedMigrations = bounded();
  private final Set<String> countedAlerts = bounded();
  private final Set<String> underLoad = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> checkpoints = new ConcurrentHashMap<>();
  /** The newest checkpoint of each vCenter whose collector runs the DRS guard, or ran it since this started. */
  private final Map<String, VcenterCheckpoint> guarded = new ConcurrentHashMap<>();
  private final AtomicReference<Double> lastVcenterEvent = new AtomicReference<>();
  private final Counter undecodable;

  public MigrationMetrics(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
    registry.gauge(Meters.MIGRATIONS_UNDER_LOAD, Tags.empty(), underLoad, Set::size);
    registry.gauge(Meters.LAST_EVENT, Tags.of(Meters.TAG_SOURCE, PipelineSource.vcenter_event.name()),
        lastVcenterEvent, r -> r.get() == null ? Double.NaN : r.get());
    this.undecodable = Counter.builder(Meters.METRICS_UNDECODABLE).register(registry);
  }

  private static Set<String> bounded() {
    return Collections.synchronizedSet(Collections.newSetFromMap(new LinkedHashMap<>() {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
        return size() > REMEMBERED_IDS;
      }
    }));
  }

  /** A settled impact: counted, and its duration and stun observed, the first time its migration is seen. */
  public void onImpact(MigrationImpact impact) {
    Migration m = impact.migration();
    underLoad.remove(m.id());
    if (!countedMigrations.add(m.id())) {
      return;
    }
    Tags tags = Tags.of(Meters.TAG_PROFILE, profile(m.vgpuProfile()), Meters.TAG_INITIATOR,
        String.valueOf(m.initiator()), Meters.TAG_RESULT, String.valueOf(m.state()));
    Counter.builder(Meters.MIGRATIONS).tags(tags).register(registry).increment();
    if (impact.failure() != null) {
      Counter.builder(Meters.MIGRATION_FAILURES).tags(Meters.TAG_PROFILE, profile(m.vgpuProfile()), Meters.TAG_CAUSE,
          impact.failure().cause().name(), Meters.TAG_UNDER_LOAD, String.valueOf(countedAlerts.contains(m.id())))
          .register(registry).increment();
    }
    if (impact.durationSeconds() != null) {
      DistributionSummary.builder(Meters.MIGRATION_DURATION).tags(tags).serviceLevelObjectives(DURATION_BUCKETS)
          .register(registry).record(impact.durationSeconds());
    }
    if (impact.stun() != null && impact.stun().seconds() != null) {
      DistributionSummary.builder(Meters.MIGRATION_STUN).tags(tags).serviceLevelObjectives(STUN_BUCKETS)
          .register(registry).record(impact.stun().seconds());
    }
  }

  /** An alert: counted at its first FIRING; the migration is under load until RESOLVED or its impact settles. */
  public void onAlert(MigrationAlert alert) {
    if (alert.state() == MigrationAlert.AlertState.FIRING) {
      if (countedAlerts.add(alert.migrationId())) {
        underLoad.add(alert.migrationId());
        Counter.builder(Meters.ALERTS).tags(Meters.TAG_PROFILE, profile(alert.vgpuProfile()), Meters.TAG_INITIATOR,
            String.valueOf(alert.initiator())).register(registry).increment();
      }
    } else {
      underLoad.remove(alert.migrationId());
    }
  }

  public void onDeadLetter(DeadLetter d) {
    Counter.builder(Meters.DEAD_LETTERS).tags(Meters.TAG_TOPIC, String.valueOf(d.sourceTopic()), Meters.TAG_STAGE,
        String.valueOf(d.stage())).register(registry).increment();
  }

  /**
   * A checkpoint, saved at least every heartbeat: it says the collector read its vCenter up to {@code savedAt}, so
   * the vCenter input is fresh even when the vCenter had nothing to tell.
   */
  public void onCheckpoint(VcenterCheckpoint c) {
    double saved = c.savedAt().toEpochMilli() / 1000.0;
    lastVcenterEvent.accumulateAndGet(saved, (a, b) -> a == null || b > a ? b : a);
    String vc = c.vcenterUuid();
    if (checkpoints.put(vc, c.savedAt()) == null) {
      registry.gauge(Meters.VCENTER_CHECKPOINT_AGE, Tags.of(Meters.TAG_VCENTER, vc), checkpoints,
          m -> (clock.millis() - m.get(vc).toEpochMilli()) / 1000.0);
    }
    // the guard's meters come from the checkpoints, which record what it holds: they go on aging when its collector
    // stops, when protections are held with nobody to release them
    if (c.guardDecisionsReadAt() != null || guarded.containsKey(vc)) {
      if (guarded.put(vc, c) == null) {
        registry.gauge(Meters.GUARD_PROTECTED, Tags.of(Meters.TAG_VCENTER, vc), guarded,
            m -> m.get(vc).enforcedProtections());
        registry.gauge(Meters.GUARD_DECISIONS_AGE, Tags.of(Meters.TAG_VCENTER, vc), guarded, m -> {
          Instant read = m.get(vc).guardDecisionsReadAt();
          return read == null ? Double.NaN : (clock.millis() - read.toEpochMilli()) / 1000.0;
        });
      }
    }
  }

  public void onVcenterEvent(VcenterEvent e) {
    double t = e.createdTime().toEpochMilli() / 1000.0;
    lastVcenterEvent.accumulateAndGet(t, (a, b) -> a == null || b > a ? b : a);
  }

  /** A record of one of the fed topics that did not decode: logged with where it is, counted, skipped. */
  public void onUndecodable(RecordDecodeException e) {
    undecodable.increment();
    LOG.warn("metrics feed skipped a record: {}", e.getMessage());
  }

  /** The topics this feeds on. */
  public static Set<String> topics() {
    return Set.of(Topics.MIGRATION_IMPACTS.name(), Topics.MIGRATION_ALERTS.name(), Topics.DEAD_LETTERS.name(),
        Topics.VCENTER_CHECKPOINTS.name(), Topics.VCENTER_EVENTS.name());
  }

  private static String profile(String p) {
    return p == null || p.isBlank() ? "none" : p;
  }
}
