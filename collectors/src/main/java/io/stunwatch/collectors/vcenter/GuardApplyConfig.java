package io.stunwatch.collectors.vcenter;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.GuardKeys;
import java.time.Duration;
import java.util.List;

/**
 * How {@code collect vcenter} applies the DRS guard's decisions ({@code stunwatch.guard-decisions}).
 *
 * @param enabled     {@code guard.enabled}: whether it applies them at all
 * @param mode        dry-run (report what it would set, touch nothing) or enforce
 * @param maxHold     a protection whose VM has had no decision this long is released: the VM's readings, or the
 *                    processor, stopped
 * @param maxAge      a decision older than this (by the collector's clock) starts no protection: a replay of old
 *                    readings must not touch today's cluster
 */
public record GuardApplyConfig(boolean enabled, Mode mode, Duration maxHold, Duration maxAge) {

  /** What the collector does with a decision. */
  public enum Mode {
    /** Report, as audit records, what it would set; vCenter is not touched. */
    DRY_RUN,
    /** Set and restore the per-VM DRS overrides in vCenter. */
    ENFORCE
  }

  public static final ConfigKey<Mode> MODE = ConfigKeys.enumeration("guard.mode", Mode.class, Mode.DRY_RUN,
      "What collect vcenter does with the guard's decisions: dry-run (audit records only, vCenter untouched) or "
          + "enforce (a per-VM manual DRS override while a VM is protected, the previous one restored after).");
  public static final ConfigKey<Duration> MAX_HOLD = ConfigKeys.duration("guard.max-hold", Duration.ofMinutes(30),
      Duration.ofMinutes(1), Duration.ofDays(1),
      "A protection whose VM has had no decision for this long is released: its readings, or the processor, "
          + "stopped. Longer than guard.hold-every.");
  public static final ConfigKey<Duration> MAX_AGE = ConfigKeys.duration("guard.max-decision-age",
      Duration.ofMinutes(2), Duration.ofSeconds(10), Duration.ofHours(1),
      "A decision older than this, by the collector's clock, starts no protection: a replay of old readings must "
          + "not touch today's cluster.");

  /** The keys of the collector's side; {@code guard.enabled} is the guard's one switch ({@link GuardKeys}). */
  public static final List<ConfigKey<?>> KEYS = List.of(MODE, MAX_HOLD, MAX_AGE);

  /** The guard off. */
  public static final GuardApplyConfig OFF = new GuardApplyConfig(false, Mode.DRY_RUN, MAX_HOLD.defaultValue(),
      MAX_AGE.defaultValue());

  static GuardApplyConfig read(ConfigReader r) {
    return new GuardApplyConfig(r.get(GuardKeys.ENABLED), r.get(MODE), r.get(MAX_HOLD), r.get(MAX_AGE));
  }
}
