package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.VcenterCheckpoint.Maintenance;
import io.stunwatch.model.VcenterCheckpoint.Protection;
import io.stunwatch.model.VmInventoryEntry;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Applies the DRS guard's decisions ({@code stunwatch.guard-decisions}) in one vCenter, from {@code collect vcenter}'s
 * poll loop: a per-VM {@code manual} DRS override while a VM is protected, the override it replaced restored after.
 *
 * <p>It never fights the admin. A VM that already has an override the guard did not set is left alone and reported
 * ({@link GuardAction.Result#LEFT_TO_ADMIN}). What the guard sets is recorded, with what it replaced, in the vCenter's
 * checkpoint ({@link Protection}) before vCenter is asked, so that a collector killed in between finds it again:
 * releasing restores exactly the override replaced, or removes the one added, and an override the admin changed since
 * is left as it is. A protection is released when its VM is released, or when its VM has had no decision for
 * {@code guard.max-hold} (its readings or the processor stopped). A decision older than {@code guard.max-decision-age}
 * by this collector's clock starts nothing: a replay of last month's readings does not touch today's cluster.
 * vCenter's refusal (a missing privilege) is reported and not tried again for {@link #RETRY_REFUSED}. A host
 * entering maintenance mode has its VMs released at once, and none protected until it leaves it, so that its
 * evacuation is never blocked.
 *
 * <p>Each change and report is an audit record ({@link GuardAction}); in dry-run they are the same records and
 * vCenter is not touched.
 */
final class GuardApplier {

  /** How long a change vCenter refused is not asked again. */
  static final Duration RETRY_REFUSED = Duration.ofMinutes(10);

  /** Publishes audit records and the protections, in one transaction with the vCenter's checkpoint. */
  interface Commit {
    void commit(List<GuardAction> actions, List<Protection> protections);
  }

  private final GuardApplyConfig config;
  private final Clock clock;
  private final String vcenterUuid;
  /** The newest decision of each VM, by VM id. */
  private final Map<String, GuardDecision> latest = new HashMap<>();
  /** When vCenter last refused a change for a VM. */
  private final Map<String, Instant> refused = new HashMap<>();
  /** The VMs whose admin override was reported, with the protection it was reported for. */
  private final Set<String> reported = new HashSet<>();
  /** The hosts entering or in maintenance mode, by moref, with when they began to. */
  private final Map<String, Maintenance> maintenance = new HashMap<>();
  /** When each host last left maintenance mode, by moref. */
  private final Map<String, Instant> leftMaintenance = new HashMap<>();
  /** Whether the recorded protections were checked against vCenter since this collector started. */
  private boolean verified;

  GuardApplier(GuardApplyConfig config, Clock clock, String vcenterUuid) {
    this.config = config;
    this.clock = clock;
    this.vcenterUuid = vcenterUuid;
  }

  /** A decision read from the topic; an older one than the VM's newest changes nothing. */
  void decided(GuardDecision d) {
    latest.merge(d.vmId(), d, (was, now) -> now.at().isBefore(was.at()) ? was : now);
  }

  /**
   * A host entering maintenance mode: the VMs on it are released at the next pass and not protected while it is in
   * maintenance, so that its evacuation is never blocked; leaving it ends that.
   */
  boolean maintenance(VimEventMapper.Maintenance m) {
    String host = m.host().value();
    if (m.entering()) {
      Maintenance since = maintenance.get(host);
      Instant left = leftMaintenance.get(host);
      if ((since != null && !m.at().isBefore(since.since())) || (left != null && !m.at().isAfter(left))) {
        return false; // seen already, or older than the host's leaving
      }
      maintenance.put(host, new Maintenance(host, m.host().name(), m.at()));
      return true;
    }
    Instant left = leftMaintenance.get(host);
    if (left != null && !m.at().isAfter(left)) {
      return false;
    }
    leftMaintenance.put(host, m.at());
    Maintenance since = maintenance.get(host);
    if (since != null && !since.since().isAfter(m.at())) {
      maintenance.remove(host);
    }
    return true;
  }

  /** The hosts entering or in maintenance mode as seen so far, by moref: what a checkpoint keeps. */
  List<Maintenance> hostsInMaintenance() {
    return maintenance.values().stream().sorted(java.util.Comparator.comparing(Maintenance::hostMoref)).toList();
  }

  /**
   * The hosts a checkpoint recorded in maintenance mode, at a start: a host that entered it long before, its
   * evacuation perhaps still under way, is one still, until its leaving is read.
   */
  void restoreMaintenance(List<Maintenance> recorded) {
    recorded.forEach(m -> maintenance.merge(m.hostMoref(), m, (a, b) -> a.since().isAfter(b.since()) ? a : b));
  }

  private boolean inMaintenance(VmInventoryEntry vm) {
    return vm != null && vm.host() != null && maintenance.containsKey(vm.host().value());
  }

  /**
   * One pass over the decisions and the recorded protections: releases what is no longer wanted, protects what is,
   * committing each change through {@code commit}.
   *
   * @param vms      this vCenter's VMs by VM id (null for a VM of another vCenter)
   * @param recorded the protections recorded in the checkpoint
   * @return the protections now recorded
   */
  List<Protection> pass(DrsOverrideControl c, Function<String, VmInventoryEntry> vms, List<Protection> recorded,
      Commit commit) throws IOException {
    Instant now = clock.instant();
    Map<String, Protection> held = new LinkedHashMap<>();
    recorded.forEach(p -> held.put(p.vmId(), p));
    if (!verified) {
      verify(c, vms, held, commit, now);
      verified = true;
    }
    for (Protection p : List.copyOf(held.values())) {
      GuardDecision d = latest.get(p.vmId());
      VmInventoryEntry vm = vms.apply(p.vmId());
      boolean released = d != null && d.action() == GuardDecision.Action.RELEASE;
      boolean quiet = d == null || now.isAfter(d.at().plus(config.maxHold()));
      if (inMaintenance(vm)) {
        release(c, vm, p, d, "host " + (vm.host().name() != null ? vm.host().name() : vm.host().value())
            + " is entering maintenance mode: released so that its evacuation is never blocked", held, commit, now);
      } else if (released || quiet) {
        release(c, vm, p, d, released ? "released: below the thresholds as of "
            + d.at() : "no decision for " + config.maxHold().toMinutes()
            + " min: the VM's readings, or the processor, stopped", held, commit, now);
      }
    }
    for (GuardDecision d : List.copyOf(latest.values())) {
      if (d.action() == GuardDecision.Action.RELEASE || held.containsKey(d.vmId())
          || now.isAfter(d.at().plus(config.maxAge()))) {
        continue; // nothing to protect, protected already, or too old to act on
      }
      VmInventoryEntry vm = vms.apply(d.vmId());
      if (vm == null || vm.cluster() == null || !"ClusterComputeResource".equals(vm.cluster().type())
          || inMaintenance(vm)) {
        continue; // another vCenter's VM, a host without a DRS cluster, or one being evacuated
      }
      Instant lastRefused = refused.get(d.vmId());
      if (lastRefused != null && now.isBefore(lastRefused.plus(RETRY_REFUSED))) {
        continue;
      }
      protect(c, vm, d, held, commit, now);
    }
    return List.copyOf(held.values());
  }

  /**
   * Releases every recorded protection, whatever the decisions say ({@code stunwatch guard release --all}): each
   * override the guard set is restored to what it replaced, one the admin changed since is left as it is.
   *
   * @return the protections still recorded: those vCenter refused to release
   */
  List<Protection> releaseAll(DrsOverrideControl c, Function<String, VmInventoryEntry> vms, List<Protection> recorded,
      Commit commit, String why) throws IOException {
    Instant now = clock.instant();
    Map<String, Protection> held = new LinkedHashMap<>();
    recorded.forEach(p -> held.put(p.vmId(), p));
    for (Protection p : List.copyOf(held.values())) {
      release(c, vms.apply(p.vmId()), p, latest.get(p.vmId()), why, held, commit, now);
    }
    return List.copyOf(held.values());
  }

  private void protect(DrsOverrideControl c, VmInventoryEntry vm, GuardDecision d, Map<String, Protection> held,
      Commit commit, Instant now) throws IOException {
    String cluster = vm.cluster().value();
    DrsOverride current = c.drsOverrides(cluster).get(vm.moref());
    if (current != null) {
      if (reported.add(d.vmId() + "@" + d.protectedSince())) {
        commit.commit(List.of(action(vm, d, GuardAction.Kind.PROTECT, GuardAction.Result.LEFT_TO_ADMIN, null,
            current, "the VM has a DRS override the guard did not set (" + describe(current) + "): left as it is; "
            + because(d), now)), List.copyOf(held.values()));
      }
      return;
    }
    boolean dryRun = config.mode() == GuardApplyConfig.Mode.DRY_RUN;
    Protection p = new Protection(d.vmId(), vm.moref(), cluster, null, DrsOverride.MANUAL, now, dryRun);
    held.put(d.vmId(), p);
    if (dryRun) {
      commit.commit(List.of(action(vm, d, GuardAction.Kind.PROTECT, GuardAction.Result.DRY_RUN, DrsOverride.MANUAL,
          null, "would set DRS to manual for this VM (guard.mode=dry-run); " + because(d), now)),
          List.copyOf(held.values()));
      return;
    }
    commit.commit(List.of(), List.copyOf(held.values())); // recorded before vCenter is asked
    try {
      c.setDrsOverride(cluster, vm.moref(), null, DrsOverride.MANUAL);
    } catch (VcenterRefusedException e) {
      held.remove(d.vmId());
      refused.put(d.vmId(), now);
      commit.commit(List.of(action(vm, d, GuardAction.Kind.PROTECT, GuardAction.Result.REFUSED, null, null,
          e.getMessage(), now)), List.copyOf(held.values()));
      return;
    }
    commit.commit(List.of(action(vm, d, GuardAction.Kind.PROTECT, GuardAction.Result.APPLIED, DrsOverride.MANUAL,
        null, "DRS set to manual for this VM; " + because(d), now)), List.copyOf(held.values()));
  }

  private void release(DrsOverrideControl c, VmInventoryEntry vm, Protection p, GuardDecision d, String why,
      Map<String, Protection> held, Commit commit, Instant now) throws IOException {
    VmInventoryEntry known = vm != null ? vm : placeholder(p);
    if (p.dryRun()) {
      held.remove(p.vmId());
      commit.commit(List.of(action(known, d, GuardAction.Kind.RELEASE, GuardAction.Result.DRY_RUN, p.previous(),
          p.set(), "would restore " + describe(p.previous()) + " (guard.mode=dry-run); " + why, now)),
          List.copyOf(held.values()));
      return;
    }
    DrsOverride current = c.drsOverrides(p.clusterMoref()).get(p.vmMoref());
    if (!Objects.equals(current, p.set())) {
      held.remove(p.vmId());
      boolean restored = Objects.equals(current, p.previous());
      commit.commit(List.of(action(known, d, GuardAction.Kind.RELEASE, restored ? GuardAction.Result.APPLIED
          : GuardAction.Result.LEFT_TO_ADMIN, current, p.set(), restored ? "already " + describe(current) + "; "
          + why : "the override is no longer the one the guard set (" + describe(current) + "): left as it is; "
          + why, now)), List.copyOf(held.values()));
      return;
    }
    Instant lastRefused = refused.get(p.vmId());
    if (lastRefused != null && now.isBefore(lastRefused.plus(RETRY_REFUSED))) {
      return;
    }
    try {
      c.setDrsOverride(p.clusterMoref(), p.vmMoref(), current, p.previous());
    } catch (VcenterRefusedException e) {
      refused.put(p.vmId(), now);
      commit.commit(List.of(action(known, d, GuardAction.Kind.RELEASE, GuardAction.Result.REFUSED, null, current,
          e.getMessage(), now)), List.copyOf(held.values()));
      return;
    }
    held.remove(p.vmId());
    commit.commit(List.of(action(known, d, GuardAction.Kind.RELEASE, GuardAction.Result.APPLIED, p.previous(),
        current, "restored " + describe(p.previous()) + "; " + why, now)), List.copyOf(held.values()));
  }

  /**
   * The recorded protections against vCenter, once after a start: one recorded but never set (the collector stopped
   * between the two) is set now if it is still wanted, or forgotten.
   */
  private void verify(DrsOverrideControl c, Function<String, VmInventoryEntry> vms, Map<String, Protection> held,
      Commit commit, Instant now) throws IOException {
    boolean changed = false;
    for (Protection p : List.copyOf(held.values())) {
      if (p.dryRun()) {
        continue;
      }
      DrsOverride current = c.drsOverrides(p.clusterMoref()).get(p.vmMoref());
      if (Objects.equals(current, p.previous()) && !Objects.equals(current, p.set())) {
        GuardDecision d = latest.get(p.vmId());
        boolean wanted = d != null && d.action() != GuardDecision.Action.RELEASE
            && !now.isAfter(d.at().plus(config.maxHold()));
        if (wanted) {
          c.setDrsOverride(p.clusterMoref(), p.vmMoref(), current, p.set());
        } else {
          held.remove(p.vmId());
          changed = true;
        }
      }
    }
    if (changed) {
      commit.commit(List.of(), List.copyOf(held.values()));
    }
  }

  private GuardAction action(VmInventoryEntry vm, GuardDecision d, GuardAction.Kind kind, GuardAction.Result result,
      DrsOverride set, DrsOverride previous, String why, Instant now) {
    return new GuardAction(vm.biosUuid(), vcenterUuid, vm.moref(), vm.name(), vm.cluster(), kind, result, set,
        previous, d, why, now);
  }

  /** A VM no longer in the inventory, known from its protection. */
  private VmInventoryEntry placeholder(Protection p) {
    return new VmInventoryEntry(vcenterUuid, p.vmMoref(), null, p.vmId(), null, null,
        new EntityRef("ClusterComputeResource", p.clusterMoref(), null), null, null, null, List.of(), null,
        clock.instant());
  }

  private static String because(GuardDecision d) {
    StringBuilder b = new StringBuilder("under load (").append(String.join(", ", d.reasons().stream()
        .map(Enum::name).toList())).append(")");
    if (d.load().gpuUtilizationAvgPct() != null) {
      b.append(String.format(" at %.0f %% GPU", d.load().gpuUtilizationAvgPct()));
    }
    if (d.forecast() != null && d.forecast().p95Seconds() != null) {
      b.append(String.format(", forecast stun p95 %.0f s over %.0f s", d.forecast().p95Seconds(),
          d.maxStunSeconds()));
    }
    return b.toString();
  }

  private static String describe(DrsOverride o) {
    return o == null ? "no override" : "DRS " + (o.behavior() == null ? "default" : o.behavior().vimName())
        + (Boolean.FALSE.equals(o.enabled()) ? ", disabled" : "");
  }
}
