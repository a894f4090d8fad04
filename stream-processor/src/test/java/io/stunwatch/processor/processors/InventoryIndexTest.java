package io.stunwatch.processor.processors;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.testsupport.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.junit.jupiter.api.Test;

class InventoryIndexTest {

  static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");

  /** The global inventory store, as the index reads it: a sorted map. */
  static final class Inventory implements ReadOnlyKeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> {
    final TreeMap<String, ValueAndTimestamp<VmInventoryEntry>> entries = new TreeMap<>();

    void add(int n, String host, String guestHostName) {
      VmInventoryEntry e = new VmInventoryEntry("vc", "vm-" + n, "train-" + n,
          String.format("42000000-0000-4000-8000-%012d", n), null, new EntityRef("HostSystem", "h", host), null,
          "dc", null, null, List.of(), null, T0, guestHostName);
      entries.put(e.key(), ValueAndTimestamp.make(e, 0));
    }

    @Override
    public ValueAndTimestamp<VmInventoryEntry> get(String key) {
      return entries.get(key);
    }

    @Override
    public KeyValueIterator<String, ValueAndTimestamp<VmInventoryEntry>> range(String from, String to) {
      throw new UnsupportedOperationException("the index reads all()");
    }

    @Override
    public KeyValueIterator<String, ValueAndTimestamp<VmInventoryEntry>> all() {
      Iterator<Map.Entry<String, ValueAndTimestamp<VmInventoryEntry>>> it = entries.entrySet().iterator();
      return new KeyValueIterator<>() {
        @Override
        public void close() {
        }

        @Override
        public String peekNextKey() {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean hasNext() {
          return it.hasNext();
        }

        @Override
        public KeyValue<String, ValueAndTimestamp<VmInventoryEntry>> next() {
          Map.Entry<String, ValueAndTimestamp<VmInventoryEntry>> e = it.next();
          return KeyValue.pair(e.getKey(), e.getValue());
        }
      };
    }

    @Override
    public long approximateNumEntries() {
      return entries.size();
    }
  }

  private static String id(int n) {
    return String.format("42000000-0000-4000-8000-%012d", n);
  }

  @Test
  void aVmTheInventoryLearnsIsFoundAfterATenthOfTheRefreshNotAWholeOne() {
    ManualClock clock = new ManualClock(T0);
    Inventory inventory = new Inventory();
    InventoryIndex index = new InventoryIndex(clock, Duration.ofSeconds(10));
    inventory.add(1, "esx01", null);
    assertThat(index.resolve("esx01", "train-1", null, inventory).vmId()).isEqualTo(id(1));
    inventory.add(2, "esx01", null);
    clock.set(T0.plusMillis(500));
    assertThat(index.resolve("esx01", "train-2", null, inventory).outcome())
        .as("within a tenth of the refresh of the last build: not rebuilt").isEqualTo(InventoryIndex.Outcome.UNKNOWN);
    clock.set(T0.plusSeconds(1));
    assertThat(index.resolve("esx01", "train-2", null, inventory).vmId()).as("a miss rebuilds a tenth of the refresh on")
        .isEqualTo(id(2));
    inventory.add(3, "esx02", null);
    clock.set(T0.plusSeconds(2));
    assertThat(index.get(id(3), inventory)).as("so does a lookup by VM id").isNotNull();
  }

  @Test
  void namesResolveByHostAndNameThenNameThenTheGuestsHostNameAndNeverWhenShared() {
    ManualClock clock = new ManualClock(T0);
    Inventory inventory = new Inventory();
    inventory.add(1, "esx02", "trainer-1.lab.example");
    inventory.add(2, "esx01", "shared");
    inventory.add(3, "esx01", "SHARED");
    InventoryIndex index = new InventoryIndex(clock, Duration.ZERO);
    assertThat(index.resolve("esx01", "train-1", null, inventory).vmId())
        .as("recorded on the host the VM left: by its name alone").isEqualTo(id(1));
    assertThat(index.resolve(null, null, "TRAINER-1", inventory).vmId()).as("by the first label, any case")
        .isEqualTo(id(1));
    assertThat(index.resolve(null, null, "trainer-1.lab.example", inventory).vmId()).isEqualTo(id(1));
    assertThat(index.resolve(null, null, "shared", inventory).outcome()).isEqualTo(InventoryIndex.Outcome.AMBIGUOUS);
    assertThat(index.resolve(null, null, "nobody", inventory).outcome()).isEqualTo(InventoryIndex.Outcome.UNKNOWN);
  }
}
