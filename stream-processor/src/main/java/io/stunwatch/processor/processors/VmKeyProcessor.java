package io.stunwatch.processor.processors;

import io.stunwatch.model.Keys;
import io.stunwatch.model.VmInput;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.JsonSerde;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.domain.Tracked;
import io.stunwatch.processor.readmodel.StoreNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-keys a vCenter-side record to its VM id, so that it meets the VM's samples: the record's own key when the
 * collector already keyed it by VM id, else the VM id the global inventory gives its {@code <vcenter>/<moref>}.
 *
 * <p>A record of a VM the inventory does not know yet is held, in a store (a restart keeps it), until the VM's entry
 * arrives, for at most {@code process.inventory-hold} of wall time; then it goes on under {@code vc:<vcenter>/<moref>}
 * and is counted ({@code inventory-hold-expired}). Later records of a held VM wait behind it, in order. Each
 * migration's events go under the key its first event went under ({@link StoreNames#CHAIN_ROUTES}): one chain is
 * never two records, whatever the inventory learns or forgets in between.
 */
public final class VmKeyProcessor<V extends VmInput> implements Processor<String, V, String, VmInput> {

  private static final Logger LOG = LoggerFactory.getLogger(VmKeyProcessor.class);
  /** How long a chain's route is kept past its first event, in event time. */
  static final Duration ROUTE_RETENTION = Duration.ofDays(2);
  private final Topic<String, V> topic;
  private final Function<V, String> vmKeyOf;
  /** The migration id of a record, or null for records of no chain. */
  private final Function<V, String> chainOf;
  private final String heldStore;
  private final Duration hold;
  /** Commits a live record's hop at once (vCenter events, which alerts wait on), or null. */
  private final LiveCommits live;
  private ProcessorContext<String, VmInput> context;
  private KeyValueStore<String, ValueAndTimestamp<VmInventoryEntry>> inventory;
  private KeyValueStore<String, Tracked.Held> held;
  private KeyValueStore<String, Tracked.Route> routes;
  /** The keys {@link #held} holds, with their first record's wall time: the store's only writer keeps it. */
  private final Map<String, Long> holding = new TreeMap<>();
  private Sensor heldSensor;
  private Sensor expiredSensor;

  /**
   * The stores an instance writes: the records it holds ({@code heldStore}), and with {@code routes} the chains'
   * routes ({@link StoreNames#CHAIN_ROUTES}). Written once per record at most, and iterated at start-up and pruning:
   * plain stores.
   */
  public static List<StoreBuilder<?>> stores(String heldStore, boolean routes) {
    StoreBuilder<?> held = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(heldStore), Serdes.String(),
        JsonSerde.of(Tracked.Held.class));
    return routes ? List.of(held, Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(
        StoreNames.CHAIN_ROUTES), Serdes.String(), JsonSerde.of(Tracked.Route.class))) : List.of(held);
  }

  public VmKeyProcessor(Topic<String, V> topic, Function<V, String> vmKeyOf,
      Function<V, String> chainOf, String heldStore, Duration hold, LiveCommits live) {
    this.topic = topic;
    this.vmKeyOf = vmKeyOf;
    this.chainOf = chainOf;
    this.heldStore = heldStore;
    this.hold = hold;
    this.live = live;
  }

  @Override
  public void init(ProcessorContext<String, VmInput> context) {
    this.context = context;
    this.inventory = context.getStateStore(StoreNames.VM_INVENTORY);
    this.held = context.getStateStore(heldStore);
    this.routes = chainOf == null ? null : context.getStateStore(StoreNames.CHAIN_ROUTES);
    holding.clear(); // (re)initialized after the task's stores were restored
    try (KeyValueIterator<String, Tracked.Held> it = held.all()) {
      it.forEachRemaining(kv -> holding.put(kv.key, kv.value.sinceWall()));
    }
    String name = topic.name().substring(Topics.PREFIX.length());
    heldSensor = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
        "inventory-held-" + name, Sensor.RecordingLevel.INFO);
    expiredSensor = context.metrics().addRateTotalSensor("stunwatch", context.taskId().toString(),
        "inventory-hold-expired-" + name, Sensor.RecordingLevel.INFO);
    context.schedule(Duration.ofSeconds(1), PunctuationType.WALL_CLOCK_TIME, this::releaseDue);
    if (routes != null) {
      context.schedule(Duration.ofHours(1), PunctuationType.WALL_CLOCK_TIME, now -> pruneRoutes());
    }
  }

  @Override
  public void process(Record<String, V> record) {
    String vmKey = vmKeyOf.apply(record.value());
    String key = Keys.isVmId(record.key()) ? record.key() : vmId(vmKey);
    if (holding.containsKey(vmKey)) {
      if (key == null) {
        hold(vmKey, record); // behind the VM's records held before it
        return;
      }
      release(vmKey, key);
    } else if (key == null) {
      if (!hold.isZero()) {
        hold(vmKey, record);
        return;
      }
      expiredSensor.record();
      key = "vc:" + vmKey;
    }
    forward(record, key);
  }

  @Override
  public void close() {
    // The task may come back to this instance after a rebalance and register its sensors again.
    context.metrics().removeSensor(heldSensor);
    context.metrics().removeSensor(expiredSensor);
  }

  private String vmId(String vmKey) {
    ValueAndTimestamp<VmInventoryEntry> vm = inventory.get(vmKey);
    return vm != null && vm.value() != null && vm.value().biosUuid() != null ? vm.value().biosUuid() : null;
  }

  private void hold(String vmKey, Record<String, V> record) {
    Tracked.Held h = held.get(vmKey);
    if (h == null) {
      h = new Tracked.Held(null, null, context.currentSystemTimeMs());
      holding.put(vmKey, h.sinceWall());
    }
    held.put(vmKey, h.with(new String(topic.encodeValue(record.value()), StandardCharsets.UTF_8),
        record.timestamp()));
    heldSensor.record();
  }

  /** Sends on what is held for the VM {@code vmKey}, in order, under {@code key}. */
  private void release(String vmKey, String key) {
    Tracked.Held h = held.get(vmKey);
    held.delete(vmKey);
    holding.remove(vmKey);
    if (h == null) {
      return;
    }
    for (int i = 0; i < h.values().size(); i++) {
      V value = topic.valueSerde().deserializer().deserialize(topic.name(),
          h.values().get(i).getBytes(StandardCharsets.UTF_8));
      forward(new Record<>(vmKey, value, h.timestamps().get(i)), key);
    }
  }

  /** Releases held records whose VM the inventory now knows, and those held for longer than the hold. */
  private void releaseDue(long now) {
    for (Map.Entry<String, Long> e : List.copyOf(holding.entrySet())) {
      String id = vmId(e.getKey());
      if (id != null) {
        release(e.getKey(), id);
      } else if (now - e.getValue() >= hold.toMillis()) {
        Tracked.Held h = held.get(e.getKey());
        for (int i = 0; h != null && i < h.values().size(); i++) {
          expiredSensor.record();
        }
        LOG.warn("{}: {} record(s) of {} held {} s for its inventory entry, which has not come; sent on under its "
            + "vCenter key, where they do not meet the VM's samples", topic.name(),
            h == null ? 0 : h.values().size(), e.getKey(), (now - e.getValue()) / 1000);
        release(e.getKey(), "vc:" + e.getKey());
      }
    }
  }

  private void forward(Record<String, V> record, String key) {
    String chain = chainOf == null ? null : chainOf.apply(record.value());
    if (chain != null) {
      Tracked.Route route = routes.get(chain);
      if (route == null) {
        routes.put(chain, new Tracked.Route(key, record.timestamp()));
      } else {
        key = route.key();
      }
    }
    context.forward(record.withKey(key));
    if (live != null) {
      live.requestIfLive(context, record.timestamp());
    }
  }

  private void pruneRoutes() {
    long before = context.currentStreamTimeMs() - ROUTE_RETENTION.toMillis();
    List<String> old = new ArrayList<>();
    try (KeyValueIterator<String, Tracked.Route> it = routes.all()) {
      it.forEachRemaining(kv -> {
        if (kv.value.millis() < before) {
          old.add(kv.key);
        }
      });
    }
    old.forEach(routes::delete);
  }
}
