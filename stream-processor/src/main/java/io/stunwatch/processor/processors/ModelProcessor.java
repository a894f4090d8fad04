package io.stunwatch.processor.processors;

import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.domain.StunModel;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.readmodel.StoreNames;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/** Updates one group of the stun-time model per input. */
public final class ModelProcessor implements Processor<String, StunModel.Input, String, Object> {
  /** The name it has in the topology, and writes its store under. */
  public static final String NAME = "stun-model";

  private ProcessorContext<String, Object> context;

  /** The store it writes: each model group's entry. */
  public static List<StoreBuilder<?>> stores() {
    return List.of(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.STUN_MODEL), Serdes.String(), JsonSerde.of(StunModelEntry.class))));
  }
  private KeyValueStore<String, StunModelEntry> model;

  @Override
  public void init(ProcessorContext<String, Object> context) {
    this.context = context;
    this.model = context.getStateStore(StoreNames.STUN_MODEL);
  }

  @Override
  public void process(Record<String, StunModel.Input> record) {
    StunModelEntry old = model.get(record.key());
    StunModelEntry next = StunModel.update(old, record.value());
    if (next != old) {
      model.put(record.key(), next);
      // Timestamped with the entry's own time, which never goes back for a key: the global table warns of (and
      // a versioned store would refuse) an update older than the one it holds.
      context.forward(record.withValue(next).withTimestamp(next.updatedAt().toEpochMilli()));
    }
  }
}
