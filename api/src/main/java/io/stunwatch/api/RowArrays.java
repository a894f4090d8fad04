package io.stunwatch.api;

import io.stunwatch.processor.MigrationRow;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.ToIntFunction;

/**
 * JSON arrays of the renderings {@link MigrationRow}s carry: a list answer is copied from the rows the index
 * stores, never rendered per request.
 */
final class RowArrays {

  private RowArrays() {
  }

  /** The JSON array of the rows' summaries, as the shared mapper would write the list of summaries. */
  static Buffer summaries(List<MigrationRow> rows) {
    return array(rows, MigrationRow::jsonLength, MigrationRow::writeJson);
  }

  /** The JSON array of the rows' Grafana annotations. */
  static Buffer annotations(List<MigrationRow> rows) {
    return array(rows, MigrationRow::annotationLength, MigrationRow::writeAnnotation);
  }

  private static Buffer array(List<MigrationRow> rows, ToIntFunction<MigrationRow> length,
      BiConsumer<MigrationRow, MigrationRow.Sink> write) {
    int size = 2 + Math.max(0, rows.size() - 1);
    for (MigrationRow r : rows) {
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
   * The rows' stored forms, each after its length as a 4-byte big-endian int: what an instance answers another's
   * {@code /internal} list query with, read back by {@link #read}. Both instances run one build (their stores'
   * format must match anyway), so the stored form is the cheapest exact copy.
   */
  static Buffer stored(List<MigrationRow> rows) {
    int size = 0;
    for (MigrationRow r : rows) {
      size += 4 + r.storedLength();
    }
    Buffer out = Buffer.buffer(size);
    for (MigrationRow r : rows) {
      out.appendInt(r.storedLength());
      r.writeStored(out::appendBytes);
    }
    return out;
  }

  /**
   * The rows {@link #stored} wrote.
   *
   * @throws IllegalStateException if {@code body} is not such a list, naming where it stops making sense
   */
  static List<MigrationRow> read(Buffer body) {
    List<MigrationRow> out = new java.util.ArrayList<>();
    int pos = 0;
    while (pos < body.length()) {
      if (body.length() - pos < 4) {
        throw new IllegalStateException("forwarded rows: " + (body.length() - pos) + " stray bytes at " + pos);
      }
      int n = body.getInt(pos);
      if (n < 0 || n > body.length() - pos - 4) {
        throw new IllegalStateException("forwarded rows: a row of " + n + " bytes at " + pos + " in "
            + body.length());
      }
      out.add(MigrationRow.decode(body.getBytes(pos + 4, pos + 4 + n)));
      pos += 4 + n;
    }
    return out;
  }
}
