package io.stunwatch.processor.processors;

import io.stunwatch.model.GpuSample;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VmInput;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.state.StoreCodec;
import io.stunwatch.processor.readmodel.LoadKeySerde;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.ValueCodecs;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowBytesStoreSupplier;

/**
 * Records every reading of a VM: its GPU samples ({@link GpuLoadRecorder}: the current load, the load windows, the
 * utilization day), its RDMA counters ({@link RdmaRecorder}), its training throughput, and each of them in its
 * per-second history. It is the only writer of those stores. Each kind cuts the history behind its own newest
 * reading ({@link SampleHistory}): each kind comes on its own partition, and a throughput log may run hours ahead of
 * the GPU readings it goes with, which must not then be dropped as late.
 *
 * <p>Then it sends the reading on, unchanged: what comes after (the DRS guard, the migrations' state machine) reads
 * the history, and finds the reading in it. The order is this processor's doing, not the graph's.
 */
public final class VmReadingsProcessor implements Processor<String, VmInput, String, VmInput> {

  private final ProcessorConfig config;
  private final GpuLoadRecorder gpu;
  private final RdmaRecorder rdma = new RdmaRecorder();
  private final LiveStates lives = new LiveStates();
  private ProcessorContext<String, VmInput> context;
  private SampleHistory throughput;

  /** The name it has in the topology, and writes its stores under. */
  public static final String NAME = "vm-readings";

  /**
   * The stores it writes. Each VM's live state ({@link StoreNames#VM_LIVE}) is a deferred store (written once per key
   * and commit): it is written on every reading, and holds the open window of each window store and the open block
   * of the history, which get a record when it closes. The windows are timestamped window stores, the format Streams'
   * windowed aggregation uses, so that state and changelogs kept by a site stay readable. Each VM keeps
   * {@code process.window-retention} of the 10 s and 1 min windows behind its own newest ({@link GpuLoadRecorder});
   * the stores keep {@link SampleHistory#VM_SKEW} more, so that a VM behind another of its task keeps its windows, as
   * the per-second history does. The current load's and the RDMA counters' former stores stay, to be read once per VM
   * and emptied ({@link LiveStates}).
   */
  public static List<StoreBuilder<?>> stores(ProcessorConfig config) {
    Duration loadWindows = config.windowRetention().plus(SampleHistory.VM_SKEW);
    return List.of(
        DeferredStores.window(Stores.windowStoreBuilder(historyStore(config), Serdes.String(), ValueCodecs.BLOCK)),
        DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VM_LIVE),
            LoadKeySerde.INSTANCE, ValueCodecs.VM_LIVE), KEPT_LIVE),
        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VM_LOAD_CURRENT), Serdes.String(),
            ValueCodecs.CURRENT_LOAD),
        windowStore(StoreNames.VM_LOAD_10S, Duration.ofSeconds(10), loadWindows, ValueCodecs.LOAD_WINDOW),
        windowStore(StoreNames.VM_LOAD_1M, Duration.ofMinutes(1), loadWindows, ValueCodecs.LOAD_WINDOW),
        windowStore(StoreNames.VM_LOAD_1H, Duration.ofHours(1), StoreNames.VM_LOAD_1H_RETENTION,
            ValueCodecs.LOAD_WINDOW),
        windowStore(StoreNames.UTILIZATION_DAILY, Duration.ofDays(1), config.utilizationRetention(),
            ValueCodecs.UTILIZATION_DAY),
        Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.RDMA_LAST), Serdes.String(),
            RdmaRecorder.RDMA_LAST));
  }

  /**
   * How many VMs' live states {@link StoreNames#VM_LIVE} keeps decoded after their commit: the guard and the API read
   * them at every reading and request, and they are the objects this processor holds anyway ({@link LiveStates}).
   */
  static final int KEPT_LIVE = 1_000_000;

  /**
   * The per-second history's store, as {@code process.sample-store} says. On the heap by default: it is the store
   * written most, its blocks expire within the hour, and in RocksDB each block cost a write into fresh memtable memory
   * and every half retention a new segment (a RocksDB instance opened, with its files synced), in every task. Each VM
   * keeps its own last {@link SampleHistory#keep} behind its newest block; the store keeps
   * {@link SampleHistory#VM_SKEW} more, so that a VM behind another of its task (a replay one VM after another, a
   * host's readings a hop behind) keeps its history.
   */
  static WindowBytesStoreSupplier historyStore(ProcessorConfig config) {
    Duration retention = SampleHistory.keep(config).plus(SampleHistory.VM_SKEW);
    Duration size = Duration.ofSeconds(VmSamples.Block.SECONDS);
    return switch (config.sampleStore()) {
      case MEMORY -> Stores.inMemoryWindowStore(StoreNames.VM_SAMPLES, retention, size, false);
      case ROCKSDB -> Stores.persistentWindowStore(StoreNames.VM_SAMPLES, retention, size, false);
    };
  }

  private static <V> StoreBuilder<?> windowStore(String name, Duration size, Duration retention,
      StoreCodec<V> codec) {
    return DeferredStores.timestampedWindow(Stores.timestampedWindowStoreBuilder(
        Stores.persistentTimestampedWindowStore(name, retention, size, false), Serdes.String(), codec));
  }

  public VmReadingsProcessor(ProcessorConfig config, InventoryIndex index, Clock clock) {
    this.config = config;
    this.gpu = new GpuLoadRecorder(config, index, clock);
  }

  @Override
  public void init(ProcessorContext<String, VmInput> context) {
    this.context = context;
    lives.init(context);
    gpu.init(context, new SampleHistory(context, config, lives), lives);
    rdma.init(new SampleHistory(context, config, lives), lives);
    throughput = new SampleHistory(context, config, lives);
  }

  @Override
  public void process(Record<String, VmInput> record) {
    VmInput v = record.value();
    if (v instanceof GpuSample s) {
      gpu.record(record.key(), s, record.timestamp());
    } else if (v instanceof RdmaCounterSample s) {
      rdma.record(record.key(), s);
    } else if (v instanceof ThroughputSample s) {
      throughput.update(record.key(), s.timestamp(), p -> VmSamples.withThroughput(p, s.scope(), s.value()));
    } else {
      throw new IllegalArgumentException("not a reading: " + v.getClass().getSimpleName());
    }
    context.forward(record);
  }

  @Override
  public void close() {
    gpu.close();
  }
}
