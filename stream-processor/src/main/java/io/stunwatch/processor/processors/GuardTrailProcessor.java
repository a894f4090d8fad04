package io.stunwatch.processor.processors;

import io.stunwatch.model.GuardAction;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.state.DeferredStores;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.processor.readmodel.StoreNames;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Keeps each VM's audit trail of the DRS guard ({@link GuardTrail}) from {@code stunwatch.guard-actions}, which the
 * vCenter collectors write, for {@code GET /api/guard}. The trail is keyed by the action's VM id, whatever the record's
 * key.
 */
public final class GuardTrailProcessor implements Processor<String, GuardAction, Void, Void> {

  /** The name it has in the topology, and writes its store under. */
  public static final String NAME = "guard-trail";

  private KeyValueStore<String, GuardTrail> trails;

  /** The store it writes: each VM's trail. */
  public static List<StoreBuilder<?>> stores() {
    return List.of(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.GUARD_TRAIL), Serdes.String(), JsonSerde.of(GuardTrail.class))));
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    trails = context.getStateStore(StoreNames.GUARD_TRAIL);
  }

  @Override
  public void process(Record<String, GuardAction> record) {
    GuardAction a = record.value();
    if (a == null) {
      return;
    }
    GuardTrail was = trails.get(a.vmId());
    GuardTrail now = (was == null ? new GuardTrail(a.vmId(), List.of()) : was).with(a);
    if (now != was) {
      trails.put(a.vmId(), now);
    }
  }
}
