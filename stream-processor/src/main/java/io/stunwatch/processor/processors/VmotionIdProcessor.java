package io.stunwatch.processor.processors;

import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.StoreNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
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
public final class VmotionIdProcessor implements Processor<String, Tracked.ById, String, VmInput> {

  private final Duration retention;
  private ProcessorContext<String, VmInput> context;
  private KeyValueStore<String, Tracked.VmotionId> ids;
  private long streamTime = Long.MIN_VALUE;

  public VmotionIdProcessor(Duration retention) {
    this.retention = retention;
  }

  /** The name it has in the topology, and writes its store under. */
  public static final String NAME = "vmotion-ids";

  /** The store it writes: each vMotion id's join. */
  public static List<StoreBuilder<?>> stores() {
    return List.of(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.VMOTION_IDS),
        Serdes.String(), JsonSerde.of(Tracked.VmotionId.class)));
  }

  @Override
  public void init(ProcessorContext<String, VmInput> context) {
    this.context = context;
    this.ids = context.getStateStore(StoreNames.VMOTION_IDS);
    context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME, now -> prune());
  }

  @Override
  public void process(Record<String, Tracked.ById> record) {
    streamTime = Math.max(streamTime, record.timestamp());
    Tracked.VmotionId was = ids.get(record.key());
    List<VmotionBandwidth> bandwidths = new ArrayList<>(was == null ? List.of() : was.bandwidths());
    String vmKey = was == null ? null : was.vmKey();
    List<VmotionBandwidth> send;
    if (record.value() instanceof Tracked.Bandwidth bw) {
      VmotionBandwidth b = bw.value();
      if (bandwidths.contains(b)) {
        return; // read before
      }
      bandwidths.removeIf(k -> Objects.equals(k.hostname(), b.hostname()));
      bandwidths.add(b);
      send = vmKey == null ? List.of() : List.of(b);
    } else {
      Tracked.Claim c = (Tracked.Claim) record.value(); // the only other kind
      if (c.vmKey().equals(vmKey)) {
        return; // known
      }
      vmKey = c.vmKey();
      send = bandwidths;
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
