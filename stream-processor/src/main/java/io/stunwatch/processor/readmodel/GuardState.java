package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.json.Schema;
import java.time.Instant;

/**
 * A VM the DRS guard protects ({@link StoreNames#GUARD_STATE}, by VM id), by the event time of its readings; gone
 * once it is released.
 *
 * @param vmId      the VM
 * @param since     the reading that protected it
 * @param lastBusy  its newest reading under load with a forecast over the limit
 * @param lastSaid  its newest reading on which the protection was said (PROTECT or HOLD)
 * @param lastSeen  its newest reading: an older one arriving late changes nothing
 * @param decision  the protection as last said, with its reasons, load and forecast
 */
@Schema(name = "store.guard")
public record GuardState(String vmId, Instant since, Instant lastBusy, Instant lastSaid, Instant lastSeen,
    GuardDecision decision) {

  /** This state at a newer reading {@code at}. */
  public GuardState seen(Instant at) {
    return new GuardState(vmId, since, lastBusy, lastSaid, at, decision);
  }
}
