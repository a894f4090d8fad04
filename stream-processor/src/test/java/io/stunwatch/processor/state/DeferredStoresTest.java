package io.stunwatch.processor.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DeferredKeyValueStore} and {@link DeferredWindowStore} on real RocksDB stores with changelogs, driven by
 * {@link TopologyTestDriver}, which commits after every input record. Each input is a script of store operations
 * that one record performs; the processor forwards what its reads returned.
 */
class DeferredStoresTest {

  private static final Instant T0 = Instant.parse("2026-11-21T12:00:00Z");

  @TempDir
  Path stateDir;

  private TopologyTestDriver driver;
  private TestInputTopic<String, String> in;
  private TestOutputTopic<String, String> reads;

  @BeforeEach
  void setUp() {
    StreamsBuilder b = new StreamsBuilder();
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("kv"),
        Serdes.String(), Serdes.String())));
    b.addStateStore(DeferredStores.window(Stores.windowStoreBuilder(Stores.persistentWindowStore("win",
        Duration.ofDays(1), Duration.ofSeconds(1), false), Serdes.String(), Serdes.String())));
    b.addStateStore(DeferredStores.window(Stores.windowStoreBuilder(Stores.inMemoryWindowStore("mem",
        Duration.ofSeconds(5), Duration.ofSeconds(1), false), Serdes.String(), Serdes.String())));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("kept"),
        Serdes.String(), Serdes.String()), 2));
    FlushOrder order = new FlushOrder("first", "second");
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("second"),
        Serdes.String(), Serdes.String()), order));
    b.addStateStore(DeferredStores.keyValue(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("first"),
        Serdes.String(), Serdes.String()), order));
    b.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
        .process(Script::new, "kv", "win", "mem", "kept", "first", "second")
        .to("reads", Produced.with(Serdes.String(), Serdes.String()));
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "deferred");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    driver = new TopologyTestDriver(b.build(), p);
    in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
    reads = driver.createOutputTopic("reads", new StringDeserializer(), new StringDeserializer());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  /**
   * Operations separated by {@code ;}: {@code put k v}, {@code del k}, {@code get k}, {@code wput k start v},
   * {@code wdel k start}, {@code wget k start}, {@code wrange k from to}, and {@code mput k start v} to the in-memory
   * window store "mem" (a retention of 5 s); each read forwards its answer. Two reach
   * behind the deferred window store, as Streams does around a standby: {@code wraw k start v} writes to the store
   * beneath it, as a restoration would, and {@code wclear} clears its cache hooks. The store "kept" keeps its last
   * two committed values as objects: {@code kput k v}, {@code kdel k}, {@code kget k}, {@code kraw k v} (a write
   * beneath it) and {@code kclear}. The stores "first" and "second" are flushed in that order: {@code fput k v} and
   * {@code sput k v} write to them, {@code sflush} flushes "second" as Streams would at a commit, and {@code fbeneath
   * k} and {@code sbeneath k} read what the stores beneath them hold.
   */
  static final class Script implements Processor<String, String, String, String> {
    private ProcessorContext<String, String> context;
    private KeyValueStore<String, String> kv;
    private WindowStore<String, String> win;
    private WindowStore<String, String> mem;
    private KeyValueStore<String, String> kept;
    private KeyValueStore<String, String> first;
    private KeyValueStore<String, String> second;

    @Override
    public void init(ProcessorContext<String, String> context) {
      this.context = context;
      kv = context.getStateStore("kv");
      win = context.getStateStore("win");
      mem = context.getStateStore("mem");
      kept = context.getStateStore("kept");
      first = context.getStateStore("first");
      second = context.getStateStore("second");
    }

    @Override
    public void process(Record<String, String> record) {
      for (String op : record.value().split(";")) {
        String[] a = op.trim().split(" ");
        switch (a[0]) {
          case "put" -> kv.put(a[1], a[2]);
          case "del" -> kv.delete(a[1]);
          case "get" -> context.forward(record.withKey(op.trim()).withValue(String.valueOf(kv.get(a[1]))));
          case "wput" -> win.put(a[1], a[3], Long.parseLong(a[2]));
          case "wdel" -> win.put(a[1], null, Long.parseLong(a[2]));
          case "mput" -> mem.put(a[1], a[3], Long.parseLong(a[2]));
          case "wraw" -> deferred().wrapped().put(a[1], a[3], Long.parseLong(a[2]));
          case "wclear" -> deferred().clearCache();
          case "kput" -> kept.put(a[1], a[2]);
          case "kdel" -> kept.delete(a[1]);
          case "kget" -> context.forward(record.withKey(op.trim()).withValue(String.valueOf(kept.get(a[1]))));
          case "kraw" -> keptBeneath().wrapped().put(a[1], a[2]);
          case "kclear" -> keptBeneath().clearCache();
          case "fput" -> first.put(a[1], a[2]);
          case "sput" -> second.put(a[1], a[2]);
          case "sflush" -> beneath(second).flushCache();
          case "fbeneath" -> context.forward(record.withKey(op.trim())
              .withValue(String.valueOf(beneath(first).wrapped().get(a[1]))));
          case "sbeneath" -> context.forward(record.withKey(op.trim())
              .withValue(String.valueOf(beneath(second).wrapped().get(a[1]))));
          case "wget" -> context.forward(record.withKey(op.trim())
              .withValue(String.valueOf(win.fetch(a[1], Long.parseLong(a[2])))));
          case "wrange" -> {
            List<String> out = new ArrayList<>();
            try (WindowStoreIterator<String> it = win.fetch(a[1], Long.parseLong(a[2]), Long.parseLong(a[3]))) {
              it.forEachRemaining(kv -> out.add(kv.key + "=" + kv.value));
            }
            context.forward(record.withKey(op.trim()).withValue(String.join(",", out)));
          }
          default -> throw new IllegalArgumentException(op);
        }
      }
    }

    @SuppressWarnings("unchecked")
    private DeferredKeyValueStore<String, String> keptBeneath() {
      return beneath(kept);
    }

    /** The deferred store behind the processor's read-write decorator of {@code store}. */
    @SuppressWarnings("unchecked")
    private static DeferredKeyValueStore<String, String> beneath(KeyValueStore<String, String> store) {
      return (DeferredKeyValueStore<String, String>) ((WrappedStateStore<?, ?, ?>) store).wrapped();
    }

    /** The deferred store behind the processor's read-write decorator. */
    @SuppressWarnings("unchecked")
    private DeferredWindowStore<String, String> deferred() {
      return (DeferredWindowStore<String, String>) ((WrappedStateStore<?, ?, ?>) win).wrapped();
    }
  }

  private List<String> run(String script, Instant at) {
    in.pipeInput("k", script, at);
    return reads.readRecordsToList().stream().map(r -> r.key() + " -> " + r.value()).toList();
  }

  private List<TestRecord<String, String>> changelog(String store) {
    return driver.createOutputTopic("deferred-" + store + "-changelog", new StringDeserializer(),
        new StringDeserializer()).readRecordsToList();
  }

  @Test
  void aKeyWrittenThriceInOneCommitReachesTheChangelogOnceWithItsLastValueAndTheRecordsTimestamp() {
    run("put a 1; put a 2; put b 9; put a 3", T0);

    List<TestRecord<String, String>> log = changelog("kv");
    assertThat(log).extracting(TestRecord::key, TestRecord::value)
        .containsExactlyInAnyOrder(tuple("a", "3"), tuple("b", "9"));
    assertThat(log).allSatisfy(r -> assertThat(r.getRecordTime()).isEqualTo(T0));
  }

  @Test
  void flushingOneStoreOfAFlushOrderWritesThePendingValuesOfTheStoresBeforeItToo() {
    assertThat(run("fput a 1; sput b 2; fbeneath a; sbeneath b; sflush; fbeneath a; sbeneath b", T0)).containsExactly(
        "fbeneath a -> null", "sbeneath b -> null", "fbeneath a -> 1", "sbeneath b -> 2");
    assertThat(changelog("first")).extracting(TestRecord::key, TestRecord::value).containsExactly(tuple("a", "1"));
    assertThat(changelog("second")).extracting(TestRecord::key, TestRecord::value).containsExactly(tuple("b", "2"));
  }

  @Test
  void readsSeePendingWritesAndDeletesBeforeTheCommitAndTheStoreAfterIt() {
    assertThat(run("put a 1; get a; put a 2; get a; del b; get b", T0))
        .containsExactly("get a -> 1", "get a -> 2", "get b -> null");
    assertThat(run("get a; del a; get a", T0.plusSeconds(1)))
        .containsExactly("get a -> 2", "get a -> null");
    assertThat(run("get a", T0.plusSeconds(2))).containsExactly("get a -> null");
    List<TestRecord<String, String>> log = changelog("kv");
    assertThat(log.subList(0, 2)).extracting(TestRecord::key, TestRecord::value)
        .containsExactlyInAnyOrder(tuple("a", "2"), tuple("b", null));
    assertThat(log.subList(2, log.size())).extracting(TestRecord::key, TestRecord::value)
        .containsExactly(tuple("a", null));
  }

  @Test
  void theLastValuesCommittedAreReadAsObjectsUntilPushedOutDeletedOrCleared() {
    run("kput a 1", T0);
    run("kput b 2", T0.plusSeconds(1));
    // Written beneath the deferred store's back (only a restoration would), so that a read shows where it came from.
    run("kraw a X; kraw b Y", T0.plusSeconds(2));
    assertThat(run("kget a; kget b", T0.plusSeconds(3))).containsExactly("kget a -> 1", "kget b -> 2");
    // Two are kept, the last written or read: a third pushes out the one read longest ago.
    run("kput c 3", T0.plusSeconds(4));
    assertThat(run("kget a; kget b; kget c", T0.plusSeconds(5)))
        .containsExactly("kget a -> X", "kget b -> 2", "kget c -> 3");
    run("kdel b", T0.plusSeconds(6));
    assertThat(run("kget b", T0.plusSeconds(7))).containsExactly("kget b -> null");
    run("kraw c C", T0.plusSeconds(8));
    assertThat(run("kclear; kget c", T0.plusSeconds(9))).containsExactly("kget c -> C");
  }

  @Test
  void aWindowRangeMergesPendingWindowsWithStoredOnesInTimeOrderAndHidesPendingDeletes() {
    run("wput k 1000 a; wput k 2000 b; wput k 4000 d; wput other 3000 x", T0);

    assertThat(run("wput k 3000 c; wput k 2000 B; wdel k 4000; wput k 5000 e; wrange k 0 10000; wget k 2000; "
        + "wget k 4000; wrange k 2000 3000; wrange other 0 10000", T0.plusSeconds(1)))
        .containsExactly(
            "wrange k 0 10000 -> 1000=a,2000=B,3000=c,5000=e",
            "wget k 2000 -> B",
            "wget k 4000 -> null",
            "wrange k 2000 3000 -> 2000=B,3000=c",
            "wrange other 0 10000 -> 3000=x");
    assertThat(run("wrange k 0 10000", T0.plusSeconds(2)))
        .containsExactly("wrange k 0 10000 -> 1000=a,2000=B,3000=c,5000=e");
  }

  @Test
  void lateAndNewerWindowsOfOneKeyAreKeptApartFromItsNewestAndWrittenInWindowOrder() {
    // The newest window of a key has a slot of its own: a late window, a newer one that pushes it out, and a
    // rewrite of any of them must all still be read, ranged and logged as one ordered set of windows.
    assertThat(run("wput k 2000 b; wput k 1000 a; wget k 2000; wget k 1000; wput k 3000 c; wput k 2000 B; "
        + "wput k 3000 C; wput k 500 z; wget k 2000; wget k 3000; wrange k 0 10000; wrange k 1000 2000", T0))
        .containsExactly(
            "wget k 2000 -> b",
            "wget k 1000 -> a",
            "wget k 2000 -> B",
            "wget k 3000 -> C",
            "wrange k 0 10000 -> 500=z,1000=a,2000=B,3000=C",
            "wrange k 1000 2000 -> 1000=a,2000=B");
    assertThat(changelog("win")).extracting(TestRecord::value).containsExactly("z", "a", "B", "C");
    assertThat(run("wrange k 0 10000", T0.plusSeconds(1)))
        .containsExactly("wrange k 0 10000 -> 500=z,1000=a,2000=B,3000=C");
  }

  @Test
  void aWindowLaterThanItsKeysNewestIsAMissWithoutAReadOfTheStoreBeneathUntilTheStoreIsCleared() {
    run("wput k 1000 a; wput k 3000 c", T0);
    // A window the deferred store did not write is not read where it cannot be: later than the key's newest.
    run("wraw k 5000 x", T0.plusSeconds(1));
    assertThat(run("wget k 5000; wget k 3000", T0.plusSeconds(2)))
        .containsExactly("wget k 5000 -> null", "wget k 3000 -> c");
    // Cleared (as around a standby's restoration), the store reads the key's newest window again at the first write,
    // even a late one: the windows beneath it, restored ones too, are all found.
    assertThat(run("wclear; wput k 2000 b; wget k 5000; wget k 4000; wget k 1000; wget other 9000", T0.plusSeconds(3)))
        .containsExactly("wget k 5000 -> x", "wget k 4000 -> null", "wget k 1000 -> a", "wget other 9000 -> null");
  }

  @Test
  void theWindowsOfACommitReachTheStoreBeneathOldestFirstAcrossKeys() {
    run("wput b 3000 x; wput a 5000 y; wput b 1000 z; wput c 2000 w; wput a 4000 v", T0);

    assertThat(changelog("win")).extracting(TestRecord::value).containsExactly("z", "w", "x", "v", "y");
  }

  @Test
  void aCommitSpanningMoreThanTheRetentionDropsNoWindowForAnotherKeysNewerOne() {
    // An in-memory window store drops a window older than the newest it was given by more than its retention (5 s
    // here): written key after key, "a" (hashed first) took the store's time to 60 s and "b"'s window at 54 s was
    // dropped. Oldest first, each window is taken when it comes, and expires later as the store's time moves on.
    run("mput b 54000 b1; mput b 58000 b2; mput a 60000 a1; mput b 59000 b3", T0);

    // The store counts what it drops in the task's dropped-records metric.
    assertThat(driver.metrics().entrySet()).filteredOn(m -> m.getKey().name().equals("dropped-records-total"))
        .singleElement().satisfies(m -> assertThat(m.getValue().metricValue()).isEqualTo(0.0));
    assertThat(changelog("mem")).extracting(TestRecord::value).containsExactly("b1", "b2", "b3", "a1");
  }

  @Test
  void windowWritesReachTheChangelogOncePerWindowAndCommit() {
    run("wput k 1000 a; wput k 1000 b; wput k 2000 c; wput k 1000 d", T0);

    assertThat(changelog("win")).extracting(TestRecord::value).containsExactlyInAnyOrder("d", "c");
  }

  @Test
  void streamsSeesThroughTheDeferredStoreWhetherTheStoreBeneathIsTimestamped() {
    // Decides how a restore converts changelog records: a timestamped store gets each record's timestamp put back.
    assertThat(WrappedStateStore.isTimestamped(DeferredStores
        .timestampedWindow(Stores.timestampedWindowStoreBuilder(Stores.persistentTimestampedWindowStore("t",
            Duration.ofDays(1), Duration.ofSeconds(10), false), Serdes.String(), Serdes.String())).build())).isTrue();
    assertThat(WrappedStateStore.isTimestamped(DeferredStores
        .window(Stores.windowStoreBuilder(Stores.persistentWindowStore("w", Duration.ofDays(1),
            Duration.ofSeconds(10), false), Serdes.String(), Serdes.String())).build())).isFalse();
  }
}
