package io.stunwatch.processor.readmodel;

import java.time.Instant;
import java.util.Comparator;

/**
 * A migration as far as its Grafana annotation goes: when it started and ended, which VM, and the annotation's JSON
 * ({@link MigrationAnnotation}) already rendered. A {@link MigrationRow} is one; so is an entry of an
 * {@link AnnotationBlock}.
 */
public interface AnnotatedMigration {

  /** Start order, then id: the order of annotations and of the lists' default sort. */
  Comparator<AnnotatedMigration> BY_START = (a, b) -> {
    int c = Long.compare(a.startEpochSecond(), b.startEpochSecond());
    if (c == 0) {
      c = Integer.compare(a.startNano(), b.startNano());
    }
    return c != 0 ? c : a.id().compareTo(b.id());
  };

  /** Receives a slice of stored bytes (for example Vert.x's {@code Buffer::appendBytes}). */
  @FunctionalInterface
  interface Sink {
    void write(byte[] bytes, int offset, int length);
  }

  long startEpochSecond();

  int startNano();

  /** Whether the migration has ended (an end time is known). */
  boolean hasEnded();

  long endEpochSecond();

  int endNano();

  String id();

  String vmId();

  /** The VM's name, or null. */
  String vmName();

  /** Writes the JSON of the {@link MigrationAnnotation}, as the shared mapper writes it. */
  void writeAnnotation(Sink out);

  int annotationLength();

  /** The sign of the start's difference from {@code t} (as {@link Instant#compareTo}), with no Instant made. */
  default int compareStartTo(Instant t) {
    int c = Long.compare(startEpochSecond(), t.getEpochSecond());
    return c != 0 ? c : Integer.compare(startNano(), t.getNano());
  }

  /** Like {@link #compareStartTo} for the end; the start while the migration runs. */
  default int compareEndTo(Instant t) {
    if (!hasEnded()) {
      return compareStartTo(t);
    }
    int c = Long.compare(endEpochSecond(), t.getEpochSecond());
    return c != 0 ? c : Integer.compare(endNano(), t.getNano());
  }
}
