package io.stunwatch.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.TwoWayTable;
import io.vertx.core.buffer.Buffer;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

/**
 * The JSON of immutable values, kept by instance in a {@link TwoWayTable}, and JSON arrays assembled from it.
 *
 * <p>The processor's migration-summary codec returns the same instance for the same stored bytes (it interns), so
 * a list that Grafana asks for again and again (every panel, every refresh) is copied, not rendered: rendering a
 * day's annotations with Jackson took most of a request. A value that changes is a new instance, so an entry is
 * never stale; a value from elsewhere (another instance's answer) is rendered each time, which is merely slower.
 *
 * @param <T> the type of the cached instances
 */
final class JsonFragments<T> {

  private record Entry(Object key, byte[] json) {
  }

  private final ObjectMapper json = Json.mapper();
  private final Function<T, ?> view;
  private final TwoWayTable<Entry> table;

  /**
   * @param view  what is rendered for an instance (the instance itself, or a representation of it)
   * @param slots the table size, a power of two
   */
  JsonFragments(Function<T, ?> view, int slots) {
    this.view = view;
    this.table = new TwoWayTable<>(slots);
  }

  /** The JSON of {@code view(value)}, from the table when this very instance was rendered before. */
  byte[] of(T value) {
    int hash = System.identityHashCode(value);
    Entry e = table.find(hash, x -> x.key() == value);
    if (e != null) {
      return e.json();
    }
    try {
      byte[] rendered = json.writeValueAsBytes(view.apply(value));
      table.put(hash, new Entry(value, rendered));
      return rendered;
    } catch (JsonProcessingException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  /** The JSON array of {@code values}, as {@link ObjectMapper#writeValueAsBytes} would write the list. */
  Buffer array(List<T> values) {
    byte[][] parts = new byte[values.size()][];
    int size = 2 + Math.max(0, values.size() - 1);
    for (int i = 0; i < parts.length; i++) {
      parts[i] = of(values.get(i));
      size += parts[i].length;
    }
    // One array, not a composite of the fragments: Netty's copy of a composite into its direct buffer first merged
    // it into a new heap buffer (profiled), and building a composite of two thousand parts cost as much again.
    Buffer out = Buffer.buffer(size).appendByte((byte) '[');
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      out.appendBytes(parts[i]);
    }
    return out.appendByte((byte) ']');
  }
}
