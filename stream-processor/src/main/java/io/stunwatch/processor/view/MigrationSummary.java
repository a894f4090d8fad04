package io.stunwatch.processor.view;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunTime;

/**
 * A migration as the list endpoints show it: the migration, whether it started under load, and the stun time once
 * its impact is known: a row of the API's migration lists. {@link io.stunwatch.processor.node.MigrationIndex} keeps it, rendered as JSON, in
 * each {@link MigrationRow} of {@link StoreNames#MIGRATIONS_BY_VM} and {@link StoreNames#MIGRATIONS_BY_START}, so
 * that a list is read without decoding any impact's timeline.
 *
 * @param migration  the migration
 * @param underLoad  whether a migration-under-load alert was raised
 * @param stun       the stun time, or null before the impact is closed
 * @param fbUsedMiB  framebuffer used before the migration, or null
 * @param throughputDipPct the training-throughput dip, or null
 */
public record MigrationSummary(Migration migration, boolean underLoad, StunTime stun, Double fbUsedMiB,
    Double throughputDipPct) {

  public static MigrationSummary of(Migration m, MigrationAlert alert, MigrationImpact impact) {
    return new MigrationSummary(impact != null ? impact.migration() : m, alert != null,
        impact == null ? null : impact.stun(),
        impact == null || impact.before() == null ? null : impact.before().fbUsedMiB(),
        impact == null ? null : impact.throughputDipPct());
  }
}
