package io.stunwatch.processor.node;

import io.stunwatch.processor.view.VmSamples;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Merges each record into its VM's point of the second it was taken in. */
public final class HistoryUpdate<V> implements Processor<String, V, Void, Void> {
  private final java.util.function.Function<V, java.time.Instant> timeOf;
  private final java.util.function.BiFunction<VmSamples.Point, V, VmSamples.Point> merge;
  private SampleHistory history;

  public HistoryUpdate(java.util.function.Function<V, java.time.Instant> timeOf,
      java.util.function.BiFunction<VmSamples.Point, V, VmSamples.Point> merge) {
    this.timeOf = timeOf;
    this.merge = merge;
  }

  @Override
  public void init(ProcessorContext<Void, Void> context) {
    history = new SampleHistory(context);
  }

  @Override
  public void process(Record<String, V> record) {
    history.update(record.key(), timeOf.apply(record.value()), p -> merge.apply(p, record.value()));
  }
}
