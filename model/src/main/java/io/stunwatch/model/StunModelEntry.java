package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The stun-time model of one group of migrations: a vGPU profile, a profile and framebuffer-used bucket, a host
 * pair, or the whole site. Compacted topic keyed by {@link #key()}, read back by the processor for forecasts and by the API.
 *
 * @param group          which grouping
 * @param groupKey       e.g. {@code T4-16C}, {@code T4-16C|8-16GiB}, {@code esx01->esx02}, {@code all}
 * @param observations   migrations with a known stun time and framebuffer
 * @param p50Seconds     median stun, seconds
 * @param p95Seconds     95th percentile stun, seconds
 * @param p50SecondsPerGiB median of stun seconds per GiB of framebuffer used
 * @param p95SecondsPerGiB 95th percentile of the same
 * @param fittedSecondsPerGiB least-squares slope through the origin of stun seconds on framebuffer GiB (a summary;
 *                       forecasts fit their own line to {@code recent}, see the processor's {@code Forecasts})
 * @param recent         the newest observations the figures come from (at most 200)
 * @param updatedAt      event time of the newest observation
 * @param p50BandwidthMBps median precopy bandwidth of {@code recent}, MB/s as the source hosts' vmkernel.log printed
 *                       it; for a {@link Group#HOST_PAIR} group, what that pair of hosts really reaches. Null without
 *                       one
 */
@Schema(name = "stun-model-entry")
public record StunModelEntry(
    Group group,
    String groupKey,
    long observations,
    Double p50Seconds,
    Double p95Seconds,
    Double p50SecondsPerGiB,
    Double p95SecondsPerGiB,
    Double fittedSecondsPerGiB,
    List<Observation> recent,
    Instant updatedAt,
    Double p50BandwidthMBps) {

  /** An entry with no measured bandwidth. */
  public StunModelEntry(Group group, String groupKey, long observations, Double p50Seconds, Double p95Seconds,
      Double p50SecondsPerGiB, Double p95SecondsPerGiB, Double fittedSecondsPerGiB, List<Observation> recent,
      Instant updatedAt) {
    this(group, groupKey, observations, p50Seconds, p95Seconds, p50SecondsPerGiB, p95SecondsPerGiB,
        fittedSecondsPerGiB, recent, updatedAt, null);
  }

  public StunModelEntry {
    Checks.required(group, "group");
    Checks.requiredText(groupKey, "groupKey");
    recent = Checks.list(recent);
    Checks.required(updatedAt, "updatedAt");
  }

  /** The Kafka key: {@code <group>:<groupKey>}. */
  public String key() {
    return group.name().toLowerCase(Locale.ROOT) + ":" + groupKey;
  }

  /** How migrations are grouped for the model. */
  public enum Group {
    /** One vGPU profile, e.g. {@code T4-16C}. */
    PROFILE,
    /** A profile and framebuffer-used bucket, e.g. {@code T4-16C|8-16GiB}. */
    FB_BUCKET,
    /** A source and destination host, e.g. {@code esx01->esx02}, whatever the profile. */
    HOST_PAIR,
    /** Every migration of the site, key {@code all}: what the site's own stuns say of a profile it has not moved. */
    SITE
  }

  /** The key of the {@link Group#SITE} group. */
  public static final String SITE_KEY = "all";

  /**
   * One migration in the model.
   *
   * @param migrationId the migration
   * @param stunSeconds its stun time
   * @param fbUsedGiB   framebuffer used when it started, GiB
   * @param source      where the stun time comes from
   * @param at          when the migration started; null in entries written before it was recorded
   * @param hostPair    {@code <source host>-><destination host>} by name, when both are known
   * @param linkMbps    the slower of the two hosts' vMotion uplinks, Mbit/s, when the inventory knew both
   * @param bandwidthMBps the precopy bandwidth the source host measured, MB/s, when its vmkernel.log was read
   */
  public record Observation(String migrationId, double stunSeconds, double fbUsedGiB, StunTime.Source source,
      Instant at, String hostPair, Long linkMbps, Double bandwidthMBps) {

    /** An observation without a measured bandwidth. */
    public Observation(String migrationId, double stunSeconds, double fbUsedGiB, StunTime.Source source,
        Instant at, String hostPair, Long linkMbps) {
      this(migrationId, stunSeconds, fbUsedGiB, source, at, hostPair, linkMbps, null);
    }

    /** An observation without its start, hosts or link. */
    public Observation(String migrationId, double stunSeconds, double fbUsedGiB, StunTime.Source source) {
      this(migrationId, stunSeconds, fbUsedGiB, source, null, null, null, null);
    }
  }
}
