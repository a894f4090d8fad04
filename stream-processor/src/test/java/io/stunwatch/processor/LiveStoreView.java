package io.stunwatch.processor;

import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LiveReads;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmLive;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;

/**
 * A VM's load as the API reads it from a {@link TopologyTestDriver}'s stores: the current load and the open windows
 * from its live state ({@link StoreNames#VM_LIVE}), the closed windows from their stores.
 */
final class LiveStoreView {

  private LiveStoreView() {
  }

  static VmLive live(TopologyTestDriver driver, String loadKey) {
    KeyValueStore<String, VmLive> s = driver.getKeyValueStore(StoreNames.VM_LIVE);
    return s.get(loadKey);
  }

  static CurrentLoad current(TopologyTestDriver driver, String loadKey) {
    VmLive v = live(driver, loadKey);
    return v == null ? null : v.current();
  }

  /** The window of {@code store} (a load window store or the utilization audit) starting at {@code start}, or null. */
  @SuppressWarnings("unchecked")
  static <V> V window(TopologyTestDriver driver, String store, String loadKey, Instant start) {
    VmLive.Open<?> open = open(live(driver, loadKey), store);
    if (open != null && open.start() == start.toEpochMilli()) {
      return (V) open.value();
    }
    WindowStore<String, V> w = driver.getWindowStore(store);
    return w.fetch(loadKey, start.toEpochMilli());
  }

  /** The starts of the windows of {@code store} within the range, open and closed. */
  static List<Instant> starts(TopologyTestDriver driver, String store, String loadKey, Instant from, Instant to) {
    VmLive.Open<?> open = open(live(driver, loadKey), store);
    WindowStore<String, Object> w = driver.getWindowStore(store);
    List<KeyValue<Long, Object>> merged;
    try (WindowStoreIterator<Object> it = w.fetch(loadKey, from, to)) {
      merged = LiveReads.merged(it, open == null ? 0 : open.start(), open == null ? null : open.value(),
          from.toEpochMilli(), to.toEpochMilli());
    }
    List<Instant> out = new ArrayList<>();
    merged.forEach(kv -> out.add(Instant.ofEpochMilli(kv.key)));
    return out;
  }

  private static VmLive.Open<?> open(VmLive live, String store) {
    if (live == null) {
      return null;
    }
    return store.equals(StoreNames.UTILIZATION_DAILY) ? live.day() : live.loadWindow(store);
  }
}
