package io.stunwatch.processor.node;

import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.view.StoreNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Joins a source host's precopy bandwidth (vmkernel.log, keyed by vMotion id: the line names no VM) to the VM whose
 * vmware.log names the same id ({@link Tracked.Claim}), whichever comes first, and sends it on under the VM's key.
 * Both inputs are keyed by vMotion id, so each id's join lives in one task, in {@link StoreNames#VMOTION_IDS}, which
 * this processor alone writes. An id is forgotten {@code retention} of event time after its newest record.
 */
public final class VmotionIdProcessor implements Processor<String, Object, String, VmotionBandwidth> {

  private final Duration retention;
  private ProcessorContext<String, VmotionBandwidth> context;
  private KeyValueStore<String, Tracked.VmotionId> ids;
  private long streamTime = Long.MIN_VALUE;

  VmotionIdProcessor(Duration retention) {
    this.retention = retention;
  }

  /** The processor with its store. */
  public static ProcessorSupplier<String, Object, String, VmotionBandwidth> supplier(Duration retention) {
    return new ProcessorSupplier<>() {
      @Override
      public Processor<String, Object, String, VmotionBandwidth> get() {
        return new VmotionIdProcessor(retention);
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return Set.of(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VMOTION_IDS),
            Serdes.String(), JsonSerde.of(Tracked.VmotionId.class)));
      }
    };
  }

  @Override
  public void init(ProcessorContext<String, VmotionBandwidth> context) {
    this.context = context;
    this.ids = context.getStateStore(StoreNames.VMOTION_IDS);
    context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME, now -> prune());
  }

  @Override
  public void process(Record<String, Object> record) {
    streamTime = Math.max(streamTime, record.timestamp());
    Tracked.VmotionId was = ids.get(record.key());
    List<VmotionBandwidth> bandwidths = new ArrayList<>(was == null ? List.of() : was.bandwidths());
    String vmKey = was == null ? null : was.vmKey();
    List<VmotionBandwidth> send;
    if (record.value() instanceof VmotionBandwidth b) {
      if (bandwidths.contains(b)) {
        return; // read before
      }
      bandwidths.removeIf(k -> Objects.equals(k.hostname(), b.hostname()));
      bandwidths.add(b);
      send = vmKey == null ? List.of() : List.of(b);
    } else if (record.value() instanceof Tracked.Claim c) {
      if (c.vmKey().equals(vmKey)) {
        return; // known
      }
      vmKey = c.vmKey();
      send = bandwidths;
    } else {
      throw new IllegalArgumentException("not a vMotion id record: " + record.value().getClass());
    }
    long millis = Math.max(was == null ? Long.MIN_VALUE : was.millis(), record.timestamp());
    ids.put(record.key(), new Tracked.VmotionId(bandwidths, vmKey, millis));
    for (VmotionBandwidth b : send) {
      context.forward(new Record<>(vmKey, b, record.timestamp()));
    }
  }

  private void prune() {
    if (streamTime == Long.MIN_VALUE) {
      return;
    }
    long cutoff = streamTime - retention.toMillis();
    List<String> old = new ArrayList<>();
    try (KeyValueIterator<String, Tracked.VmotionId> it = ids.all()) {
      while (it.hasNext()) {
        KeyValue<String, Tracked.VmotionId> kv = it.next();
        if (kv.value.millis() < cutoff) {
          old.add(kv.key);
        }
      }
    }
    old.forEach(ids::delete);
  }
}
