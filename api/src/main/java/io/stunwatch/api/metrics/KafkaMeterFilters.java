package io.stunwatch.api.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.MeterFilter;
import java.util.ArrayList;
import java.util.List;

/**
 * What Kafka Streams' metrics need before a Prometheus registry takes them. Streams names a state store's metrics
 * alike whatever the store's kind, but tags the store by kind: {@code rocksdb.state.id},
 * {@code rocksdb.window.state.id}, {@code in.memory.window.state.id} and so on. Prometheus takes one set of tag keys
 * per name, so the first kind registered would win and the others' meters be refused (with a WARN). Store names are
 * unique within an application, so one tag key, {@value #STORE_TAG}, serves them all, with the kind beside it in
 * {@value #KIND_TAG}.
 */
public final class KafkaMeterFilters {

  /** The tag every state store's metrics carry their store name under. */
  public static final String STORE_TAG = "state.id";

  /** The tag with the store's kind as Streams named it: {@code rocksdb}, {@code rocksdb.window}, ... */
  public static final String KIND_TAG = "store.kind";

  private static final String STATE_METERS = "kafka.stream.state";

  private KafkaMeterFilters() {
  }

  /** The filters to configure on a registry before Streams' metrics are bound to it. */
  public static List<MeterFilter> all() {
    return List.of(new MeterFilter() {
      @Override
      public Meter.Id map(Meter.Id id) {
        if (!id.getName().startsWith(STATE_METERS)) {
          return id;
        }
        List<Tag> tags = new ArrayList<>();
        boolean renamed = false;
        for (Tag t : id.getTagsAsIterable()) {
          if (t.getKey().endsWith("." + STORE_TAG)) {
            // the kind stays a tag's value: a global store is measured in two kinds under one name
            tags.add(Tag.of(STORE_TAG, t.getValue()));
            tags.add(Tag.of(KIND_TAG, t.getKey().substring(0, t.getKey().length() - STORE_TAG.length() - 1)));
            renamed = true;
          } else {
            tags.add(t);
          }
        }
        return renamed ? id.replaceTags(tags) : id;
      }
    });
  }
}
