package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The stun-time model of one group of migrations: a vGPU profile, a profile and framebuffer-used bucket, or a host
 * pair. Compacted topic keyed by {@link #key()}, read back by the processor for forecasts and by the API.
 *
 * @param group          which grouping
 * @param groupKey       e.g. {@code T4-16C}, {@code T4-16C|8-16GiB}, {@code esx01->esx02}
 * @param observations   migrations with a known stun time and framebuffer
 * @param p50Seconds     median stun, seconds
 * @param p95Seconds     95th percentile stun, seconds
 * @param p50SecondsPerGiB median of stun seconds per GiB of framebuffer used
 * @param p95SecondsPerGiB 95th percentile of the same
 * @param fittedSecondsPerGiB least-squares slope through the origin of stun seconds on framebuffer GiB
 * @param recent         the newest observations the figures come from (at most 200)
 * @param updatedAt      event time of the newest observation
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
    Instant updatedAt) {

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
    PROFILE,
    FB_BUCKET,
    HOST_PAIR
  }

  /**
   * One migration in the model.
   *
   * @param migrationId the migration
   * @param stunSeconds its stun time
   * @param fbUsedGiB   framebuffer used when it started, GiB
   * @param source      where the stun time comes from
   */
  public record Observation(String migrationId, double stunSeconds, double fbUsedGiB, StunTime.Source source) {
  }
}
