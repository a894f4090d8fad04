package io.stunwatch.collectors.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

/**
 * Turns the local times a tool prints without an offset (nvidia-smi's timestamps) into instants, one stream at a
 * time. In the hour a zone falls back, each local time happens twice; {@code atZone} would take the first, and
 * every sample of the second pass would be placed an hour early, then dropped as late. Here the ambiguity is
 * settled by the stream itself:
 * <ol>
 *   <li>after an earlier reading, the first candidate not before it (less {@link #REORDER}): a stream's times move
 *       forward, through the fall-back too;</li>
 *   <li>for the first reading, the candidate nearer the time it was received, when that is within the hour around
 *       them (live); else the first (a file replayed later, which then moves forward as above).</li>
 * </ol>
 * Not thread-safe: one per stream.
 */
public final class LocalTimes {

  /** How far a stream's times may step back and still be the same pass. */
  static final Duration REORDER = Duration.ofMinutes(1);

  private final ZoneId zone;
  private final Clock clock;
  private Instant previous;

  /**
   * @param zone  the zone the tool prints its local times in
   * @param clock gives the receive time
   */
  public LocalTimes(ZoneId zone, Clock clock) {
    this.zone = zone;
    this.clock = clock;
  }

  /** The instant of the next local time of the stream. */
  public Instant resolve(LocalDateTime local) {
    List<ZoneOffset> offsets = zone.getRules().getValidOffsets(local);
    Instant at;
    if (offsets.size() != 2) {
      at = local.atZone(zone).toInstant(); // one meaning; or a time skipped by a spring-forward, moved past it
    } else {
      Instant a = local.toInstant(offsets.get(0));
      Instant b = local.toInstant(offsets.get(1));
      Instant first = a.isBefore(b) ? a : b;
      Instant second = a.isBefore(b) ? b : a;
      if (previous != null) {
        at = !first.isBefore(previous.minus(REORDER)) ? first : second;
      } else {
        Instant received = clock.instant();
        boolean live = !received.isBefore(first.minus(Duration.ofHours(1)))
            && !received.isAfter(second.plus(Duration.ofHours(1)));
        at = live && Duration.between(second, received).abs().compareTo(Duration.between(first, received).abs()) < 0
            ? second : first;
      }
    }
    if (previous == null || at.isAfter(previous)) {
      previous = at;
    }
    return at;
  }
}
