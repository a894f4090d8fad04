package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;

/**
 * The final answer for one migration: what it did to the workload. Emitted once, after the migration ended and a
 * settle window of after-samples passed. Keyed by the migration id.
 *
 * @param migration         the migration as finally assembled
 * @param durationSeconds   end minus start, seconds; absent for an {@code UNKNOWN} migration
 * @param stun              stun time and its source
 * @param before            the workload before the migration
 * @param during            the workload during it
 * @param after             the workload in the settle window after it
 * @param throughputDipPct  how far throughput fell during the migration relative to before, percent; absent
 *                          without throughput samples
 * @param timeline          from the start of {@code before} to the end of {@code after}, at most one point a second
 * @param settledAt         when the record was closed (event time)
 */
@Schema(name = "migration-impact")
public record MigrationImpact(
    Migration migration,
    Double durationSeconds,
    StunTime stun,
    PhaseStats before,
    PhaseStats during,
    PhaseStats after,
    Double throughputDipPct,
    List<TimelinePoint> timeline,
    Instant settledAt) {

  public MigrationImpact {
    Checks.required(migration, "migration");
    Checks.required(stun, "stun");
    Checks.nonNegative(durationSeconds, "durationSeconds");
    timeline = Checks.list(timeline);
    Checks.required(settledAt, "settledAt");
  }
}
