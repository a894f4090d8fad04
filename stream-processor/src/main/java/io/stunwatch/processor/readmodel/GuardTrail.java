package io.stunwatch.processor.readmodel;

import io.stunwatch.model.GuardAction;
import io.stunwatch.model.json.Schema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A VM's audit trail of the DRS guard ({@link StoreNames#GUARD_TRAIL}, by VM id): the newest {@link #KEPT} actions
 * {@code collect vcenter} published on {@code stunwatch.guard-actions}, oldest first.
 *
 * <p>The same actions give the same trail in whatever order they arrive, and an action read twice is kept once:
 * they are ordered by {@link #ORDER} (their time, then what they are), and equal ones are one.
 *
 * @param vmId    the VM
 * @param actions its newest actions, oldest first
 */
@Schema(name = "store.guard-trail")
public record GuardTrail(String vmId, List<GuardAction> actions) {

  /** How many actions of a VM are kept: a day of a VM protected and released every hour. */
  public static final int KEPT = 50;

  /** A total order of actions: their time, then the fields that tell two of the same instant apart. */
  public static final Comparator<GuardAction> ORDER = Comparator.comparing(GuardAction::at)
      .thenComparing(GuardAction::vcenterUuid).thenComparing(GuardAction::kind).thenComparing(GuardAction::result)
      .thenComparing(GuardAction::vmMoref).thenComparing(GuardAction::why);

  public GuardTrail {
    actions = actions == null ? List.of() : List.copyOf(actions);
  }

  /** This trail with {@code a}: in its place by {@link #ORDER}, once, the oldest dropped past {@link #KEPT}. */
  public GuardTrail with(GuardAction a) {
    if (actions.contains(a)) {
      return this;
    }
    List<GuardAction> next = new ArrayList<>(actions);
    next.add(a);
    next.sort(ORDER);
    return new GuardTrail(vmId, next.size() > KEPT ? next.subList(next.size() - KEPT, next.size()) : next);
  }
}
