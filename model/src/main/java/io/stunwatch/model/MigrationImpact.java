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
 * @param throughputDipPct  how much less progress the job made during the migration than at its rate before,
 *                          percent: the rate it logged while it ran, over the seconds it was not stunned (stunned
 *                          seconds count as no progress); absent without throughput before and during
 * @param timeline          from the start of {@code before} to the end of {@code after}, at most one point a second
 * @param settledAt         when the record was closed (event time)
 * @param stunEstimate      the stun estimated from the gap in guest samples, kept beside a vmware.log figure as a
 *                          second witness; absent without two guest samples around the migration
 * @param stunDifferenceSeconds vmware.log's figure less {@code stunEstimate}, seconds; absent unless both exist
 * @param loadSource        which view the GPU figures came from: the guest's ({@link LoadSource#GUEST}) or, for a
 *                          VM with no guest readings around its migration, the ESXi host's; absent without GPU
 *                          figures
 * @param vmotionId         the vMotion id the VM's vmware.log gave this migration, decimal, as vmkernel.log prints
 *                          it; absent without one
 * @param phases            where the time went: precopy, time to stop, stun; absent without vmware.log lines of
 *                          this migration
 * @param vmotionBandwidthMBps the precopy's network bandwidth the source host's vmkernel.log gave, MB/s; absent
 *                          without that line
 * @param pagesLeftAtSwitchover the pages the precopy left to send at switchover, from the same line
 * @param failure           why a FAILED migration failed; absent for any other
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
    Instant settledAt,
    StunTime stunEstimate,
    Double stunDifferenceSeconds,
    LoadSource loadSource,
    String vmotionId,
    VmotionPhases phases,
    Double vmotionBandwidthMBps,
    Long pagesLeftAtSwitchover,
    MigrationFailure failure) {

  /** An impact with no vMotion detail from the hosts' logs. */
  public MigrationImpact(Migration migration, Double durationSeconds, StunTime stun, PhaseStats before,
      PhaseStats during, PhaseStats after, Double throughputDipPct, List<TimelinePoint> timeline, Instant settledAt,
      StunTime stunEstimate, Double stunDifferenceSeconds, LoadSource loadSource) {
    this(migration, durationSeconds, stun, before, during, after, throughputDipPct, timeline, settledAt, stunEstimate,
        stunDifferenceSeconds, loadSource, null, null, null, null, null);
  }

  /** An impact whose GPU figures' source is not told. */
  public MigrationImpact(Migration migration, Double durationSeconds, StunTime stun, PhaseStats before,
      PhaseStats during, PhaseStats after, Double throughputDipPct, List<TimelinePoint> timeline, Instant settledAt,
      StunTime stunEstimate, Double stunDifferenceSeconds) {
    this(migration, durationSeconds, stun, before, during, after, throughputDipPct, timeline, settledAt, stunEstimate,
        stunDifferenceSeconds, null);
  }

  public MigrationImpact {
    Checks.required(migration, "migration");
    Checks.required(stun, "stun");
    Checks.nonNegative(durationSeconds, "durationSeconds");
    timeline = Checks.list(timeline);
    Checks.required(settledAt, "settledAt");
    Checks.nonNegative(vmotionBandwidthMBps, "vmotionBandwidthMBps");
    Checks.nonNegative(pagesLeftAtSwitchover, "pagesLeftAtSwitchover");
  }

  /** This impact with the vMotion detail {@code d}. */
  public MigrationImpact withVmotion(VmotionDetail d) {
    return new MigrationImpact(migration, durationSeconds, stun, before, during, after, throughputDipPct, timeline,
        settledAt, stunEstimate, stunDifferenceSeconds, loadSource, d.vmotionId(), d.phases(), d.bandwidthMBps(),
        d.pagesLeft(), d.failure());
  }

  /** The vMotion detail of this impact. */
  public VmotionDetail vmotion() {
    return new VmotionDetail(vmotionId, phases, vmotionBandwidthMBps, pagesLeftAtSwitchover, failure);
  }

  /**
   * What the hosts' logs tell of a migration beyond its stun.
   *
   * @param vmotionId     see {@link MigrationImpact#vmotionId()}
   * @param phases        see {@link MigrationImpact#phases()}
   * @param bandwidthMBps see {@link MigrationImpact#vmotionBandwidthMBps()}
   * @param pagesLeft     see {@link MigrationImpact#pagesLeftAtSwitchover()}
   * @param failure       see {@link MigrationImpact#failure()}
   */
  public record VmotionDetail(String vmotionId, VmotionPhases phases, Double bandwidthMBps, Long pagesLeft,
      MigrationFailure failure) {
  }

  /** An impact without a second witness of its stun. */
  public MigrationImpact(Migration migration, Double durationSeconds, StunTime stun, PhaseStats before,
      PhaseStats during, PhaseStats after, Double throughputDipPct, List<TimelinePoint> timeline, Instant settledAt) {
    this(migration, durationSeconds, stun, before, during, after, throughputDipPct, timeline, settledAt, null, null,
        null);
  }
}
