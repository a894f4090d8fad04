package io.stunwatch.processor.domain;

import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.json.Schema;
import io.stunwatch.processor.readmodel.StoreNames;
import java.util.ArrayList;
import java.util.List;

/**
 * The distinct events of one migration's chain. State-store value of {@link StoreNames#MIGRATION_EVENTS}.
 *
 * @param events by arrival; never two with the same dedupe id
 */
@Schema(name = "store.event-set")
public record EventSet(List<VcenterEvent> events) {

  public EventSet {
    events = List.copyOf(events == null ? List.of() : events);
  }

  /** This set with {@code e} added, or this same set when it already has an event with e's dedupe id. */
  public EventSet with(VcenterEvent e) {
    for (VcenterEvent x : events) {
      if (x.dedupeId().equals(e.dedupeId())) {
        return this;
      }
    }
    List<VcenterEvent> out = new ArrayList<>(events);
    out.add(e);
    return new EventSet(out);
  }
}
