package io.stunwatch.processor.readmodel;

import io.stunwatch.model.Migration;
import java.util.List;
import java.util.Locale;

/**
 * One migration as a Grafana region annotation (start to end), in the fields Grafana's Infinity datasource maps.
 * Rendered into each {@link MigrationRow} when it is written; {@code GET /api/grafana/annotations} answers with it.
 *
 * @param time        start, epoch ms
 * @param timeEnd     end (the start while running), epoch ms
 * @param title       {@code vMotion <vm> <state>}
 * @param text        hosts, initiator, stun time and whether it ran under load
 * @param tags        {@code vmotion}, the initiator, the state, and {@code under-load} when it was
 * @param tagsJoined  the tags joined by commas, which is how Grafana reads tags from a data frame: Infinity's
 *                    backend parser renders an array as its JSON text, whatever the column's type
 * @param migrationId the migration, for a link to its drill-down
 * @param vmId        the VM
 */
public record MigrationAnnotation(long time, long timeEnd, String title, String text, List<String> tags,
    String tagsJoined, String migrationId, String vmId) {

  /** The annotation of {@code s}, whose migration has a start time. */
  public static MigrationAnnotation of(MigrationSummary s) {
    Migration m = s.migration();
    String text = (m.sourceHost() == null ? "?" : m.sourceHost().name()) + " → "
        + (m.destHost() == null ? "?" : m.destHost().name()) + ", " + m.initiator()
        + (s.stun() != null && s.stun().seconds() != null ? ", stun " + s.stun().seconds() + " s" : "")
        + (s.underLoad() ? ", under load" : "");
    String initiator = String.valueOf(m.initiator()).toLowerCase(Locale.ROOT);
    String state = m.state().name().toLowerCase(Locale.ROOT);
    List<String> tags = s.underLoad() ? List.of("vmotion", initiator, state, "under-load")
        : List.of("vmotion", initiator, state);
    return new MigrationAnnotation(m.startTime().toEpochMilli(),
        (m.endTime() != null ? m.endTime() : m.startTime()).toEpochMilli(), "vMotion " + m.vmName() + " " + m.state(),
        text, tags, String.join(",", tags), m.id(), m.vmId());
  }
}
