package io.stunwatch.api;

import io.stunwatch.processor.readmodel.AnnotatedMigration;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * JSON arrays of the renderings that {@link MigrationRow}s and annotation blocks carry: a list answer is copied from
 * what the index stores, never rendered per request; and the framing of stored values forwarded between instances.
 */
final class RenderedRows {

  private RenderedRows() {
  }

  /** The JSON array of the rows' summaries, as the shared mapper would write the list of summaries. */
  static Buffer summaries(List<MigrationRow> rows) {
    return array(rows, MigrationRow::jsonLength, MigrationRow::writeJson);
  }

  /** The JSON array of the Grafana annotations of rows or of block entries. */
  static Buffer annotations(List<? extends AnnotatedMigration> rows) {
    return array(rows, AnnotatedMigration::annotationLength, AnnotatedMigration::writeAnnotation);
  }

  private static <T> Buffer array(List<? extends T> rows, ToIntFunction<T> length,
      BiConsumer<T, AnnotatedMigration.Sink> write) {
    int size = 2 + Math.max(0, rows.size() - 1);
    for (T r : rows) {
      size += length.applyAsInt(r);
    }
    // One array sized up front: the answer is copied once into it, and once by Netty into its direct buffer.
    Buffer out = Buffer.buffer(size).appendByte((byte) '[');
    for (int i = 0; i < rows.size(); i++) {
      if (i > 0) {
        out.appendByte((byte) ',');
      }
      write.accept(rows.get(i), out::appendBytes);
    }
    return out.appendByte((byte) ']');
  }

  /**
   * Stored values (index rows, annotation blocks), each after its length as a 4-byte big-endian int: what an
   * instance answers another's {@code /internal} query for them with, read back by {@link #read}. Both instances run
   * one build (their stores' format must match anyway), so the stored form is the cheapest exact copy.
   */
  static <T> Buffer stored(List<T> values, ToIntFunction<T> length, BiConsumer<T, AnnotatedMigration.Sink> write) {
    int size = 0;
    for (T v : values) {
      size += 4 + length.applyAsInt(v);
    }
    Buffer out = Buffer.buffer(size);
    for (T v : values) {
      out.appendInt(length.applyAsInt(v));
      write.accept(v, out::appendBytes);
    }
    return out;
  }

  /** The index rows' stored forms, as {@link #stored(List, ToIntFunction, BiConsumer)} frames them. */
  static Buffer stored(List<MigrationRow> rows) {
    return stored(rows, MigrationRow::storedLength, MigrationRow::writeStored);
  }

  /**
   * The values {@link #stored} wrote, each read by {@code decode}.
   *
   * @throws IllegalStateException if {@code body} is not such a list, naming where it stops making sense
   */
  static <T> List<T> read(Buffer body, Function<byte[], T> decode) {
    List<T> out = new ArrayList<>();
    int pos = 0;
    while (pos < body.length()) {
      if (body.length() - pos < 4) {
        throw new IllegalStateException("forwarded values: " + (body.length() - pos) + " stray bytes at " + pos);
      }
      int n = body.getInt(pos);
      if (n < 0 || n > body.length() - pos - 4) {
        throw new IllegalStateException("forwarded values: a value of " + n + " bytes at " + pos + " in "
            + body.length());
      }
      out.add(decode.apply(body.getBytes(pos + 4, pos + 4 + n)));
      pos += 4 + n;
    }
    return out;
  }
}
