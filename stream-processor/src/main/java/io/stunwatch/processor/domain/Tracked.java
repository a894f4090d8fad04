package io.stunwatch.processor.domain;

import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.json.Schema;
import io.stunwatch.processor.readmodel.StoreNames;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Small state-store values of the migration processor. */
public final class Tracked {

  private Tracked() {
  }

  /**
   * A migration being tracked by {@link StoreNames#TRACKED}: open until it ends or times out, then settling until
   * {@code dueAtMillis}.
   *
   * @param migrationId  the migration
   * @param vmKey        its VM's key (VM id) in the per-VM stores
   * @param ended        whether it has ended (settling) or is still open
   * @param dueAtMillis  event time at which to act: settle window over, or timeout reached
   * @param provisional  its impact was closed before every kind of the VM's samples (GPU, throughput, RDMA) had
   *                     passed its range: it is rebuilt as each further kind does, until the history no longer holds
   *                     the range
   * @param alertPending its alert window's samples had not all arrived at its first event: the alert is decided
   *                     when they have
   * @param kindsPassed  of a provisional impact, the kinds of sample (a bit each) that had passed its range when it
   *                     was last built
   */
  @Schema(name = "store.tracked-migration")
  public record Migration(String migrationId, String vmKey, boolean ended, long dueAtMillis, boolean provisional,
      boolean alertPending, int kindsPassed) {

    Migration(String migrationId, String vmKey, boolean ended, long dueAtMillis) {
      this(migrationId, vmKey, ended, dueAtMillis, false, false, 0);
    }

    public Migration asProvisional(int kinds) {
      return new Migration(migrationId, vmKey, ended, dueAtMillis, true, alertPending, kinds);
    }

    public Migration withAlertPending(boolean pending) {
      return new Migration(migrationId, vmKey, ended, dueAtMillis, provisional, pending, kindsPassed);
    }
  }

  /**
   * What a VM's hosts logged of its recent migrations: its stun observations, its vMotion observations (vmware.log)
   * and the precopy bandwidths joined to them by vMotion id (vmkernel.log), each newest last, at most {@value #MAX}
   * stuns and {@value #MAX_VMOTIONS} of each other kind.
   *
   * @param stuns      the stun observations
   * @param vmotions   the vMotion observations
   * @param bandwidths the precopy bandwidths of its vMotions
   */
  @Schema(name = "store.vm-stuns")
  public record Stuns(List<StunObservation> stuns, List<VmotionObservation> vmotions,
      List<VmotionBandwidth> bandwidths) {
    static final int MAX = 50;
    static final int MAX_VMOTIONS = 20;

    public Stuns {
      stuns = List.copyOf(stuns == null ? List.of() : stuns);
      vmotions = List.copyOf(vmotions == null ? List.of() : vmotions);
      bandwidths = List.copyOf(bandwidths == null ? List.of() : bandwidths);
    }

    public Stuns(List<StunObservation> stuns) {
      this(stuns, null, null);
    }

    /**
     * The stuns with {@code s}, unless it is one already kept: the same figure from the same kind of line at the same
     * time. Where it was read may differ: a log read again from another byte, or the rotated copy of it.
     */
    public Stuns with(StunObservation s) {
      List<StunObservation> out = new ArrayList<>(stuns);
      if (out.stream().noneMatch(k -> same(k, s))) {
        out.add(s);
      }
      return new Stuns(last(out, MAX), vmotions, bandwidths);
    }

    /**
     * These with {@code v}, unless it says what one kept says already: a log read again from another byte, or its
     * rotated copy, gives the same lines under another name.
     */
    public Stuns with(VmotionObservation v) {
      List<VmotionObservation> out = new ArrayList<>(vmotions);
      if (out.stream().anyMatch(k -> sameLines(k, v))) {
        return this;
      }
      out.add(v);
      return new Stuns(stuns, last(out, MAX_VMOTIONS), bandwidths);
    }

    /** These with {@code b}, in place of what the same host said of the same vMotion. */
    public Stuns with(VmotionBandwidth b) {
      List<VmotionBandwidth> out = new ArrayList<>(bandwidths);
      out.removeIf(k -> k.vmotionId().equals(b.vmotionId()) && Objects.equals(k.hostname(), b.hostname()));
      out.add(b);
      return new Stuns(stuns, vmotions, last(out, MAX_VMOTIONS));
    }

    /** What is dated at or after {@code cutoff}. */
    public Stuns since(Instant cutoff) {
      return new Stuns(stuns.stream().filter(s -> !s.timestamp().isBefore(cutoff)).toList(),
          vmotions.stream().filter(v -> !v.timestamp().isBefore(cutoff)).toList(),
          bandwidths.stream().filter(b -> !b.timestamp().isBefore(cutoff)).toList());
    }

    public boolean isEmpty() {
      return stuns.isEmpty() && vmotions.isEmpty() && bandwidths.isEmpty();
    }

    private static <T> List<T> last(List<T> l, int max) {
      return l.size() > max ? l.subList(l.size() - max, l.size()) : l;
    }
  }

  private static boolean sameLines(VmotionObservation a, VmotionObservation b) {
    return Objects.equals(a.vmotionId(), b.vmotionId()) && a.timestamp().equals(b.timestamp())
        && Objects.equals(a.precopyStart(), b.precopyStart()) && Objects.equals(a.restoreStart(), b.restoreStart())
        && Objects.equals(a.stunStart(), b.stunStart()) && Objects.equals(a.stunned(), b.stunned())
        && Objects.equals(a.unstun(), b.unstun()) && Objects.equals(a.stunMicros(), b.stunMicros())
        && Objects.equals(a.destinationWaitSeconds(), b.destinationWaitSeconds())
        && a.failureMessages().equals(b.failureMessages()) && Objects.equals(a.vmMoref(), b.vmMoref());
  }

  private static boolean same(StunObservation a, StunObservation b) {
    return a.timestamp() == null || b.timestamp() == null ? a.equals(b)
        : a.timestamp().equals(b.timestamp()) && a.stunMicros() == b.stunMicros() && a.source() == b.source()
            && Objects.equals(a.vmMoref(), b.vmMoref());
  }

  /**
   * A VM's most recent migrations, newest last, at most {@value #MAX}.
   *
   * @param migrationIds the ids
   */
  @Schema(name = "store.vm-migrations")
  public record Recent(List<String> migrationIds) {
    static final int MAX = 20;

    public Recent {
      migrationIds = List.copyOf(migrationIds == null ? List.of() : migrationIds);
    }

    public Recent with(String id) {
      if (migrationIds.contains(id)) {
        return this;
      }
      List<String> out = new ArrayList<>(migrationIds);
      out.add(id);
      return new Recent(out.size() > MAX ? out.subList(out.size() - MAX, out.size()) : out);
    }

    /** The ids but {@code id}. */
    public Recent without(String id) {
      List<String> out = new ArrayList<>(migrationIds);
      out.remove(id);
      return new Recent(out);
    }
  }

  /**
   * vCenter-side records of one VM held for its inventory entry, oldest first.
   *
   * @param values     each record's value as its topic encodes it
   * @param timestamps each record's timestamp
   * @param sinceWall  wall time the first was held at
   */
  @Schema(name = "store.inventory-held")
  public record Held(List<String> values, List<Long> timestamps, long sinceWall) {

    public Held {
      values = List.copyOf(values == null ? List.of() : values);
      timestamps = List.copyOf(timestamps == null ? List.of() : timestamps);
    }

    public Held with(String value, long timestamp) {
      List<String> v = new ArrayList<>(values);
      v.add(value);
      List<Long> t = new ArrayList<>(timestamps);
      t.add(timestamp);
      return new Held(v, t, sinceWall);
    }
  }

  /**
   * The key a migration's events go under, once its first event went: one chain is never two records.
   *
   * @param key    the VM id, or {@code vc:<vcenter>/<moref>}
   * @param millis event time of its first event, for pruning
   */
  @Schema(name = "store.chain-route")
  public record Route(String key, long millis) {
  }

  /**
   * The VM a vMotion id belongs to, as its vmware.log said: sent from the VM's partition to the id's, where the
   * source host's bandwidth waits.
   *
   * @param vmKey the key the VM's records go under
   */
  @Schema(name = "store.vmotion-claim")
  public record Claim(String vmKey) implements ById {
  }

  /** What reaches a vMotion id's task: a VM's claim on the id, or a source host's bandwidth for it. */
  public sealed interface ById permits Claim, Bandwidth {
  }

  /** A source host's precopy bandwidth, as read from vmkernel.log, on its way to the id's task. */
  public record Bandwidth(VmotionBandwidth value) implements ById {
  }

  /**
   * One vMotion id's join: the bandwidths its source host logged and the VM it belongs to, once known.
   *
   * @param bandwidths what the hosts logged of it, newest last
   * @param vmKey      the VM, absent until its vmware.log names the id
   * @param millis     event time of its newest record, for pruning
   */
  @Schema(name = "store.vmotion-id")
  public record VmotionId(List<VmotionBandwidth> bandwidths, String vmKey, long millis) {

    public VmotionId {
      bandwidths = List.copyOf(bandwidths == null ? List.of() : bandwidths);
    }
  }
}
