package io.stunwatch.processor.state;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.processor.internals.metrics.StreamsMetricsImpl;
import org.apache.kafka.streams.processor.internals.metrics.TaskMetrics;

/**
 * The task's own {@code dropped-records} sensor, which Streams' windowed aggregations record their drops in, so that
 * a processor that drops a record counts it in the same metric. Streams has no public API for it: this reaches into
 * its internals, which only this package may do.
 */
public final class DroppedRecords {

  private DroppedRecords() {
  }

  /** The sensor of {@code context}'s task, on the calling stream thread. */
  public static Sensor sensor(ProcessingContext context) {
    return TaskMetrics.droppedRecordsSensor(Thread.currentThread().getName(), context.taskId().toString(),
        (StreamsMetricsImpl) context.metrics());
  }
}
