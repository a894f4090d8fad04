package io.stunwatch.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.model.json.Json;
import io.vertx.core.buffer.Buffer;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;

/**
 * The JSON of immutable values, kept by instance in a direct-mapped table, and JSON arrays assembled from it.
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
  private final Entry[] slots;

  /**
   * @param view  what is rendered for an instance (the instance itself, or a representation of it)
   * @param slots the table size, a power of two
   */
  JsonFragments(Function<T, ?> view, int slots) {
    if (Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two, not " + slots);
    }
    this.view = view;
    this.slots = new Entry[slots];
  }

  /** The JSON of {@code view(value)}, from the table when this very instance was rendered before. */
  byte[] of(T value) {
    int slot = System.identityHashCode(value) & (slots.length - 1);
    Entry e = slots[slot];
    if (e != null && e.key() == value) {
      return e.json();
    }
    try {
      byte[] rendered = json.writeValueAsBytes(view.apply(value));
      // Immutable entries: a racing reader sees a whole entry or the one before it.
      slots[slot] = new Entry(value, rendered);
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
