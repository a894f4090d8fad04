package io.stunwatch.processor.state;

import java.io.File;
import java.util.function.Consumer;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.WrappedStateStore;

/**
 * What {@link DeferredKeyValueStore} and {@link DeferredWindowStore} share: the hooks Kafka Streams calls on a store
 * with a cache, and the record context each pending write is replayed with. The contract is on
 * {@link DeferredKeyValueStore}.
 *
 * @param <S> the store beneath
 */
public abstract class DeferredStore<S extends StateStore, K, V> extends WrappedStateStore<S, K, V>
    implements FlushOrder.Member {

  /** A pending value (null: a delete) and the context of the record it was written for. */
  record Pending<V>(V value, ProcessorRecordContext context) {
  }

  private InternalProcessorContext<?, ?> context;
  /** The order this store is flushed in with others of its task, or null when it is flushed alone. */
  private final FlushOrder order;
  /** The task's state directory, by which {@link #order} knows the task; null until initialized. */
  private File task;

  DeferredStore(S inner) {
    this(inner, null);
  }

  DeferredStore(S inner, FlushOrder order) {
    super(inner);
    this.order = order;
  }

  @Override
  public final void init(StateStoreContext stateStoreContext, StateStore root) {
    context = stateStoreContext instanceof InternalProcessorContext<?, ?> c ? c : null;
    dropPending();
    wrapped().init(stateStoreContext, root);
    if (order != null && context != null) {
      task = stateStoreContext.stateDir();
      order.join(task, this);
    }
  }

  /** The order this store is flushed in with others of its task, or null when it is flushed alone. */
  public final FlushOrder flushOrder() {
    return order;
  }

  /** {@code value} as a pending write of the record being processed, or null where writes go straight through. */
  final Pending<V> pendingOf(V value) {
    return context == null ? null : new Pending<>(value, context.recordContext());
  }

  /** Whether any write is pending. */
  abstract boolean hasPending();

  /**
   * Writes every pending value to the store beneath, calling {@code enter} with each one's record context first,
   * and forgets each after its write (so a concurrent read finds it in one place or the other).
   */
  abstract void writePending(Consumer<ProcessorRecordContext> enter);

  /** Forgets every pending write, and whatever the instance has learnt of the store beneath. */
  abstract void dropPending();

  @Override
  public final void flushCache() {
    if (order != null && task != null) {
      order.flush(task); // this store's turn comes within it
    } else {
      writeOwnPending();
    }
  }

  @Override
  public final void writeOwnPending() {
    if (context == null || !hasPending()) {
      return;
    }
    ProcessorRecordContext current = context.recordContext();
    try {
      writePending(context::setRecordContext);
    } finally {
      context.setRecordContext(current);
    }
  }

  @Override
  public final void clearCache() {
    dropPending();
  }

  @Override
  public final boolean setFlushListener(CacheFlushListener<K, V> listener, boolean sendOldValues) {
    return false; // nothing downstream is fed from these stores' writes
  }

  @Override
  public final void close() {
    dropPending();
    if (order != null && task != null) {
      order.leave(task, this);
      task = null;
    }
    super.close();
  }
}
