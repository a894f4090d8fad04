package io.stunwatch.processor;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.PhaseStats;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.TimelinePoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds a migration's impact record from the VM's per-second history and its vmware.log stun observations. Pure:
 * the same inputs give the same record.
 */
public final class ImpactBuilder {

  private ImpactBuilder() {
  }

  /**
   * @param m       the final migration (a start; an end unless UNKNOWN)
   * @param history the VM's per-second load history, or null
   * @param stuns   the VM's recent stun observations
   * @param before  length of the "before" phase
   * @param settle  length of the "after" phase
   * @param settledAt when the record is closed (event time)
   */
  public static MigrationImpact build(Migration m, VmSamples history, List<StunObservation> stuns, Duration before,
      Duration settle, Instant settledAt) {
    Instant start = m.startTime();
    Instant end = m.endTime() != null ? m.endTime() : start;
    List<VmSamples.Point> points = history == null ? List.of() : history.points();
    PhaseStats b = phase(points, start.minus(before), start);
    PhaseStats d = phase(points, start, end.plusSeconds(1));
    // The after phase stops before the second the impact is closed in: records of that second may come after the
    // one that closed it.
    PhaseStats a = phase(points, end.plusSeconds(1), end.plus(settle));
    Double dip = b.throughput() == null || d.throughput() == null || b.throughput() == 0 ? null
        : Math.max(0, (b.throughput() - d.throughput()) / b.throughput() * 100.0);
    List<TimelinePoint> timeline = new ArrayList<>();
    for (VmSamples.Point p : points) {
      if (p.epochSecond() >= b.from().getEpochSecond() && p.epochSecond() < a.to().getEpochSecond()) {
        timeline.add(new TimelinePoint(Instant.ofEpochSecond(p.epochSecond()), p.gpuUtilizationPct(),
            p.fbUsedMiB() == null ? null : p.fbUsedMiB().doubleValue(), p.rdmaBytesPerSec(), p.throughput()));
      }
    }
    return new MigrationImpact(m, m.durationSeconds(), stun(m, points, stuns, settle), b, d, a, dip, timeline,
        settledAt);
  }

  /**
   * vmware.log's figure when an observation falls in the migration (plus the settle window, as the destination's
   * log is written at resume); otherwise the largest gap between guest GPU samples during the migration, less the
   * one-second sampling step; otherwise unknown.
   */
  /** {@code i} showing the migration as {@code m}. */
  static MigrationImpact withMigration(MigrationImpact i, Migration m) {
    return new MigrationImpact(m, i.durationSeconds(), i.stun(), i.before(), i.during(), i.after(),
        i.throughputDipPct(), i.timeline(), i.settledAt());
  }

  /** {@code i} with another stun time (a vmware.log figure that arrived after the impact was closed). */
  static MigrationImpact withStun(MigrationImpact i, StunTime stun) {
    return new MigrationImpact(i.migration(), i.durationSeconds(), stun, i.before(), i.during(), i.after(),
        i.throughputDipPct(), i.timeline(), i.settledAt());
  }

  static StunTime stun(Migration m, List<VmSamples.Point> points, List<StunObservation> stuns, Duration settle) {
    Instant from = m.startTime();
    Instant to = (m.endTime() != null ? m.endTime() : from).plus(settle);
    // The VM resumes, and vmware.log records the stun, at the migration's end; a later migration of the same VM can
    // log within the settle window too, so the observation nearest the end is this migration's (ties: the earlier).
    Instant end = m.endTime() != null ? m.endTime() : from;
    StunObservation best = null;
    for (StunObservation s : stuns) {
      if (!s.timestamp().isBefore(from) && !s.timestamp().isAfter(to)
          && s.source() == StunObservation.StunSource.CHECKPOINT_UNSTUN
          && (best == null || distance(s, end) < distance(best, end)
              || distance(s, end) == distance(best, end) && s.timestamp().isBefore(best.timestamp()))) {
        best = s;
      }
    }
    if (best != null) {
      return new StunTime(best.stunMicros() / 1_000_000.0, StunTime.Source.VMWARE_LOG);
    }
    long prev = -1;
    long maxGap = -1;
    long last = end.getEpochSecond() + 30;
    for (VmSamples.Point p : points) {
      if (p.samples() == 0) {
        continue; // a second with throughput but no GPU sample
      }
      if (p.epochSecond() >= from.getEpochSecond() - 1 && p.epochSecond() <= last) {
        if (prev >= 0) {
          maxGap = Math.max(maxGap, p.epochSecond() - prev);
        }
        prev = p.epochSecond();
      }
    }
    if (maxGap < 0) {
      return new StunTime(null, StunTime.Source.UNKNOWN);
    }
    return new StunTime((double) Math.max(0, maxGap - 1), StunTime.Source.SAMPLE_GAP_ESTIMATE);
  }

  private static long distance(StunObservation s, Instant end) {
    return Math.abs(java.time.Duration.between(end, s.timestamp()).toMillis());
  }

  private static PhaseStats phase(List<VmSamples.Point> points, Instant from, Instant to) {
    long n = 0;
    double util = 0;
    int utilN = 0;
    double fb = 0;
    int fbN = 0;
    Long fbTotal = null;
    double tp = 0;
    int tpN = 0;
    double rdma = 0;
    int rdmaN = 0;
    for (VmSamples.Point p : points) {
      if (p.epochSecond() < from.getEpochSecond() || p.epochSecond() >= to.getEpochSecond()) {
        continue;
      }
      n += p.samples();
      if (p.gpuUtilizationPct() != null) {
        util += p.gpuUtilizationPct();
        utilN++;
      }
      if (p.fbUsedMiB() != null) {
        fb += p.fbUsedMiB();
        fbN++;
        fbTotal = p.fbTotalMiB();
      }
      if (p.throughput() != null) {
        tp += p.throughput();
        tpN++;
      }
      if (p.rdmaBytesPerSec() != null) {
        rdma += p.rdmaBytesPerSec();
        rdmaN++;
      }
    }
    return new PhaseStats(from, to, n, utilN == 0 ? null : util / utilN, fbN == 0 ? null : fb / fbN,
        fbTotal == null ? null : fbTotal.doubleValue(), rdmaN == 0 ? null : rdma / rdmaN, tpN == 0 ? null : tp / tpN);
  }
}
