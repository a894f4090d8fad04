package io.stunwatch.processor.support;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * The state stores of one topology, each with the one processor that writes it. A processor declares the stores it
 * writes ({@link #own}, with the builders its class makes) and those of others that it reads ({@link #supplier});
 * its supplier then connects it to exactly those, as Kafka's {@code ConnectedStoreProvider} does, and the topology
 * itself adds no store. Readers and the writer share one builder, which is how Streams connects a store to several
 * processors.
 */
public final class StoreRegistry {

  private final Map<String, StoreBuilder<?>> builders = new LinkedHashMap<>();
  private final Map<String, String> writers = new LinkedHashMap<>();

  /**
   * Declares that the processor named {@code writer} writes these stores.
   *
   * @throws IllegalStateException when another processor already writes one of them
   */
  public void own(String writer, List<StoreBuilder<?>> stores) {
    for (StoreBuilder<?> b : stores) {
      String was = writers.putIfAbsent(b.name(), writer);
      if (was != null) {
        throw new IllegalStateException("store " + b.name() + " would have two writers: " + was + " and " + writer);
      }
      builders.put(b.name(), b);
    }
  }

  /**
   * The supplier of the processor named {@code writer}, connected to the stores it declared with {@link #own} and to
   * those it {@code reads}, which other processors must already have declared.
   */
  public <KI, VI, KO, VO> ProcessorSupplier<KI, VI, KO, VO> supplier(String writer,
      Supplier<Processor<KI, VI, KO, VO>> processor, String... reads) {
    Set<StoreBuilder<?>> connected = new LinkedHashSet<>();
    writers.forEach((store, w) -> {
      if (w.equals(writer)) {
        connected.add(builders.get(store));
      }
    });
    for (String r : reads) {
      StoreBuilder<?> b = builders.get(r);
      if (b == null) {
        throw new IllegalStateException(writer + " reads store " + r + ", which no processor declared it writes");
      }
      connected.add(b);
    }
    Set<StoreBuilder<?>> stores = Collections.unmodifiableSet(connected);
    return new ProcessorSupplier<>() {
      @Override
      public Processor<KI, VI, KO, VO> get() {
        return processor.get();
      }

      @Override
      public Set<StoreBuilder<?>> stores() {
        return stores;
      }
    };
  }

  /** Each store's writer, by store name, in the order declared. */
  public Map<String, String> writers() {
    return Collections.unmodifiableMap(writers);
  }
}
