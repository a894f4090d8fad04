package io.stunwatch.processor.domain;

import io.stunwatch.model.FailureCause;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.LogMessage;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationFailure;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.PhaseStats;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.TimelinePoint;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.VmotionPhases;
import io.stunwatch.processor.readmodel.VmSamples;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

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
  public static MigrationImpact build(Migration m, VmSamples history, Tracked.Stuns logged, Duration before,
      Duration settle, Instant settledAt) {
    return build(m, history, logged == null ? List.of() : logged.stuns(), before, settle, settledAt)
        .withVmotion(vmotion(m, logged));
  }

  /** {@link #build(Migration, VmSamples, Tracked.Stuns, Duration, Duration, Instant)} from stun observations alone. */
  public static MigrationImpact build(Migration m, VmSamples history, List<StunObservation> stuns, Duration before,
      Duration settle, Instant settledAt) {
    Instant start = m.startTime();
    Instant end = m.endTime() != null ? m.endTime() : start;
    List<VmSamples.Point> points = history == null ? List.of() : history.points();
    boolean total = jobTotalsOnly(points, start.minus(before), end.plus(settle));
    PhaseStats b = phase(points, start.minus(before), start, total);
    PhaseStats d = phase(points, start, end.plusSeconds(1), total);
    // The after phase stops before the second the impact is closed in: records of that second may come after the
    // one that closed it.
    PhaseStats a = phase(points, end.plusSeconds(1), end.plus(settle), total);
    List<TimelinePoint> timeline = new ArrayList<>();
    for (VmSamples.Point p : points) {
      if (p.epochSecond() >= b.from().getEpochSecond() && p.epochSecond() < a.to().getEpochSecond()) {
        timeline.add(new TimelinePoint(Instant.ofEpochSecond(p.epochSecond()), p.gpuUtilizationPct(),
            p.fbUsedMiB() == null ? null : p.fbUsedMiB().doubleValue(), p.rdmaBytesPerSec(), p.throughput(total)));
      }
    }
    LoadSource source = history == null ? null : history.gpuSource();
    // The hypervisor goes on reading a vGPU while its VM is stunned: a gap in its readings is no stun, and only the
    // guest's readings (or vmware.log) tell one.
    List<VmSamples.Point> guest = source == LoadSource.HOST ? List.of() : points;
    StunTime stun = stun(m, guest, stuns);
    StunTime estimate = gapEstimate(m, guest);
    return new MigrationImpact(m, m.durationSeconds(), stun, b, d, a,
        dip(b.throughput(), d.throughput(), m.durationSeconds(), stun), timeline, settledAt,
        estimate.source() == StunTime.Source.UNKNOWN ? null : estimate, difference(stun, estimate), source);
  }

  /**
   * Whether the range's throughput is the job's total (TOTAL lines) because the VM logged no rate of its own (STEP):
   * an impact reads one scope, never an average of both.
   */
  private static boolean jobTotalsOnly(List<VmSamples.Point> points, Instant from, Instant to) {
    boolean totals = false;
    for (VmSamples.Point p : points) {
      if (p.epochSecond() < from.getEpochSecond() || p.epochSecond() > to.getEpochSecond()) {
        continue;
      }
      if (p.throughput(false) != null) {
        return false;
      }
      totals |= p.throughput(true) != null;
    }
    return totals;
  }

  /**
   * The throughput dip, percent: how much less progress the job made during the migration than at its rate
   * before. Progress during it is the rate the job logged while it ran, over the seconds it was not stunned: a
   * stunned VM logs nothing, so its rate alone would hide the stun. Null without a rate before and during.
   */
  static Double dip(Double before, Double during, Double durationSeconds, StunTime stun) {
    if (before == null || during == null || before == 0) {
      return null;
    }
    double running = 1;
    if (durationSeconds != null && durationSeconds > 0 && stun.seconds() != null) {
      running = Math.max(0, 1 - Math.min(stun.seconds(), durationSeconds) / durationSeconds);
    }
    return Math.max(0, (before - during * running) / before * 100.0);
  }

  /** vmware.log's figure less the sample-gap estimate, seconds, when there are both. */
  private static Double difference(StunTime stun, StunTime estimate) {
    return stun.source() == StunTime.Source.VMWARE_LOG && estimate.source() == StunTime.Source.SAMPLE_GAP_ESTIMATE
        ? stun.seconds() - estimate.seconds() : null;
  }

  /** How far a host's vmware.log clock may be from vCenter's, for a stun figure to be a migration's. */
  static final Duration LOG_CLOCK_SKEW = Duration.ofSeconds(30);

  /** {@code i} showing the migration as {@code m}, with what the logs of {@code logged} tell of it. */
  public static MigrationImpact withMigration(MigrationImpact i, Migration m, Tracked.Stuns logged) {
    return new MigrationImpact(m, i.durationSeconds(), i.stun(), i.before(), i.during(), i.after(),
        i.throughputDipPct(), i.timeline(), i.settledAt(), i.stunEstimate(), i.stunDifferenceSeconds(),
        i.loadSource()).withVmotion(vmotion(m, logged));
  }

  /**
   * {@code i} with another stun time (a vmware.log figure that arrived after the impact was closed): the dip, which
   * counts stunned seconds as no progress, and the difference from the estimate follow it.
   */
  public static MigrationImpact withStun(MigrationImpact i, StunTime stun) {
    StunTime estimate = i.stunEstimate() == null ? new StunTime(null, StunTime.Source.UNKNOWN) : i.stunEstimate();
    return new MigrationImpact(i.migration(), i.durationSeconds(), stun, i.before(), i.during(), i.after(),
        dip(i.before().throughput(), i.during().throughput(), i.durationSeconds(), stun), i.timeline(),
        i.settledAt(), i.stunEstimate(), difference(stun, estimate), i.loadSource()).withVmotion(i.vmotion());
  }

  /**
   * vmware.log's figure when an observation falls in the migration's window; otherwise the sample-gap estimate
   * ({@link #gapEstimate}); otherwise unknown.
   */
  public static StunTime stun(Migration m, List<VmSamples.Point> points, List<StunObservation> stuns) {
    // The VM resumes, and vmware.log records the stun, at the migration's end, as the host's clock has it: the
    // migration's own window, widened by the clock skew allowed between the host and vCenter. A Checkpoint_Unstun
    // outside it is another stun of the VM (a snapshot, a suspend), not this migration's; within it, the observation
    // nearest the end is this migration's (ties: the earlier).
    Instant end = m.endTime() != null ? m.endTime() : m.startTime();
    Instant from = m.startTime().minus(LOG_CLOCK_SKEW);
    Instant to = end.plus(LOG_CLOCK_SKEW);
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
    return gapEstimate(m, points);
  }

  /**
   * What the hosts' logs tell of {@code m} beyond its stun: its vMotion id, its phases, the precopy's bandwidth and,
   * for a failure, its cause.
   *
   * <p>The VM's vMotion observations dated within the migration's window (widened by {@link #LOG_CLOCK_SKEW}) are
   * this migration's. The one nearest its end that names a vMotion id gives the id, and every observation with that
   * id is joined: the source's rotated log holds the precopy, the stop and a failure's messages, the destination's
   * the restore and the resume. Without an id, those in the window are joined. A field is taken from the earliest
   * observation that has it. The bandwidth is the source host's for that id.
   *
   * <p>A FAILED migration's cause is read from the first {@code msg.*} id of the log's message list that names a
   * cause (else its first id), otherwise from vCenter's fault type and message.
   */
  public static MigrationImpact.VmotionDetail vmotion(Migration m, Tracked.Stuns logged) {
    List<VmotionObservation> all = logged == null || m.startTime() == null ? List.of() : logged.vmotions();
    Instant end = m.endTime() != null ? m.endTime() : m.startTime();
    Instant from = m.startTime() == null ? null : m.startTime().minus(LOG_CLOCK_SKEW);
    Instant to = end == null ? null : end.plus(LOG_CLOCK_SKEW);
    List<VmotionObservation> inWindow = all.stream()
        .filter(v -> !v.timestamp().isBefore(from) && !v.timestamp().isAfter(to)).toList();
    String id = inWindow.stream().filter(v -> v.vmotionId() != null)
        .min(Comparator.comparingLong((VmotionObservation v) -> Math.abs(Duration.between(end, v.timestamp())
            .toMillis())).thenComparing(VmotionObservation::timestamp))
        .map(VmotionObservation::vmotionId).orElse(null);
    // in the logs' order, not the order they arrived in: the same record whatever came first
    List<VmotionObservation> mine = (id != null ? all.stream().filter(v -> id.equals(v.vmotionId()))
        : inWindow.stream().filter(v -> v.vmotionId() == null)).sorted(LOG_ORDER).toList();
    VmotionPhases phases = mine.isEmpty() ? null : phases(m, mine);
    VmotionBandwidth bw = id == null ? null : logged.bandwidths().stream().filter(b -> b.vmotionId().equals(id))
        .reduce((a, b) -> b).orElse(null);
    return new MigrationImpact.VmotionDetail(id, phases, bw == null ? null : bw.bandwidthMBps(),
        bw == null ? null : bw.pagesLeft(), failure(m, mine));
  }

  private static final Comparator<VmotionObservation> LOG_ORDER = Comparator.comparing(VmotionObservation::timestamp)
      .thenComparing(v -> v.logFile() == null ? "" : v.logFile()).thenComparingInt(VmotionObservation::lineNumber);

  private static VmotionPhases phases(Migration m, List<VmotionObservation> mine) {
    Instant precopy = first(mine, VmotionObservation::precopyStart);
    Instant stunStart = first(mine, VmotionObservation::stunStart);
    Instant stunned = first(mine, VmotionObservation::stunned);
    Instant unstun = first(mine, VmotionObservation::unstun);
    Long micros = first(mine, VmotionObservation::stunMicros);
    Instant start = precopy != null ? precopy : m.startTime();
    return new VmotionPhases(start, stunStart, stunned, unstun, seconds(start, stunStart), seconds(stunStart, stunned),
        micros == null ? null : micros / 1_000_000.0, first(mine, VmotionObservation::destinationWaitSeconds));
  }

  private static MigrationFailure failure(Migration m, List<VmotionObservation> mine) {
    if (m.state() != MigrationState.FAILED) {
      return null;
    }
    List<LogMessage> messages = mine.stream().flatMap(v -> v.failureMessages().stream()).toList();
    LogMessage named = messages.stream()
        .filter(x -> FailureCause.ofLogMessage(x.id(), x.text()) != FailureCause.OTHER).findFirst()
        .orElse(messages.isEmpty() ? null : messages.get(0));
    if (named != null) {
      return new MigrationFailure(FailureCause.ofLogMessage(named.id(), named.text()), named.id(), named.text(),
          MigrationFailure.Source.VMWARE_LOG);
    }
    return new MigrationFailure(FailureCause.ofVcenter(m.faultType(), m.failureReason()), m.faultType(),
        m.failureReason(), MigrationFailure.Source.VCENTER);
  }

  private static <T> T first(List<VmotionObservation> l, Function<VmotionObservation, T> f) {
    return l.stream().map(f).filter(Objects::nonNull).findFirst().orElse(null);
  }

  /** Seconds from {@code a} to {@code b}; null without both, or when the clocks put them the wrong way round. */
  private static Double seconds(Instant a, Instant b) {
    return a == null || b == null || b.isBefore(a) ? null : Duration.between(a, b).toMillis() / 1000.0;
  }

  /** How far before a migration's start the guest's last sample may be for its samples to cover the migration. */
  static final long COVER_BEFORE_SECONDS = 60;

  /**
   * The largest gap between guest GPU samples from the second before the start to 30 s after the end, less the
   * one-second sampling step; unknown unless the samples cover the migration (one at most a minute before its start,
   * or at it, and one at or after its end, within 30 s) and two of them fall there. Samples that have not arrived
   * yet are no gap: without that cover a gap estimate would say 0 s, or a gap's share, of a stun it did not see.
   */
  static StunTime gapEstimate(Migration m, List<VmSamples.Point> points) {
    if (m.endTime() == null) {
      return new StunTime(null, StunTime.Source.UNKNOWN); // no end: no range to cover
    }
    Instant end = m.endTime();
    long prev = -1;
    long maxGap = -1;
    long last = end.getEpochSecond() + 30;
    long start = m.startTime().getEpochSecond();
    boolean before = false;
    boolean after = false;
    for (VmSamples.Point p : points) {
      if (p.samples() == 0) {
        continue; // a second with throughput but no GPU sample
      }
      before |= p.epochSecond() >= start - COVER_BEFORE_SECONDS && p.epochSecond() <= start;
      after |= p.epochSecond() >= end.getEpochSecond() && p.epochSecond() <= last;
      if (p.epochSecond() >= m.startTime().getEpochSecond() - 1 && p.epochSecond() <= last) {
        if (prev >= 0) {
          maxGap = Math.max(maxGap, p.epochSecond() - prev);
        }
        prev = p.epochSecond();
      }
    }
    if (maxGap < 0 || !before || !after) {
      return new StunTime(null, StunTime.Source.UNKNOWN);
    }
    return new StunTime((double) Math.max(0, maxGap - 1), StunTime.Source.SAMPLE_GAP_ESTIMATE);
  }

  private static long distance(StunObservation s, Instant end) {
    return Math.abs(Duration.between(end, s.timestamp()).toMillis());
  }

  private static PhaseStats phase(List<VmSamples.Point> points, Instant from, Instant to, boolean total) {
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
      Double rate = p.throughput(total);
      if (rate != null) {
        tp += rate;
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
