package io.stunwatch.processor.node;

import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.view.VmSamples;
import java.time.Instant;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Merges each record into its VM's point of the second it was taken in. */
public final class HistoryUpdate<V> implements Processor<String, V, Void, Void> {
  private final Function<V, Instant> timeOf;
  private final BiFunction<VmSamples.Point, V, VmSamples.Point> merge;
  private final ProcessorConfig config;
  private SampleHistory history;

  public HistoryUpdate(ProcessorConfig config, Function<V, Instant> timeOf,
      BiFunction<VmSamples.Point, V, VmSamples.Point> merge) {
    this.config = config;
    this.timeOf = timeOf;
    this.merge = merge;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    history = new SampleHistory(context, config);
  }

  @Override
  public void process(Record<String, V> record) {
    history.update(record.key(), timeOf.apply(record.value()), p -> merge.apply(p, record.value()));
  }
}
