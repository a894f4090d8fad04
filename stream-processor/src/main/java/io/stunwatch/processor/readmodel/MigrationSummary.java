package io.stunwatch.processor.readmodel;

import io.stunwatch.model.FailureCause;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunTime;

/**
 * A migration as the list endpoints show it: the migration, whether it started under load, and the stun time once
 * its impact is known: a row of the API's migration lists. {@link io.stunwatch.processor.processors.MigrationIndex} keeps it, rendered as JSON, in
 * each {@link MigrationRow} of {@link StoreNames#MIGRATIONS_BY_VM} and {@link StoreNames#MIGRATIONS_BY_START}, so
 * that a list is read without decoding any impact's timeline.
 *
 * @param migration  the migration
 * @param underLoad  whether a migration-under-load alert was raised
 * @param stun       the stun time, or null before the impact is closed
 * @param fbUsedMiB  framebuffer used before the migration, or null
 * @param throughputDipPct the training-throughput dip, or null
 * @param loadSource the view the GPU figures came from (the impact's, else the alert's): the guest's, or the ESXi
 *                   host's for a VM without guest readings; null while none is known
 * @param failureCause why a FAILED migration failed, once its impact is known; null for any other
 */
public record MigrationSummary(Migration migration, boolean underLoad, StunTime stun, Double fbUsedMiB,
    Double throughputDipPct, LoadSource loadSource, FailureCause failureCause) {

  /** A summary with no failure cause. */
  public MigrationSummary(Migration migration, boolean underLoad, StunTime stun, Double fbUsedMiB,
      Double throughputDipPct, LoadSource loadSource) {
    this(migration, underLoad, stun, fbUsedMiB, throughputDipPct, loadSource, null);
  }

  /** A summary whose GPU figures' source is not told. */
  public MigrationSummary(Migration migration, boolean underLoad, StunTime stun, Double fbUsedMiB,
      Double throughputDipPct) {
    this(migration, underLoad, stun, fbUsedMiB, throughputDipPct, null);
  }

  public static MigrationSummary of(Migration m, MigrationAlert alert, MigrationImpact impact) {
    return new MigrationSummary(impact != null ? impact.migration() : m, alert != null,
        impact == null ? null : impact.stun(),
        impact == null || impact.before() == null ? null : impact.before().fbUsedMiB(),
        impact == null ? null : impact.throughputDipPct(),
        impact != null && impact.loadSource() != null ? impact.loadSource()
            : alert == null || alert.load() == null ? null : alert.load().source(),
        impact == null || impact.failure() == null ? null : impact.failure().cause());
  }
}
