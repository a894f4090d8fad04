package io.stunwatch.api.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.stunwatch.metrics.Meters;
import io.stunwatch.metrics.PipelineSource;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.LoadSource;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.LiveReads;
import io.stunwatch.processor.readmodel.VmLive;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyWindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The per-VM gauges ({@link Meters#VM_GPU_UTILIZATION} and the rest) of the VMs whose partitions this instance
 * owns, read from its local state stores by {@link #refresh()}. Every VM is owned by exactly one instance, so
 * Prometheus sees each series once across a scaled-out site.
 *
 * <p>Each series is labelled with the VM's name and id, its host, cluster and vCenter, from the global inventory
 * store: names repeat across vCenters, ids do not, and a dashboard narrows the fleet by vCenter, cluster and host.
 * A VM's labels change when it moves, so its series count stays one per VM.
 *
 * <p>A figure that is unknown (nvidia-smi's {@code [N/A]}, no RDMA rate in the last {@link #RECENT_SECONDS}) has no
 * series at all, never a 0. A VM whose newest sample is older than {@link #STALE_SECONDS} drops out, so a VM that
 * was shut down or moved to another site does not stay on the dashboards with its last figures.
 */
public final class FleetGauges {

  /** How far back the per-second history is searched for an RDMA rate or a throughput reading. */
  static final long RECENT_SECONDS = 15;
  /** A VM whose newest GPU sample is older than this has no gauges. */
  static final long STALE_SECONDS = 300;

  private static final Logger LOG = LoggerFactory.getLogger(FleetGauges.class);
  private static final double MIB = 1024.0 * 1024.0;
  private static final String UNRESOLVED = "unresolved";

  private final KafkaStreams streams;
  private final Clock clock;
  private final MultiGauge gpu;
  private final MultiGauge fbUsed;
  private final MultiGauge fbTotal;
  private final MultiGauge rdma;
  private final MultiGauge throughput;
  private final AtomicReference<Double> newestSample = new AtomicReference<>();
  private final int maxVms;
  private final AtomicInteger omitted = new AtomicInteger();

  /**
   * @param maxVms the most VMs given per-VM series ({@code api.metrics.vm-series}): the first ones in VM-id order,
   *               the store's, so that the set is stable from one refresh to the next; 0 for none
   */
  public FleetGauges(KafkaStreams streams, MeterRegistry registry, Clock clock, int maxVms) {
    this.streams = streams;
    this.clock = clock;
    this.maxVms = maxVms;
    registry.gauge(Meters.VM_SERIES_OMITTED, Tags.empty(), omitted, AtomicInteger::get);
    this.gpu = MultiGauge.builder(Meters.VM_GPU_UTILIZATION).register(registry);
    this.fbUsed = MultiGauge.builder(Meters.VM_FB_USED).register(registry);
    this.fbTotal = MultiGauge.builder(Meters.VM_FB_TOTAL).register(registry);
    this.rdma = MultiGauge.builder(Meters.VM_RDMA).register(registry);
    this.throughput = MultiGauge.builder(Meters.VM_THROUGHPUT).register(registry);
    registry.gauge(Meters.LAST_EVENT, Tags.of(Meters.TAG_SOURCE, PipelineSource.gpu_sample.name()), newestSample,
        r -> r.get() == null ? Double.NaN : r.get());
  }

  /**
   * Reads the local stores and replaces every row. Blocking (RocksDB reads): call it off the event loop. While the
   * stores are not queryable (a rebalance) the rows stay as they were.
   */
  public void refresh() {
    List<MultiGauge.Row<?>> g = new ArrayList<>();
    List<MultiGauge.Row<?>> used = new ArrayList<>();
    List<MultiGauge.Row<?>> total = new ArrayList<>();
    List<MultiGauge.Row<?>> r = new ArrayList<>();
    List<MultiGauge.Row<?>> t = new ArrayList<>();
    Instant now = clock.instant();
    Instant newest = null;
    int kept = 0;
    int left = 0;
    try {
      ReadOnlyKeyValueStore<String, VmLive> live = streams.store(StoreQueryParameters.fromNameAndType(
          StoreNames.VM_LIVE, QueryableStoreTypes.keyValueStore()));
      ReadOnlyWindowStore<String, VmSamples.Block> seconds = streams.store(StoreQueryParameters.fromNameAndType(
          StoreNames.VM_SAMPLES, QueryableStoreTypes.windowStore()));
      Map<String, VmInventoryEntry> inventory = inventoryByVmId(streams.store(StoreQueryParameters.fromNameAndType(
          StoreNames.VM_INVENTORY, QueryableStoreTypes.<String, VmInventoryEntry>keyValueStore())));
      // A VM's guest view sorts right before its host's (LoadKeys): the host's is shown only without a fresh guest's.
      String freshGuest = null;
      try (KeyValueIterator<String, VmLive> it = live.all()) {
        while (it.hasNext()) {
          KeyValue<String, VmLive> kv = it.next();
          CurrentLoad load = kv.value.current();
          Instant latest = load == null ? null : load.latest();
          if (latest == null || latest.isBefore(now.minusSeconds(STALE_SECONDS))) {
            continue;
          }
          LoadSource source = LoadKeys.source(kv.key);
          if (source == LoadSource.HOST && LoadKeys.vmId(kv.key).equals(freshGuest)) {
            continue;
          }
          if (source == LoadSource.GUEST) {
            freshGuest = kv.key;
          }
          newest = newest == null || latest.isAfter(newest) ? latest : newest;
          if (kept >= maxVms) {
            left++;
            continue;
          }
          kept++;
          Tags tags = tags(load, inventory.get(load.vmId())).and(Meters.TAG_LOAD_SOURCE, source.tag());
          Double util = load.gpuUtilizationAvgPct();
          if (util != null) {
            g.add(MultiGauge.Row.of(tags, util));
          }
          Long usedMiB = load.fbUsedMiB();
          if (usedMiB != null) {
            used.add(MultiGauge.Row.of(tags, usedMiB * MIB));
          }
          Long totalMiB = load.fbTotalMiB();
          if (totalMiB != null) {
            total.add(MultiGauge.Row.of(tags, totalMiB * MIB));
          }
          Double[] recent = recentRates(seconds, kv.key, latest, kv.value.block());
          if (recent[0] != null) {
            r.add(MultiGauge.Row.of(tags, recent[0]));
          }
          if (recent[1] != null) {
            t.add(MultiGauge.Row.of(tags, recent[1]));
          }
        }
      }
    } catch (InvalidStateStoreException e) {
      LOG.debug("stores not queryable ({}); per-VM gauges kept as they were", e.getMessage());
      return;
    }
    gpu.register(g, true);
    fbUsed.register(used, true);
    fbTotal.register(total, true);
    rdma.register(r, true);
    throughput.register(t, true);
    if (newest != null) {
      newestSample.set(newest.toEpochMilli() / 1000.0);
    }
    omitted.set(left);
  }

  /** The labels of a VM's series: from its inventory entry where there is one, else what its samples say. */
  static Tags tags(CurrentLoad load, VmInventoryEntry vm) {
    String name = vm != null && vm.name() != null ? vm.name() : load.vmName();
    String host = vm != null && vm.host() != null && vm.host().name() != null ? vm.host().name() : load.host();
    String cluster = vm != null && vm.cluster() != null ? vm.cluster().name() : null;
    return Tags.of(Meters.TAG_VM, name != null ? name : load.vmId(), Meters.TAG_VM_ID, load.vmId(), Meters.TAG_HOST,
        host != null ? host : UNRESOLVED, Meters.TAG_CLUSTER, cluster != null ? cluster : UNRESOLVED,
        Meters.TAG_VCENTER, vm != null && vm.vcenterUuid() != null ? vm.vcenterUuid() : UNRESOLVED);
  }

  /** The inventory by VM id; of two entries for one VM (moved across vCenters), the newer. */
  static Map<String, VmInventoryEntry> inventoryByVmId(ReadOnlyKeyValueStore<String, VmInventoryEntry> store) {
    Map<String, VmInventoryEntry> out = new HashMap<>();
    try (KeyValueIterator<String, VmInventoryEntry> it = store.all()) {
      while (it.hasNext()) {
        VmInventoryEntry v = it.next().value;
        if (v != null && v.biosUuid() != null) {
          out.merge(v.biosUuid(), v, (a, b) -> a.observedAt() != null && b.observedAt() != null
              && b.observedAt().isAfter(a.observedAt()) ? b : a);
        }
      }
    }
    return out;
  }

  /**
   * {@code [rdma bytes/s, throughput]} of the newest second up to {@code latest} that had each; null when none. The
   * VM's open block is its live state's, the others are in the store.
   */
  private static Double[] recentRates(ReadOnlyWindowStore<String, VmSamples.Block> seconds, String vmId,
      Instant latest, VmSamples.Block open) {
    Double[] out = new Double[2];
    long first = latest.getEpochSecond() - RECENT_SECONDS;
    long last = latest.getEpochSecond();
    long from = VmSamples.Block.startOf(first) * 1000;
    List<KeyValue<Long, VmSamples.Block>> blocks;
    try (WindowStoreIterator<VmSamples.Block> it = seconds.fetch(vmId, Instant.ofEpochMilli(from), latest)) {
      blocks = LiveReads.merged(it, open == null ? 0 : open.startSecond() * 1000, open, from, latest.toEpochMilli());
    }
    for (int b = blocks.size() - 1; b >= 0 && (out[0] == null || out[1] == null); b--) {
      List<VmSamples.Point> points = blocks.get(b).value.points();
      for (int i = points.size() - 1; i >= 0 && (out[0] == null || out[1] == null); i--) {
        VmSamples.Point p = points.get(i);
        if (p.epochSecond() < first || p.epochSecond() > last) {
          continue;
        }
        if (out[0] == null && p.rdmaBytesPerSec() != null) {
          out[0] = p.rdmaBytesPerSec();
        }
        if (out[1] == null && p.throughput() != null) {
          out[1] = p.throughput();
        }
      }
    }
    return out;
  }
}
