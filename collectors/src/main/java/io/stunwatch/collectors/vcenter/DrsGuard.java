package io.stunwatch.collectors.vcenter;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.VcenterCheckpoint.Maintenance;
import io.stunwatch.model.VcenterCheckpoint.Protection;
import io.stunwatch.model.VmInventoryEntry;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRS guard of one vCenter as a collector runs it: the decisions read from {@code stunwatch.guard-decisions}
 * ({@link GuardDecisionFeed}) and applied to the vCenter's per-VM DRS overrides by {@link GuardApplier}, each audit
 * record counted ({@link Meters#GUARD_ACTIONS}) and logged, a refusal as a warning.
 *
 * <p>Where the audit records and the protections go is the caller's {@link Commit}: {@code collect vcenter} commits
 * them in one transaction with the vCenter's checkpoint; the demo publishes them from its simulated vCenter.
 *
 * <p>One thread: the caller's poll loop.
 */
public final class DrsGuard implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DrsGuard.class);

  /** Publishes the audit records with the protections now recorded; a failure leaves both as they were. */
  @FunctionalInterface
  public interface Commit {
    void commit(List<GuardAction> actions, List<Protection> protections);
  }

  private final GuardApplyConfig config;
  private final GuardApplier applier;
  /** Null for a guard that only releases ({@link #forRelease}). */
  private final GuardDecisionFeed decisions;
  private final String vcenter;
  private final String tag;
  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<String, Counter> actions = new ConcurrentHashMap<>();
  private volatile Instant decisionsReadAt;

  private DrsGuard(GuardApplyConfig config, Clock clock, String vcenterUuid, GuardDecisionFeed decisions,
      String vcenter, String tag, MeterRegistry registry) {
    this.config = config;
    this.applier = new GuardApplier(config, clock, vcenterUuid);
    this.decisions = decisions;
    this.vcenter = vcenter;
    this.tag = tag;
    this.registry = registry;
    this.clock = clock;
    this.decisionsReadAt = decisions == null ? null : clock.instant();
  }

  /**
   * Starts reading the decisions, every one there is first (the compacted topic holds each VM's newest).
   *
   * @param vcenterUuid the vCenter's instance UUID, in the audit records
   * @param vcenter     the vCenter as the log names it (its URL)
   * @param tag         its {@link Meters#TAG_VCENTER} value
   * @param kafka       the Kafka client properties to read the decisions with
   */
  public static DrsGuard open(GuardApplyConfig config, Clock clock, String vcenterUuid, String vcenter, String tag,
      Map<String, Object> kafka, MeterRegistry registry) {
    Counter undecodable = Counter.builder(Meters.GUARD_DECISIONS_UNDECODABLE).tag(Meters.TAG_VCENTER, tag)
        .register(registry);
    DrsGuard g = new DrsGuard(config, clock, vcenterUuid, GuardDecisionFeed.open(kafka, undecodable::increment),
        vcenter, tag, registry);
    LOG.info("vCenter {}: applying the DRS guard's decisions ({})", vcenter,
        config.mode() == GuardApplyConfig.Mode.ENFORCE ? "enforce" : "dry-run: vCenter is not touched");
    return g;
  }

  /** A guard that reads no decision, to release what was recorded ({@link #releaseAll}). */
  static DrsGuard forRelease(GuardApplyConfig config, Clock clock, String vcenterUuid, String vcenter, String tag,
      MeterRegistry registry) {
    return new DrsGuard(config, clock, vcenterUuid, null, vcenter, tag, registry);
  }

  /**
   * When a decision was last read, or reading began if none has been since; null for a guard that reads none. Saved
   * with the protections, it tells protections held with nobody deciding on them.
   */
  public Instant decisionsReadAt() {
    return decisionsReadAt;
  }

  /**
   * A host's maintenance-mode event: a host entering it has its VMs released at the next pass, and none protected
   * there until it leaves it.
   *
   * @return whether it was new
   */
  public boolean maintenance(VimEventMapper.Maintenance m) {
    if (!applier.maintenance(m)) {
      return false;
    }
    LOG.info("vCenter {}: host {} {} maintenance mode: the guard {}", vcenter,
        m.host().name() != null ? m.host().name() : m.host().value(), m.entering() ? "enters" : "left",
        m.entering() ? "releases its VMs and protects none there" : "may protect its VMs again");
    return true;
  }

  /** The hosts entering or in maintenance mode, as the checkpoint keeps them. */
  public List<Maintenance> hostsInMaintenance() {
    return applier.hostsInMaintenance();
  }

  /** The hosts a checkpoint recorded in maintenance mode, when the collector starts. */
  public void restoreMaintenance(List<Maintenance> recorded) {
    applier.restoreMaintenance(recorded);
    if (!recorded.isEmpty() && decisions != null) {
      LOG.info("vCenter {}: the guard protects no VM on {}, in maintenance mode as last seen", vcenter,
          recorded.stream().map(m -> m.hostName() != null ? m.hostName() : m.hostMoref()).toList());
    }
  }

  /**
   * Reads the decisions that came since the last pass, then applies them ({@link GuardApplier#pass}).
   *
   * @param vms      this vCenter's VMs by VM id (null for a VM of another vCenter)
   * @param recorded the protections recorded
   * @return the protections now recorded
   */
  public List<Protection> pass(DrsOverrideControl c, Function<String, VmInventoryEntry> vms,
      List<Protection> recorded, Commit commit) throws IOException {
    if (decisions != null) {
      List<GuardDecision> read = decisions.poll();
      if (!read.isEmpty()) {
        decisionsReadAt = clock.instant();
      }
      read.forEach(applier::decided);
    }
    return applier.pass(c, vms, recorded, audited(commit));
  }

  /** Releases every recorded protection, whatever the decisions say ({@link GuardApplier#releaseAll}). */
  public List<Protection> releaseAll(DrsOverrideControl c, Function<String, VmInventoryEntry> vms,
      List<Protection> recorded, Commit commit, String why) throws IOException {
    return applier.releaseAll(c, vms, recorded, audited(commit), why);
  }

  private GuardApplier.Commit audited(Commit commit) {
    return (done, protections) -> {
      commit.commit(done, protections);
      for (GuardAction a : done) {
        actions.computeIfAbsent(a.kind() + "/" + a.result(), k -> Counter.builder(Meters.GUARD_ACTIONS)
            .tag(Meters.TAG_VCENTER, tag).tag(Meters.TAG_KIND, a.kind().name().toLowerCase(Locale.ROOT))
            .tag(Meters.TAG_RESULT, a.result().name().toLowerCase(Locale.ROOT)).register(registry)).increment();
        if (a.result() == GuardAction.Result.REFUSED) {
          LOG.warn("vCenter {}: guard {} {} ({}): {}: {} (not asked again for {} min)", vcenter, a.kind(),
              a.vmName(), a.vmMoref(), a.result(), a.why(), GuardApplier.RETRY_REFUSED.toMinutes());
        } else {
          LOG.info("vCenter {}: guard {} {} ({}): {}: {}", vcenter, a.kind(), a.vmName(), a.vmMoref(), a.result(),
              a.why());
        }
      }
    };
  }

  /** The guard's configuration. */
  public GuardApplyConfig config() {
    return config;
  }

  @Override
  public void close() {
    if (decisions != null) {
      decisions.close();
    }
  }
}
