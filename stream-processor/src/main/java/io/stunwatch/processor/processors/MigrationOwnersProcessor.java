package io.stunwatch.processor.processors;

import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.processor.readmodel.MigrationOwner;
import io.stunwatch.processor.readmodel.StoreNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Keeps, by migration id, the key of the VM whose partition holds each migration ({@link StoreNames#MIGRATION_OWNERS}):
 * a migration's id names no VM, and this index, partitioned by the id, is how the API routes
 * {@code GET /api/migrations/{id}} to the one instance that holds it. A migration is forgotten
 * {@code process.history-retention} of stream time after its start, as the migrations' own stores forget it.
 */
public final class MigrationOwnersProcessor implements Processor<String, MigrationOwner, Void, Void> {

  /** The name it has in the topology, and writes its store under. */
  public static final String NAME = "migration-owners";

  private final Duration retention;
  private ProcessorContext<Void, Void> context;
  private KeyValueStore<String, MigrationOwner> owners;

  public MigrationOwnersProcessor(Duration retention) {
    this.retention = retention;
  }

  /** The store it writes: written once per migration, iterated hourly to forget old ones. */
  public static List<StoreBuilder<?>> stores() {
    return List.of(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(StoreNames.MIGRATION_OWNERS),
        Serdes.String(), JsonSerde.of(MigrationOwner.class)));
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    this.context = context;
    this.owners = context.getStateStore(StoreNames.MIGRATION_OWNERS);
    context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME, now -> forget());
  }

  @Override
  public void process(Record<String, MigrationOwner> record) {
    if (owners.get(record.key()) == null) {
      owners.put(record.key(), record.value()); // a migration's VM never changes: its chain goes under one key
    }
  }

  private void forget() {
    long streamTime = context.currentStreamTimeMs();
    if (streamTime < 0) {
      return;
    }
    long cutoff = streamTime - retention.toMillis();
    List<String> old = new ArrayList<>();
    try (KeyValueIterator<String, MigrationOwner> it = owners.all()) {
      while (it.hasNext()) {
        KeyValue<String, MigrationOwner> kv = it.next();
        if (kv.value.startMillis() < cutoff) {
          old.add(kv.key);
        }
      }
    }
    old.forEach(owners::delete);
  }
}
