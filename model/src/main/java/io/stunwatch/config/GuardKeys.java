package io.stunwatch.config;

/**
 * The DRS guard's switch, read where decisions are made ({@code process}, {@code api}) and where they are applied
 * ({@code collect vcenter}): one key for both, so that one setting turns the whole guard on.
 */
public final class GuardKeys {

  public static final ConfigKey<Boolean> ENABLED = ConfigKeys.bool("guard.enabled", false,
      "The DRS guard: the processor decides which busy GPU VMs DRS must not move on its own "
          + "(stunwatch.guard-decisions), and collect vcenter applies the decisions as guard.mode says.");

  private GuardKeys() {
  }
}
