package io.stunwatch.processor.processors;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.ExporterGpuSample;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostGpuReading;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.StoreNames;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns GPU readings that name no VM id into the VM's GPU samples, keyed by VM id: the ESXi host's
 * {@code nvidia-smi vgpu -q} readings ({@link HostVgpuSample}, by host and VM name, as {@link LoadSource#HOST}) and
 * existing exporters' ({@link ExporterGpuSample}, by a mapped VM id or name, or the guest's host name, as
 * {@link LoadSource#GUEST}). Names are resolved through the inventory ({@link InventoryIndex#resolve}) at the time
 * the reading is processed, by the VM's name rather than by where the inventory places it now, so a reading taken on
 * the host a VM has since left still finds it, replayed or live.
 *
 * <p>A reading no VM or several VMs answer to is dropped: counted in the task's {@code unresolved-gpu-samples}
 * metric and logged with its names and offset (ten lines a minute at most). It also keeps each host GPU's scheduler
 * policy ({@link StoreNames#HOST_GPUS}), which only the host's readings tell.
 */
public final class IdentityResolver implements Processor<String, HostGpuReading, String, VmInput> {

  private static final Logger LOG = LoggerFactory.getLogger(IdentityResolver.class);
  /** A host GPU's entry is written again after this long even when nothing changed, so that its "seen" moves on. */
  static final Duration SEEN_REFRESH = Duration.ofMinutes(1);

  /** The name it has in the topology, and writes its store under. */
  public static final String NAME = "resolve-gpu-readings";

  private final InventoryIndex index;

  /** The store it writes: each host GPU's last known vGPU and policy, cached, as it is read per reading. */
  public static List<StoreBuilder<?>> stores() {
    return List.of(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.HOST_GPUS),
        Serdes.String(), JsonSerde.of(HostGpu.class)).withCachingEnabled());
  }
  private final LogLimiter log;
  /** What this processor last wrote per host GPU: one store write a minute per GPU, not one per reading. */
  private final Map<String, HostGpu> held = new HashMap<>();
  private ProcessorContext<String, VmInput> context;
  private ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private KeyValueStore<String, HostGpu> hostGpus;
  private Sensor unresolved;

  public IdentityResolver(InventoryIndex index, Clock clock) {
    this.index = index;
    this.log = new LogLimiter(10);
  }

  @Override
  public void init(ProcessorContext<String, VmInput> context) {
    this.context = context;
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.hostGpus = context.getStateStore(StoreNames.HOST_GPUS);
    this.held.clear();
    this.unresolved = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
        "unresolved-gpu-samples", Sensor.RecordingLevel.INFO);
  }

  @Override
  public void process(Record<String, HostGpuReading> record) {
    if (record.value() instanceof HostVgpuSample h) {
      keep(h);
      String vmId = h.vmId() != null ? h.vmId() : resolved(record, h.hostname(), h.vmName(), null);
      if (vmId != null) {
        context.forward(record.withKey(vmId).withValue(fromHost(vmId, h)));
      }
    } else if (record.value() instanceof ExporterGpuSample e) {
      String vmId = e.vmId() != null ? e.vmId() : resolved(record, null, e.vmName(), e.guestHostName());
      if (vmId != null) {
        context.forward(record.withKey(vmId).withValue(fromExporter(vmId, e)));
      }
    }
  }

  private String resolved(Record<String, HostGpuReading> record, String host, String vmName, String guestHostName) {
    InventoryIndex.Resolution r = index.resolve(host, vmName, guestHostName, inventory);
    if (r.vmId() != null) {
      return r.vmId();
    }
    unresolved.record();
    String more = log.admit();
    if (more != null) {
      var meta = context.recordMetadata();
      LOG.warn("Dropped a GPU reading keyed {} ({} partition {} offset {}): {} (host {}, VM name {}, guest host name "
              + "{}){}", record.key(), meta.map(m -> m.topic()).orElse("?"), meta.map(m -> m.partition()).orElse(-1),
          meta.map(m -> m.offset()).orElse(-1L), r.outcome() == InventoryIndex.Outcome.AMBIGUOUS
              ? "several VMs of the inventory have these names" : "no VM of the inventory has these names",
          host, vmName, guestHostName, more);
    }
    return null;
  }

  private void keep(HostVgpuSample h) {
    if (h.gpuPciBusId() == null) {
      return;
    }
    String key = HostGpu.key(h.hostname(), h.gpuPciBusId());
    HostGpu before = held.get(key);
    if (before == null) {
      before = hostGpus.get(key);
    }
    HostGpu now = new HostGpu(h.hostname(), h.gpuPciBusId(), h.gpuName(), h.schedulerPolicy(), h.timestamp());
    if (before != null && !h.timestamp().isAfter(before.seenAt())) {
      return; // a late reading: the newer one stands
    }
    if (before == null || !before.withSeenAt(now.seenAt()).equals(now)
        || !now.seenAt().isBefore(before.seenAt().plus(SEEN_REFRESH))) {
      hostGpus.put(key, now);
      held.put(key, now);
    }
  }

  /** The host's reading of a vGPU as a GPU sample of its VM. */
  static GpuSample fromHost(String vmId, HostVgpuSample h) {
    return new GpuSample(vmId, h.hostname(), h.timestamp(), busNumber(h.gpuPciBusId()),
        h.vgpuInstanceId() == null ? null : "vgpu:" + h.vgpuInstanceId(), h.vgpuType(), h.gpuPciBusId(),
        h.utilizationGpuPct(), h.utilizationMemoryPct(), h.fbUsedMiB(), h.fbTotalMiB(), null, null, null, null,
        h.vgpuProfile(), LoadSource.HOST, null);
  }

  /** An exporter's reading as a GPU sample of its VM. */
  static GpuSample fromExporter(String vmId, ExporterGpuSample e) {
    return new GpuSample(vmId, e.guestHostName(), e.timestamp(), e.gpuIndex(), e.gpuUuid(), e.name(), null,
        e.utilizationGpuPct(), e.utilizationMemoryPct(), e.memoryUsedMiB(), e.memoryTotalMiB(), null, null, null, null,
        e.name() == null ? null : VgpuProfile.parse(e.name()).orElse(null), LoadSource.GUEST, e.migInstanceId());
  }

  /**
   * The bus number of a PCI bus id ({@code 00000000:3B:00.0} is 0x3B), folded so that two GPUs of a host rarely
   * share the bit a VM's per-second point counts framebuffer under ({@link GpuSample#maskBit}).
   */
  static int busNumber(String pciBusId) {
    if (pciBusId != null) {
      String[] parts = pciBusId.split(":");
      if (parts.length >= 2) {
        try {
          int bus = Integer.parseInt(parts[parts.length - 2], 16);
          return (bus ^ (bus >>> 5)) & 31;
        } catch (NumberFormatException e) {
          // not a bus id: index 0
        }
      }
    }
    return 0;
  }

  @Override
  public void close() {
    context.metrics().removeSensor(unresolved);
  }
}
