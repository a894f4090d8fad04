package io.stunwatch.processor.readmodel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.model.json.Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class AnnotationBlockTest {

  private static final Instant T0 = Instant.parse("2026-11-20T10:00:00Z");

  private static MigrationRow row(int i, Instant start, Instant end, boolean underLoad) {
    return MigrationRow.of(new MigrationSummary(new Migration("vc-1/chain-" + i, "vc-1", "vm-" + i, "trainer-" + i,
        "4211c0de-000" + i + "-aaaa-bbbb-ccccddddeeee", "T4-16C",
        end == null ? MigrationState.IN_PROGRESS : MigrationState.SUCCEEDED, Initiator.DRS, "DRS", null,
        new EntityRef("HostSystem", "host-1", "esx01"), new EntityRef("HostSystem", "host-2", "esx02"), null, null,
        null, null, start, end, null, start), underLoad, end == null ? null
        : new StunTime(2.5, StunTime.Source.VMWARE_LOG), null, null));
  }

  private static AnnotationBlock stored(AnnotationBlock b) {
    return AnnotationBlock.SERDE.deserializer().deserialize("t", AnnotationBlock.SERDE.serializer().serialize("t", b));
  }

  private static String json(AnnotatedMigration a) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    a.writeAnnotation(out::write);
    assertThat(out.size()).isEqualTo(a.annotationLength());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void entriesAreInStartOrderWithEachRowsAnnotationAndFields() throws Exception {
    MigrationRow late = row(1, T0.plusSeconds(1800), T0.plusSeconds(1900), true);
    MigrationRow early = row(2, T0.plusNanos(5), null, false);
    MigrationRow sameStartHigherId = row(3, T0.plusNanos(5), T0.plusSeconds(60), false);
    AnnotationBlock b = stored(AnnotationBlock.of(List.of(late, sameStartHigherId, early)));
    assertThat(b.entries()).extracting(AnnotatedMigration::id)
        .containsExactly("vc-1/chain-2", "vc-1/chain-3", "vc-1/chain-1");
    for (MigrationRow r : List.of(late, early, sameStartHigherId)) {
      AnnotationBlock.Entry e = b.entries().stream().filter(x -> x.id().equals(r.id())).findFirst().orElseThrow();
      assertThat(json(e)).isEqualTo(json(r)).isEqualTo(Json.mapper().writeValueAsString(
          MigrationAnnotation.of(r.summary())));
      assertThat(List.of(e.vmId(), e.vmName())).containsExactly(r.vmId(), r.vmName());
      for (Instant t : List.of(T0, T0.plusNanos(5), T0.plusSeconds(60), T0.plusSeconds(1900))) {
        assertThat(Integer.signum(e.compareStartTo(t))).isEqualTo(Integer.signum(r.compareStartTo(t)));
        assertThat(Integer.signum(e.compareEndTo(t))).isEqualTo(Integer.signum(r.compareEndTo(t)));
      }
    }
  }

  @Test
  void aChangedMigrationReplacesItsEntryAndAnUnchangedOneLeavesTheBlockAsItIs() {
    MigrationRow running = row(1, T0, null, false);
    AnnotationBlock b = AnnotationBlock.of(List.of(running, row(2, T0.plusSeconds(10), null, false)));
    assertThat(b.with(running)).isSameAs(b);
    AnnotationBlock ended = b.with(row(1, T0, T0.plusSeconds(30), true));
    assertThat(ended.entries()).hasSize(2);
    assertThat(ended.entries().get(0).hasEnded()).isTrue();
    assertThat(json(ended.entries().get(0))).contains("under-load");
    assertThat(ended.without("vc-1/chain-1").entries()).extracting(AnnotatedMigration::id)
        .containsExactly("vc-1/chain-2");
    assertThat(ended.without("vc-1/chain-9")).isSameAs(ended);
    assertThat(AnnotationBlock.EMPTY.with(running).without(running.id()).isEmpty()).isTrue();
  }

  @Test
  void aNameThatIsNotKnownStaysUnknown() {
    Migration m = row(1, T0, null, false).summary().migration();
    Migration noName = new Migration(m.id(), m.vcenterUuid(), m.vmMoref(), null, null, m.vgpuProfile(), m.state(),
        m.initiator(), m.initiatorName(), null, null, null, null, null, null, null, T0, null, null, T0);
    AnnotationBlock b = stored(AnnotationBlock.of(List.of(MigrationRow.of(new MigrationSummary(noName, false, null,
        null, null)))));
    assertThat(b.entries().get(0).vmName()).isNull();
    assertThat(b.entries().get(0).vmId()).isNull();
  }

  @Test
  void everyTruncationAnyTrailingByteAndAnotherFormatAreRefusedWithTheValueNamed() {
    List<MigrationRow> rows = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      rows.add(row(i, T0.plusSeconds(i), null, false));
    }
    byte[] bytes = AnnotationBlock.SERDE.serializer().serialize("t", AnnotationBlock.of(rows));
    for (int n = 0; n < bytes.length; n++) {
      byte[] cut = Arrays.copyOf(bytes, n);
      assertThatThrownBy(() -> AnnotationBlock.decode(cut)).as("first %d of %d bytes", n, bytes.length)
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("store.annotation-block");
    }
    assertThatThrownBy(() -> AnnotationBlock.decode(Arrays.copyOf(bytes, bytes.length + 1)))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("left over");
    byte[] other = bytes.clone();
    other[0] = 9;
    assertThatThrownBy(() -> AnnotationBlock.decode(other)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("format 9").hasMessageContaining("reset the processor's state");
  }
}
