package io.stunwatch.processor.domain;

import io.stunwatch.model.Keys;
import io.stunwatch.model.Migration;
import io.stunwatch.processor.readmodel.ForecastInputs;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunModelEntry.Group;
import io.stunwatch.model.StunModelEntry.Observation;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Schema;
import io.stunwatch.processor.readmodel.Forecasts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * The stun-time model: which groups an impact feeds and how an entry is updated. {@link Forecasts} reads it.
 */
public final class StunModel {

  /** Observations kept per group. */
  static final int RECENT = 200;

  private StunModel() {
  }

  /**
   * One impact's contribution to one group: the repartitioned value of the model's sub-topology.
   *
   * @param group       the grouping
   * @param groupKey    the group
   * @param observation the impact's figures
   * @param at          its event time
   */
  @Schema(name = "internal.stun-model-input")
  public record Input(Group group, String groupKey, Observation observation, Instant at) {

    public String key() {
      return new StunModelEntry(group, groupKey, 0, null, null, null, null, null, null, at).key();
    }
  }

  /**
   * The groups an impact feeds: only a {@code vmware.log} figure of a migration that succeeded, with its framebuffer
   * known. A gap in guest samples is an estimate (a guest that stops sampling under load looks stunned), and a failed
   * or unknown migration's stun says nothing of the time a completed one takes.
   */
  public static List<Input> inputs(MigrationImpact i) {
    return inputs(i, host -> null);
  }

  /**
   * As {@link #inputs(MigrationImpact)}, each observation with its start, host pair and link speed.
   *
   * @param linkMbps a host's vMotion uplink speed, Mbit/s, by its inventory key ({@code <vcenter>/<moref>}), or null
   */
  public static List<Input> inputs(MigrationImpact i, Function<String, Long> linkMbps) {
    if (i.stun().source() != StunTime.Source.VMWARE_LOG || i.migration().state() != MigrationState.SUCCEEDED
        || i.before() == null || i.before().fbUsedMiB() == null) {
      return List.of();
    }
    double gib = i.before().fbUsedMiB() / 1024.0;
    Migration m = i.migration();
    String pair = hostPair(m);
    Observation o = new Observation(m.id(), i.stun().seconds(), gib, i.stun().source(), m.startTime(), pair,
        linkMbps(m, linkMbps), i.vmotionBandwidthMBps());
    List<Input> out = new ArrayList<>();
    out.add(new Input(Group.SITE, StunModelEntry.SITE_KEY, o, i.settledAt()));
    String profile = i.migration().vgpuProfile();
    if (profile != null) {
      out.add(new Input(Group.PROFILE, profile, o, i.settledAt()));
      out.add(new Input(Group.FB_BUCKET, profile + "|" + Forecasts.bucket(gib), o, i.settledAt()));
    }
    if (pair != null) {
      out.add(new Input(Group.HOST_PAIR, pair, o, i.settledAt()));
    }
    return out;
  }

  /** {@code <source>-><destination>} by host name (else moref), or null unless both hosts are known. */
  public static String hostPair(Migration m) {
    return ForecastInputs.hostPair(m.sourceHost(), m.destHost());
  }

  /**
   * The slower of the two hosts' vMotion uplinks, Mbit/s, or null unless both are known.
   *
   * @param linkMbps a host's uplink speed by its inventory key ({@code <vcenter>/<moref>}), or null
   */
  public static Long linkMbps(Migration m, Function<String, Long> linkMbps) {
    Long from = m.sourceHost() == null ? null : linkMbps.apply(Keys.host(m.vcenterUuid(), m.sourceHost().value()));
    Long to = m.destHost() == null ? null : linkMbps.apply(Keys.host(m.vcenterUuid(), m.destHost().value()));
    return from == null || to == null ? null : Math.min(from, to);
  }

  /**
   * The entry with one more observation; unchanged when that migration is already in it, unless the new one is
   * another {@code vmware.log} figure for it (a revised impact).
   */
  public static StunModelEntry update(StunModelEntry old, Input in) {
    List<Observation> recent = new ArrayList<>(old == null ? List.of() : old.recent());
    int seen = -1;
    for (int i = 0; i < recent.size(); i++) {
      if (recent.get(i).migrationId().equals(in.observation().migrationId())) {
        seen = i;
      }
    }
    boolean revision = seen >= 0;
    if (revision) {
      // A migration counts once; a later vmware.log figure (a revised impact) replaces its earlier figure.
      if (in.observation().source() != StunTime.Source.VMWARE_LOG || recent.get(seen).equals(in.observation())) {
        return old;
      }
      recent.set(seen, in.observation());
    } else {
      recent.add(in.observation());
    }
    // The newest by start, not by arrival: a replay that delivers impacts in another order keeps the same stuns.
    recent.sort(Forecasts.CHRONOLOGICAL);
    if (recent.size() > RECENT) {
      recent = recent.subList(recent.size() - RECENT, recent.size());
    }
    double[] stun = recent.stream().mapToDouble(Observation::stunSeconds).sorted().toArray();
    double[] perGib = recent.stream().filter(o -> o.fbUsedGiB() > 0)
        .mapToDouble(o -> o.stunSeconds() / o.fbUsedGiB()).sorted().toArray();
    double sxy = 0;
    double sxx = 0;
    // Summed in one canonical order: floating-point sums depend on order, and the model must not depend on the
    // order impacts arrived in.
    for (Observation o : recent.stream().sorted(Comparator.comparing(Observation::migrationId)).toList()) {
      sxy += o.fbUsedGiB() * o.stunSeconds();
      sxx += o.fbUsedGiB() * o.fbUsedGiB();
    }
    double[] bandwidth = recent.stream().filter(o -> o.bandwidthMBps() != null)
        .mapToDouble(Observation::bandwidthMBps).sorted().toArray();
    Instant updated = old == null || in.at().isAfter(old.updatedAt()) ? in.at() : old.updatedAt();
    return new StunModelEntry(in.group(), in.groupKey(), (old == null ? 0 : old.observations()) + (revision ? 0 : 1),
        quantile(stun, 0.5), quantile(stun, 0.95), quantile(perGib, 0.5), quantile(perGib, 0.95),
        sxx == 0 ? null : sxy / sxx, recent, updated, quantile(bandwidth, 0.5));
  }

  /** Nearest-rank quantile; null for no data. */
  static Double quantile(double[] sorted, double q) {
    if (sorted.length == 0) {
      return null;
    }
    int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
