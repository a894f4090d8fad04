package io.stunwatch.processor;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.GuardKeys;
import java.time.Duration;
import java.util.List;

/**
 * The DRS guard's decision settings, read by the processor ({@code process}, {@code api}). Off by default: enabled,
 * the processor publishes {@code stunwatch.guard-decisions}.
 *
 * @param enabled      whether the processor decides at all
 * @param maxStun      a VM under load (by the alert's rule and window) whose forecast stun p95 is over this is
 *                     protected
 * @param releaseAfter a protected VM is released after this long of its own readings below the thresholds
 * @param holdEvery    how often, in the VM's reading time, a protection is said again
 */
public record GuardConfig(boolean enabled, Duration maxStun, Duration releaseAfter, Duration holdEvery) {

  public static final ConfigKey<Boolean> ENABLED = GuardKeys.ENABLED;
  public static final ConfigKey<Duration> MAX_STUN = ConfigKeys.duration("guard.max-stun", Duration.ofSeconds(30),
      Duration.ofSeconds(1), Duration.ofHours(1),
      "A VM under load by the alert's rule and window (process.alert.*) is protected when the p95 of its forecast "
          + "stun is over this.");
  public static final ConfigKey<Duration> RELEASE_AFTER = ConfigKeys.duration("guard.release-after",
      Duration.ofMinutes(10), Duration.ofSeconds(10), Duration.ofDays(1),
      "A protected VM is released after this long of its readings below the thresholds (in their own time).");
  public static final ConfigKey<Duration> HOLD_EVERY = ConfigKeys.duration("guard.hold-every", Duration.ofMinutes(1),
      Duration.ofSeconds(10), Duration.ofHours(1),
      "How often a protection is said again (HOLD), in the VM's reading time, so that whatever applies the "
          + "decisions can tell a protection still wanted from one whose VM or processor went quiet.");

  public static final List<ConfigKey<?>> KEYS = List.of(ENABLED, MAX_STUN, RELEASE_AFTER, HOLD_EVERY);

  /** The guard off, with the default figures. */
  public static final GuardConfig OFF = new GuardConfig(false, MAX_STUN.defaultValue(),
      RELEASE_AFTER.defaultValue(), HOLD_EVERY.defaultValue());

  /** Reads and checks the guard's keys. */
  static GuardConfig read(ConfigReader r) {
    return new GuardConfig(r.get(ENABLED), r.get(MAX_STUN), r.get(RELEASE_AFTER), r.get(HOLD_EVERY));
  }

  /** This configuration switched on or off. */
  public GuardConfig withEnabled(boolean on) {
    return new GuardConfig(on, maxStun, releaseAfter, holdEvery);
  }
}
