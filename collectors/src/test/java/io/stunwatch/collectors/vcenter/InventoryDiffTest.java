package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.HostInventoryEntry;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class InventoryDiffTest {

  private static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");

  private static HostInventoryEntry host(String moref, Long link, Instant at) {
    return new HostInventoryEntry("vc", moref, "esx-" + moref, null, List.of(), link, at);
  }

  @Test
  void aReadPublishesWhatIsNewOrChangedBesidesItsReadTimeAndTombstonesWhatIsGone() {
    InventoryDiff<HostInventoryEntry> d = new InventoryDiff<>(HostInventoryEntry::key,
        (before, now) -> before.equals(now.withObservedAt(before.observedAt())));
    assertThat(d.next(List.of(host("host-1", 10_000L, T0), host("host-2", 10_000L, T0))))
        .extracting(InventoryDiff.Change::key).containsExactly("vc/host-1", "vc/host-2");
    d.commit();
    List<InventoryDiff.Change<HostInventoryEntry>> second = d.next(List.of(
        host("host-1", 10_000L, T0.plusSeconds(60)), host("host-3", null, T0.plusSeconds(60))));
    assertThat(second).extracting(InventoryDiff.Change::key).as("host-1 only read again")
        .containsExactly("vc/host-3", "vc/host-2");
    assertThat(second.get(1).value()).as("a tombstone").isNull();
    d.commit();
    assertThat(d.next(List.of(host("host-1", 25_000L, T0.plusSeconds(120)), host("host-3", null, T0))))
        .extracting(InventoryDiff.Change::key).containsExactly("vc/host-1");
    d.commit();
    assertThat(d.contains("vc/host-2")).isFalse();
    assertThat(d.get("vc/host-1").vmotionNicSpeedMbps()).isEqualTo(25_000L);
    d.clear();
    assertThat(d.next(List.of(host("host-1", 25_000L, T0)))).as("after clear, everything again").hasSize(1);
  }

  @Test
  void aRemovalReadInATransactionThatFailedIsPublishedByTheNextRead() {
    InventoryDiff<HostInventoryEntry> d = new InventoryDiff<>(HostInventoryEntry::key,
        (before, now) -> before.equals(now.withObservedAt(before.observedAt())));
    d.next(List.of(host("host-1", 10_000L, T0), host("host-2", 10_000L, T0)));
    d.commit();
    // host-2 is removed from vCenter; the read that sees it gone is in a transaction that fails (the collector
    // reconnects), so its tombstone was never published
    assertThat(d.next(List.of(host("host-1", 10_000L, T0.plusSeconds(1))))).extracting(InventoryDiff.Change::key)
        .containsExactly("vc/host-2");
    assertThat(d.contains("vc/host-2")).as("the newest read, for keying this poll's events").isFalse();
    d.rollback();
    assertThat(d.next(List.of(host("host-1", 10_000L, T0.plusSeconds(2))))).as("after the reconnect")
        .extracting(InventoryDiff.Change::key).containsExactly("vc/host-2");
    d.commit();
    assertThat(d.next(List.of(host("host-1", 10_000L, T0.plusSeconds(3))))).as("published once committed")
        .isEmpty();
  }
}
