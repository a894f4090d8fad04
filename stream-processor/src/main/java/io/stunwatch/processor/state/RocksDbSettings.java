package io.stunwatch.processor.state;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * What this application changes in Kafka Streams' RocksDB settings ({@code rocksdb.config.setter}), for every
 * persistent store and every segment of a window store.
 *
 * <p>Contract: it changes only {@link #FILE_OPENING_THREADS}; everything else stays as Streams sets it. It holds no
 * resource, so {@link #close} has nothing to release.
 *
 * <p>Why: at every open RocksDB starts {@code max_file_opening_threads} threads (16 by default) to load the
 * database's table files in parallel, and joins them, whether or not there is a file to load. A window store opens a
 * new RocksDB instance for each new segment, on the stream thread, at the commit that first writes to it: every 12
 * hours of stream time for the load windows, every 30.6 minutes for the per-second history when it is kept in RocksDB
 * ({@code process.sample-store}; half of its 61-minute retention), so every few seconds in a catch-up, and every
 * store of every task at start-up. With one thread an open of a fresh database took
 * 5.2–6.0 ms of CPU against 8.4–9.7 ms, and 8.0–9.0 ms of wall time against 11.1–13.0 (docs/performance.md). A store
 * here holds at most a task's share of a retention period, a few table files, so loading them one after the other
 * costs nothing that threads would save.
 */
public final class RocksDbSettings implements RocksDBConfigSetter {

  /** RocksDB's {@code max_file_opening_threads} for this application's stores. */
  static final int FILE_OPENING_THREADS = 1;

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    options.setMaxFileOpeningThreads(FILE_OPENING_THREADS);
  }

  @Override
  public void close(String storeName, Options options) {
    // nothing of its own to release: Streams closes the options
  }
}
