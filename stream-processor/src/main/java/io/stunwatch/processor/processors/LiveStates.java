package io.stunwatch.processor.processors;

import io.stunwatch.processor.domain.RdmaRates;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmLive;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Each VM's {@link VmLive} for {@link VmReadingsProcessor}, the only writer of {@link StoreNames#VM_LIVE}: what it
 * last wrote is held, so that a reading costs no store read and decoding, and the store is read only for a VM not
 * seen since the task started.
 *
 * <p>A VM that {@link StoreNames#VM_LIVE} does not know yet, on a site upgraded in place, starts from what the stores
 * it replaced hold ({@link StoreNames#VM_LOAD_CURRENT}, {@link StoreNames#RDMA_LAST}), which are then deleted: each
 * VM is converted once, at its first reading. Its open windows and history block are found in their own stores, where
 * the earlier format kept them, by the folds that open them.
 */
final class LiveStates {

  private final Map<String, VmLive> held = new HashMap<>();
  private KeyValueStore<String, VmLive> store;
  private KeyValueStore<String, CurrentLoad> formerCurrent;
  private KeyValueStore<String, RdmaRates.Last> formerRdma;

  /** Called from the processor's {@code init}, after the task's stores were restored. */
  void init(ProcessingContext context) {
    store = context.getStateStore(StoreNames.VM_LIVE);
    formerCurrent = context.getStateStore(StoreNames.VM_LOAD_CURRENT);
    formerRdma = context.getStateStore(StoreNames.RDMA_LAST);
    held.clear(); // what was held before may be stale
  }

  /** The VM's state as last written, {@link VmLive#EMPTY} before its first reading. */
  VmLive get(String key) {
    VmLive v = held.get(key);
    if (v != null) {
      return v;
    }
    v = store.get(key);
    if (v == null) {
      v = converted(key);
    }
    held.put(key, v);
    return v;
  }

  void put(String key, VmLive v) {
    store.put(key, v);
    held.put(key, v);
  }

  private VmLive converted(String key) {
    CurrentLoad current = formerCurrent.get(key);
    RdmaRates.Last rdma = formerRdma.get(key);
    if (current == null && rdma == null) {
      return VmLive.EMPTY;
    }
    VmLive v = VmLive.EMPTY.withCurrent(current).withRdma(rdma == null ? null : rdma.ports());
    put(key, v);
    if (current != null) {
      formerCurrent.delete(key);
    }
    if (rdma != null) {
      formerRdma.delete(key);
    }
    return v;
  }
}
