package io.stunwatch.api;

import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.util.concurrent.Callable;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The threads this instance's store reads run on: one per core. With Vert.x's twenty shared workers, twenty range
 * reads time-shared the cores and every one of them finished late; queued instead, most finish sooner and the tail
 * shrinks. A store that stops being queryable during a read fails it with {@link StoresUnavailableException}.
 */
final class ReadThreads {

  private final WorkerExecutor reads;

  ReadThreads(Vertx vertx) {
    this.reads = vertx.createSharedWorkerExecutor("stunwatch-store-reads", Runtime.getRuntime().availableProcessors());
  }

  /** Runs {@code read} on a read thread; completes on the caller's context. */
  <T> Future<T> run(Callable<T> read) {
    return reads.executeBlocking(() -> {
      try {
        return read.call();
      } catch (InvalidStateStoreException e) {
        throw new StoresUnavailableException(e.getMessage());
      }
    }, false);
  }
}
