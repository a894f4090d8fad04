package io.stunwatch.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordInvariantsTest {

  @Test
  void anUnavailableCounterHasNoValueAndAnAvailableOneHasOne() {
    assertThat(CounterReading.unavailable("N/A (no PMA)").value()).isNull();
    assertThatThrownBy(() -> new CounterReading(0L, CounterState.UNAVAILABLE, "x"))
        .hasMessageContaining("UNAVAILABLE counter has no value");
    assertThatThrownBy(() -> new CounterReading(null, CounterState.VALID, null))
        .hasMessageContaining("needs a value");
    assertThatThrownBy(() -> CounterReading.valid(-1)).hasMessageContaining("must not be negative");
  }

  @Test
  void unknownStunTimeHasNoSecondsAndAKnownOneHasSeconds() {
    assertThatThrownBy(() -> new StunTime(0.0, StunTime.Source.UNKNOWN)).hasMessageContaining("UNKNOWN");
    assertThatThrownBy(() -> new StunTime(null, StunTime.Source.VMWARE_LOG)).hasMessageContaining("UNKNOWN");
  }

  @Test
  void migrationCannotEndBeforeItStarts() {
    Migration m = Samples.migration();
    assertThatThrownBy(() -> new Migration(m.id(), m.vcenterUuid(), m.vmMoref(), null, null, null, m.state(),
        m.initiator(), null, null, null, null, null, null, null, null, m.endTime(), m.startTime(), null, null))
        .hasMessageContaining("is before startTime");
    assertThat(m.durationSeconds()).isEqualTo(180.0);
  }

  @Test
  void alertNeedsAReason() {
    MigrationAlert a = Samples.of(MigrationAlert.class);
    assertThatThrownBy(() -> new MigrationAlert(a.migrationId(), a.state(), null, null, null, null, null,
        a.initiator(), null, a.load(), List.of(), null, a.raisedAt(), a.updatedAt(), null))
        .hasMessageContaining("at least one");
  }

  @Test
  void listsInRecordsAreImmutableCopies() {
    List<Long> keys = new ArrayList<>(List.of(1L));
    VcenterCheckpoint c = new VcenterCheckpoint(Samples.VC, Samples.T0, keys, Samples.T0, null, null);
    keys.add(2L);
    assertThat(c.keysAtLastCreated()).containsExactly(1L);
  }

  @Test
  void inventoryCanonicalizesTheBiosUuid() {
    VmInventoryEntry e = Samples.of(VmInventoryEntry.class);
    assertThat(e.biosUuid()).isEqualTo(Samples.VM);
    assertThat(e.key()).isEqualTo(Samples.VC + "/vm-42");
  }

  @Test
  void deadLetterKeepsBinaryGarbageExactlyButPreviewsOnlyText() {
    DeadLetter binary = DeadLetter.of("t", 0, 1, null, null, new byte[] {0, (byte) 0xff, (byte) 0xfe},
        DeadLetter.Stage.DESERIALIZATION, "not valid JSON", "test", Samples.T0);
    assertThat(binary.valuePreview()).isNull();
    assertThat(binary.valueBase64()).isEqualTo("AP/+");
    String longText = "x".repeat(500);
    DeadLetter text = DeadLetter.of("t", 0, 1, null, "k".getBytes(StandardCharsets.UTF_8),
        longText.getBytes(StandardCharsets.UTF_8), DeadLetter.Stage.PROCESSING, "boom", "test", Samples.T0);
    assertThat(text.valuePreview()).hasSize(DeadLetter.PREVIEW_CHARS);
    assertThat(text.keyBase64()).isEqualTo("aw==");
  }
}
