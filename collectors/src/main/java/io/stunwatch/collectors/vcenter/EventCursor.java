package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterCheckpoint.RecentEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of the events read since the last checkpoint are new. vCenter can show an event late, with a createdTime
 * older than events already published (a host's events arrive when it reconnects), so each read starts an overlap
 * window behind the newest event published, and an event counts as new when its key is not among those published
 * within the window. An event that turns up later than the window is lost: {@code vcenter.event-overlap} bounds
 * both that and the re-reading.
 */
final class EventCursor {

  private final Duration overlap;
  private final Map<Long, Instant> recent = new HashMap<>();
  private Instant last;
  /** From a checkpoint written before the window existed: nothing created before it is new. */
  private Instant legacyFloor;

  private EventCursor(Duration overlap) {
    this.overlap = overlap;
  }

  /** The cursor where {@code checkpoint} left off; a first start (null) has published nothing. */
  static EventCursor from(VcenterCheckpoint checkpoint, Duration overlap) {
    EventCursor c = new EventCursor(overlap);
    if (checkpoint != null) {
      c.last = checkpoint.lastCreatedTime();
      checkpoint.recentEvents().forEach(e -> c.recent.put(e.key(), e.createdTime()));
      if (checkpoint.recentEvents().isEmpty() && !checkpoint.keysAtLastCreated().isEmpty()) {
        checkpoint.keysAtLastCreated().forEach(k -> c.recent.put(k, checkpoint.lastCreatedTime()));
        c.legacyFloor = checkpoint.lastCreatedTime();
      }
    }
    return c;
  }

  /** Where the next read starts: the overlap window behind the newest event, or {@code firstStart} before any. */
  Instant readFrom(Instant firstStart) {
    return last == null ? firstStart : last.minus(overlap);
  }

  /** Whether the event is new; a new one is remembered as published. */
  boolean accept(long key, Instant created) {
    if (recent.containsKey(key) || legacyFloor != null && created.isBefore(legacyFloor)) {
      return false;
    }
    if (last != null && created.isBefore(last.minus(overlap))) {
      return false; // behind the window: would be published again by every read, so it never counts
    }
    recent.put(key, created);
    if (last == null || created.isAfter(last)) {
      last = created;
    }
    return true;
  }

  /** createdTime of the newest event published; null before any. */
  Instant last() {
    return last;
  }

  /** The keys published with exactly {@link #last()}. */
  List<Long> keysAtLast() {
    return recent.entrySet().stream().filter(e -> e.getValue().equals(last)).map(Map.Entry::getKey).sorted()
        .toList();
  }

  /** The events published within the window behind {@link #last()}, oldest first, for the checkpoint. */
  List<RecentEvent> recent() {
    if (last == null) {
      return List.of();
    }
    Instant from = last.minus(overlap);
    List<RecentEvent> out = new ArrayList<>();
    recent.forEach((k, t) -> {
      if (!t.isBefore(from)) {
        out.add(new RecentEvent(k, t));
      }
    });
    out.sort(Comparator.comparing(RecentEvent::createdTime).thenComparingLong(RecentEvent::key));
    return out;
  }
}
