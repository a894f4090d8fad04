package io.stunwatch.processor.state;

import io.stunwatch.processor.readmodel.StoreNames;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.Options;

/**
 * What this application changes in Kafka Streams' RocksDB settings ({@code rocksdb.config.setter}), for every
 * persistent store and every segment of a window store.
 *
 * <p>Contract: it changes only {@link #FILE_OPENING_THREADS}, and the memtable size of the stores every VM's readings
 * write to ({@link #WRITTEN_ALL_THE_TIME}); everything else stays as Streams sets it. It holds no
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

  /**
   * The stores every VM's readings write to all the time: its live state at every commit, its windows and history
   * blocks as they close. A window store's segments are RocksDB instances named {@code <store>.<segment>}.
   */
  static final Set<String> WRITTEN_ALL_THE_TIME = Set.of(StoreNames.VM_LIVE, StoreNames.VM_LOAD_10S,
      StoreNames.VM_LOAD_1M, StoreNames.VM_LOAD_1H, StoreNames.UTILIZATION_DAILY, StoreNames.VM_SAMPLES);

  /**
   * Their memtable size, where Streams gives every store 16 MiB. Streams writes RocksDB without its write-ahead log,
   * so after a {@code kill -9} a store is what its last flushed memtable held, and the restart reads the changelog back
   * from there. At 10,000 VMs a task's {@code vm-live} filled 16 MiB in about a minute, and a 10 s window store's
   * segment never did: the restart read back every window written since the start (399,763 records after 8
   * minutes, of 599,672 in 10.8 s of a 14.8 s restart). A small memtable is flushed every few
   * seconds (a small file for RocksDB to compact) and leaves that much to read back.
   */
  static final long WRITE_BUFFER_BYTES = 2L * 1024 * 1024;

  @Override
  public void setConfig(String storeName, Options options, Map<String, Object> configs) {
    options.setMaxFileOpeningThreads(FILE_OPENING_THREADS);
    int dot = storeName.lastIndexOf('.');
    if (WRITTEN_ALL_THE_TIME.contains(storeName)
        || dot > 0 && WRITTEN_ALL_THE_TIME.contains(storeName.substring(0, dot))) {
      options.setWriteBufferSize(WRITE_BUFFER_BYTES);
    }
  }

  @Override
  public void close(String storeName, Options options) {
    // nothing of its own to release: Streams closes the options
  }
}
