package io.stunwatch.processor.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.stunwatch.processor.readmodel.StoreNames;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

class RocksDbSettingsTest {

  @Test
  void storesLoadTheirTableFilesOnOneThreadAndKeepStreamsOtherSettings() {
    try (Options streams = new Options(); Options ours = new Options()) {
      streams.setWriteBufferSize(16 * 1024 * 1024L).setMaxWriteBufferNumber(3);
      ours.setWriteBufferSize(16 * 1024 * 1024L).setMaxWriteBufferNumber(3);
      new RocksDbSettings().setConfig("vm-samples.1800000", ours, Map.of());
      assertThat(streams.maxFileOpeningThreads()).isEqualTo(16); // RocksDB's default, which this changes
      assertThat(ours.maxFileOpeningThreads()).isEqualTo(1);
      assertThat(ours.writeBufferSize()).isEqualTo(streams.writeBufferSize());
      assertThat(ours.maxWriteBufferNumber()).isEqualTo(streams.maxWriteBufferNumber());
    }
  }

  @Test
  void theStoresReadingsWriteAllTheTimeHaveASmallMemtableSoThatACrashLeavesLittleToReadBack() {
    for (String store : new String[] {StoreNames.VM_LIVE, StoreNames.VM_LOAD_10S + ".1796000000000",
        StoreNames.VM_SAMPLES + ".1795998200000"}) {
      try (Options ours = new Options()) {
        ours.setWriteBufferSize(16 * 1024 * 1024L);
        new RocksDbSettings().setConfig(store, ours, Map.of());
        assertThat(ours.writeBufferSize()).as(store).isEqualTo(2 * 1024 * 1024L);
      }
    }
    try (Options ours = new Options()) {
      ours.setWriteBufferSize(16 * 1024 * 1024L);
      new RocksDbSettings().setConfig(StoreNames.MIGRATIONS, ours, Map.of());
      assertThat(ours.writeBufferSize()).as("a store written as migrations come").isEqualTo(16 * 1024 * 1024L);
    }
  }

  @Test
  void aStoreOpenedWithTheSettingsWritesAndReadsBackAfterReopening(@TempDir Path dir) throws Exception {
    RocksDB.loadLibrary();
    try (Options o = new Options().setCreateIfMissing(true)) {
      new RocksDbSettings().setConfig("store", o, Map.of());
      try (RocksDB db = RocksDB.open(o, dir.toString());
          FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
        db.put(new byte[] {1}, new byte[] {2});
        db.flush(flush);
      }
      // Reopened, the table file just flushed is loaded on the one thread.
      try (RocksDB db = RocksDB.open(o, dir.toString())) {
        assertThat(db.get(new byte[] {1})).containsExactly(2);
      }
    }
  }
}
