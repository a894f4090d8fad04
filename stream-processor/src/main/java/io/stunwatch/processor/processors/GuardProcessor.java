package io.stunwatch.processor.processors;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.readmodel.ForecastInputs;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.Forecasts;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmPlacement;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * The DRS guard's decisions ({@link GuardDecision}), made where each VM's load is known: at each of its GPU readings,
 * after the history has recorded it.
 *
 * <p>A VM is protected when its load over the alert window that ends a second before the reading crosses a threshold
 * of the migration alert ({@link UnderLoad}, the same rule) and the p95 of its forecast stun is over
 * {@code guard.max-stun}. A protected VM is said again (HOLD) every {@code guard.hold-every} of its readings, and
 * released after {@code guard.release-after} of readings that are not: under load for the last time then, or with a
 * forecast under the limit. A reading whose load is unknown (no samples in the window) neither holds nor releases.
 *
 * <p>Every decision is a function of the VM's readings and their event time, never of the wall clock or of how the
 * readings interleave with other VMs': the same readings live, replayed or caught up give the same decisions. A
 * reading older than the VM's newest changes nothing of a protected VM. Whether a decision is still worth applying
 * when it arrives (a replay of last month's readings must not touch today's cluster) is for the collector that
 * applies it to judge against its own clock.
 */
public final class GuardProcessor implements Processor<String, VmInput, String, Object> {

  private final ProcessorConfig config;
  private final GuardConfig guard;
  private final InventoryIndex index;
  private ProcessorContext<String, Object> context;
  private SampleHistory samples;
  /** Each load key's newest seconds, refreshed at each of its readings: what a decision reads, decoding nothing. */
  private final Map<String, RecentSeconds> recent = new HashMap<>();
  private final int recentSeconds;
  private KeyValueStore<String, GuardState> state;
  private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts;
  private KeyValueStore<String, ValueAndTimestamp<StunModelEntry>> model;

  public GuardProcessor(ProcessorConfig config, InventoryIndex index) {
    this.config = config;
    this.guard = config.guard();
    this.index = index;
    this.recentSeconds = (int) config.alertWindow().toSeconds() + 2;
  }

  /** The name it has in the topology, and writes its stores under. */
  public static final String NAME = "drs-guard";

  /**
   * The store it writes: each VM's guard state, deferred (written once per key and commit), as it is per reading,
   * and kept as objects after the commit (up to {@link #KEPT_STATES}), as it is read at each reading too.
   */
  public static List<StoreBuilder<?>> stores() {
    return List.of(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.GUARD_STATE), Serdes.String(), JsonSerde.of(GuardState.class)), KEPT_STATES));
  }

  /** How many VMs' guard states are kept decoded: every protected VM of an instance, at any fleet size planned. */
  static final int KEPT_STATES = 100_000;

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.samples = new SampleHistory(context);
    this.state = context.getStateStore(StoreNames.GUARD_STATE);
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.hosts = context.getStateStore(StoreNames.HOST_INVENTORY);
    this.model = context.getStateStore(StoreNames.STUN_MODEL_GLOBAL);
    recent.clear(); // after a restore: filled again from the history
  }

  @Override
  public void process(Record<String, VmInput> record) {
    VmInput v = record.value();
    // Each reading changed one point of the history: the one the guard holds is put back.
    if (v instanceof GpuSample s) {
      refresh(LoadKeys.of(record.key(), s.loadSource()), s.timestamp());
      decide(record.key(), s, record.timestamp()); // the guard decides on GPU load alone
    } else if (v instanceof RdmaCounterSample s) {
      refresh(record.key(), s.timestamp());
    } else if (v instanceof ThroughputSample s) {
      refresh(record.key(), s.timestamp());
    }
  }

  private void refresh(String key, Instant at) {
    long second = at.getEpochSecond();
    RecentSeconds r = recent.get(key);
    if (r == null) {
      recent(key, second);
    } else {
      r.update(second, samples.point(key, second));
    }
  }

  /** The key's newest seconds, filled from the history when the guard sees the key for the first time. */
  private RecentSeconds recent(String key, long second) {
    RecentSeconds r = recent.get(key);
    if (r == null) {
      r = new RecentSeconds(recentSeconds);
      r.fill(second, (from, to) -> samples.points(key, from, to));
      recent.put(key, r);
    }
    return r;
  }

  /** The VM's history of {@code [from, to]} as {@link SampleHistory#range} reads it, from what the guard holds. */
  private VmSamples range(String vmId, Instant from, Instant to) {
    return SampleHistory.combined(points(vmId, from, to),
        () -> points(LoadKeys.of(vmId, LoadSource.HOST), from, to));
  }

  private List<VmSamples.Point> points(String key, Instant from, Instant to) {
    RecentSeconds r = recent(key, to.getEpochSecond());
    return r.covers(from.getEpochSecond()) ? r.points(from.getEpochSecond(), to.getEpochSecond())
        : samples.points(key, from, to);
  }

  private void decide(String vmId, GpuSample s, long timestamp) {
    Instant at = s.timestamp();
    GuardState was = state.get(vmId);
    if (was != null && !at.isAfter(was.lastSeen())) {
      return; // a late reading, or another GPU of the same second: the VM's newest reading decided
    }
    Instant to = at.minus(MigrationRanges.ALERT_WINDOW_END);
    Instant from = at.minus(config.alertWindow());
    VmSamples history = range(vmId, from, to);
    VmSamples.Load load = history.load(from, to);
    if (!UnderLoad.known(load)) {
      if (was != null) {
        state.put(vmId, was.seen(at));
      }
      return;
    }
    List<MigrationAlert.Reason> reasons = UnderLoad.reasons(load, config);
    StunForecast forecast = reasons.isEmpty() ? null : forecast(vmId, s, load);
    boolean busy = !reasons.isEmpty() && forecast != null && forecast.p95Seconds() != null
        && forecast.p95Seconds() > guard.maxStun().toMillis() / 1000.0;
    MigrationAlert.Load figures = UnderLoad.figures(load, history, config);
    if (was == null) {
      if (busy) {
        GuardDecision d = decision(vmId, GuardDecision.Action.PROTECT, reasons, figures, forecast, at, at);
        state.put(vmId, new GuardState(vmId, at, at, at, at, d));
        context.forward(new Record<>(vmId, d, timestamp));
      }
      return;
    }
    if (busy) {
      if (!at.isBefore(was.lastSaid().plus(guard.holdEvery()))) {
        GuardDecision d = decision(vmId, GuardDecision.Action.HOLD, reasons, figures, forecast, was.since(), at);
        state.put(vmId, new GuardState(vmId, was.since(), at, at, at, d));
        context.forward(new Record<>(vmId, d, timestamp));
      } else {
        state.put(vmId, new GuardState(vmId, was.since(), at, was.lastSaid(), at, was.decision()));
      }
    } else if (!Duration.between(was.lastBusy(), at).minus(guard.releaseAfter()).isNegative()) {
      state.delete(vmId);
      context.forward(new Record<>(vmId, decision(vmId, GuardDecision.Action.RELEASE, reasons, figures, forecast,
          was.since(), at), timestamp));
    } else {
      state.put(vmId, was.seen(at));
    }
  }

  private GuardDecision decision(String vmId, GuardDecision.Action action, List<MigrationAlert.Reason> reasons,
      MigrationAlert.Load load, StunForecast forecast, Instant since, Instant at) {
    return new GuardDecision(vmId, action, reasons, load, forecast, guard.maxStun().toMillis() / 1000.0, since, at);
  }

  /**
   * The forecast of moving the VM now, to no host in particular: as the alert's, from the site's stuns of its
   * profile, else VMware's figure for its vCenter's version; null when its framebuffer use is unknown.
   */
  private StunForecast forecast(String vmId, GpuSample s, VmSamples.Load load) {
    if (load.fbUsedMiB() == null) {
      return null;
    }
    VmPlacement placed = index.get(vmId, inventory);
    Forecasts.Query q = ForecastInputs.query(s.vgpuProfile() == null ? null : s.vgpuProfile().name(),
        load.fbUsedMiB() / 1024.0, placed == null ? null : placed.vcenterUuid(),
        placed == null ? null : placed.hostRef(), null, HostInventoryLookup.directory(hosts));
    return Forecasts.forecast(q, k -> {
      ValueAndTimestamp<StunModelEntry> v = model.get(k);
      return v == null ? null : v.value();
    });
  }
}
