package io.stunwatch.processor.processors;

import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.processor.domain.StunModel;
import io.stunwatch.processor.readmodel.StoreNames;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;

/**
 * Turns each impact into its stun-model inputs
 * ({@link StunModel#inputs(MigrationImpact, java.util.function.Function)}),
 * each keyed by its group, with the vMotion link speed of the two hosts from the global host inventory.
 */
public final class ModelInputProcessor implements Processor<String, Object, String, StunModel.Input> {
  private ProcessorContext<String, StunModel.Input> context;
  private KeyValueStore<String, ValueAndTimestamp<HostInventoryEntry>> hosts;

  @Override
  public void init(ProcessorContext<String, StunModel.Input> context) {
    this.context = context;
    this.hosts = context.getStateStore(StoreNames.HOST_INVENTORY);
  }

  @Override
  public void process(Record<String, Object> record) {
    if (!(record.value() instanceof MigrationImpact impact)) {
      return;
    }
    for (StunModel.Input in : StunModel.inputs(impact, HostInventoryLookup.of(hosts))) {
      context.forward(new Record<>(in.key(), in, record.timestamp(), record.headers()));
    }
  }
}
