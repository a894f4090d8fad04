package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class MigrationRowTest {

  private static final Instant START = Instant.parse("2026-11-20T10:00:00.123456789Z");

  static MigrationSummary full() {
    return new MigrationSummary(new Migration("vc-1/chain-42", "vc-1", "vm-42", "trainer-ü-01",
        "4211c0de-0001-aaaa-bbbb-ccccddddeeee", "A100-40C", MigrationState.FAILED, Initiator.DRS, "DRS",
        Boolean.TRUE, new EntityRef("HostSystem", "host-1", "esx01"), new EntityRef("HostSystem", "host-2", null),
        new EntityRef("ClusterComputeResource", "domain-c7", "gpu"), null,
        new EntityRef("Datastore", "datastore-1", "vsan"), new EntityRef("Datastore", "datastore-2", "nfs"),
        START, START.plusMillis(95_500), "x".repeat(70_000), START.plusSeconds(96)), true,
        new StunTime(31.5, StunTime.Source.VMWARE_LOG), 30_000.0, -12.5, LoadSource.HOST);
  }

  static MigrationSummary sparse() {
    return new MigrationSummary(new Migration("vc-1/chain-43", "vc-1", "vm-43", null, null, null,
        MigrationState.IN_PROGRESS, Initiator.UNKNOWN, null, null, null, null, null, null, null, null, START, null, null, null),
        false, new StunTime(null, StunTime.Source.UNKNOWN), null, null);
  }

  private static byte[] stored(MigrationRow row) {
    return MigrationRow.SERDE.serializer().serialize("t", row);
  }

  private static byte[] json(MigrationRow row, boolean annotation) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (annotation) {
      row.writeAnnotation(out::write);
    } else {
      row.writeJson(out::write);
    }
    return out.toByteArray();
  }

  @Test
  void aStoredRowReadsBackEveryFieldAndEveryUnknown() throws Exception {
    for (MigrationSummary s : List.of(full(), sparse())) {
      MigrationRow row = MigrationRow.SERDE.deserializer().deserialize("t", stored(MigrationRow.of(s)));
      Migration m = s.migration();
      assertThat(row.summary()).isEqualTo(s);
      assertThat(List.of(row.id(), row.vmId() == null ? "-" : row.vmId(), row.vmMoref()))
          .containsExactly(m.id(), m.vmId() == null ? "-" : m.vmId(), m.vmMoref());
      assertThat(row.vmName()).isEqualTo(m.vmName());
      assertThat(row.vgpuProfile()).isEqualTo(m.vgpuProfile());
      assertThat(row.state()).isEqualTo(m.state());
      assertThat(row.initiator()).isEqualTo(m.initiator());
      assertThat(row.sourceHost()).isEqualTo(m.sourceHost());
      assertThat(row.destHost()).isEqualTo(m.destHost());
      assertThat(row.sourceCluster()).isEqualTo(m.sourceCluster());
      assertThat(row.destCluster()).isEqualTo(m.destCluster());
      assertThat(row.startTime()).isEqualTo(m.startTime());
      assertThat(row.endTime()).isEqualTo(m.endTime());
      assertThat(row.durationSeconds()).isEqualTo(m.durationSeconds());
      assertThat(row.stunSeconds()).isEqualTo(s.stun() == null ? null : s.stun().seconds());
      assertThat(row.underLoad()).isEqualTo(s.underLoad());
    }
    // unknown stays unknown, never zero
    MigrationRow sparse = MigrationRow.decode(stored(MigrationRow.of(sparse())));
    assertThat(sparse.endTime()).isNull();
    assertThat(sparse.durationSeconds()).isNull();
    assertThat(sparse.stunSeconds()).isNull();
    assertThat(sparse.vmName()).isNull();
    assertThat(sparse.sourceHost()).isNull();
  }

  @Test
  void theRenderingsAreByteForByteWhatTheSharedMapperWrites() throws Exception {
    for (MigrationSummary s : List.of(full(), sparse())) {
      MigrationRow row = MigrationRow.decode(stored(MigrationRow.of(s)));
      assertThat(new String(json(row, false), StandardCharsets.UTF_8))
          .isEqualTo(Json.mapper().writeValueAsString(s));
      assertThat(row.jsonLength()).isEqualTo(json(row, false).length);
      assertThat(new String(json(row, true), StandardCharsets.UTF_8))
          .isEqualTo(Json.mapper().writeValueAsString(MigrationAnnotation.of(s)));
      assertThat(row.annotationLength()).isEqualTo(json(row, true).length);
    }
  }

  @Test
  void rowsAreEqualExactlyWhenTheirStoredFormsAre() {
    assertThat(MigrationRow.of(full())).isEqualTo(MigrationRow.of(full()))
        .hasSameHashCodeAs(MigrationRow.of(full()));
    MigrationSummary f = full();
    MigrationSummary notUnderLoad = new MigrationSummary(f.migration(), false, f.stun(), f.fbUsedMiB(),
        f.throughputDipPct());
    assertThat(MigrationRow.of(notUnderLoad)).isNotEqualTo(MigrationRow.of(f));
  }

  @Test
  void aMigrationWithoutAStartIsNotIndexed() {
    MigrationSummary s = sparse();
    Migration m = s.migration();
    Migration noStart = m.withTimes(null, null, null);
    assertThatThrownBy(() -> MigrationRow.of(new MigrationSummary(noStart, false, null, null, null)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("vc-1/chain-43");
  }

  @Test
  void aRowOfAnEarlierFormatAsksForAReset() {
    byte[] json = Json.mapper().createObjectNode().put("underLoad", true).toString()
        .getBytes(StandardCharsets.UTF_8);
    byte[] formatOne = stored(MigrationRow.of(full()));
    formatOne[0] = 1;
    for (byte[] old : List.of(json, formatOne)) {
      assertThatThrownBy(() -> MigrationRow.decode(old)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("store.migration-summary").hasMessageContaining("reset the processor's state");
    }
  }

  @Test
  void everyTruncationAndAnyTrailingByteIsRefusedWithTheValueNamed() {
    byte[] bytes = stored(MigrationRow.of(sparse()));
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThatThrownBy(() -> MigrationRow.decode(cut)).as("first %d of %d bytes", n, bytes.length)
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("store.migration-summary");
    }
    assertThatThrownBy(() -> MigrationRow.decode(Arrays.copyOf(bytes, bytes.length + 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("left over");
  }

  @Test
  void aDamagedStringIsRefusedWithTheValueNamedWhenItIsRead() {
    byte[] bytes = stored(MigrationRow.of(full()));
    // the last string is the destination cluster's name, absent in full(): its length is the last 4 bytes
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, 1000);
    MigrationRow row = MigrationRow.decode(bytes);
    assertThat(row.startTime()).isEqualTo(START);
    assertThatThrownBy(row::id).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("store.migration-summary").hasMessageContaining("string 18");
  }

  @Test
  void startAndEndCompareAsTheirInstantsDo() {
    MigrationRow ended = MigrationRow.of(full());
    MigrationRow running = MigrationRow.of(sparse());
    Instant end = START.plusMillis(95_500);
    for (Instant t : List.of(START.minusNanos(1), START, START.plusNanos(1), end.minusNanos(1), end,
        end.plusNanos(1))) {
      assertThat(Integer.signum(ended.compareStartTo(t))).isEqualTo(Integer.signum(START.compareTo(t)));
      assertThat(Integer.signum(ended.compareEndTo(t))).isEqualTo(Integer.signum(end.compareTo(t)));
      assertThat(Integer.signum(running.compareEndTo(t))).as("a running migration ends at its start")
          .isEqualTo(Integer.signum(START.compareTo(t)));
    }
    MigrationRow sameStartLowerId = MigrationRow.of(new MigrationSummary(new Migration("vc-1/chain-1", "vc-1",
        "vm-1", null, null, null, MigrationState.SUCCEEDED, Initiator.USER, null, null, null, null, null, null, null,
        null, START, null, null, null), false, null, null, null));
    assertThat(List.of(running, ended, sameStartLowerId).stream().sorted(MigrationRow.BY_START).map(MigrationRow::id))
        .containsExactly("vc-1/chain-1", "vc-1/chain-42", "vc-1/chain-43");
  }

  @Test
  void nullIsATombstoneBothWays() {
    assertThat(MigrationRow.SERDE.serializer().serialize("t", null)).isNull();
    assertThat(MigrationRow.SERDE.deserializer().deserialize("t", null)).isNull();
  }
}
