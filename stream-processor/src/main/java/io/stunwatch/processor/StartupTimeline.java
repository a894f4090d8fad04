package io.stunwatch.processor;

import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an instance's start goes, from the JVM's start to its first RUNNING, said in one log line then: the JVM and
 * the topology until the processor starts; the group's join and assignment and the opening of the tasks' stores,
 * until the first changelog restore starts; the restoration (records read back, {@link RestoreCounts}); and what
 * follows until every task runs. After a {@code kill -9} this says which part a faster restart must shorten.
 */
public final class StartupTimeline {

  private static final Logger LOG = LoggerFactory.getLogger(StartupTimeline.class);

  private final LongSupplier millis;
  private final long jvmStart;
  private volatile long processorStart = -1;
  private final AtomicLong firstRestoreStart = new AtomicLong(-1);
  private final AtomicLong lastRestoreEnd = new AtomicLong(-1);
  private final AtomicLong restored = new AtomicLong();
  private final Map<String, AtomicLong> restoredByStore = new ConcurrentHashMap<>();
  private final AtomicBoolean said = new AtomicBoolean();

  /** A timeline of this JVM, on the wall clock. */
  public StartupTimeline() {
    this(System::currentTimeMillis, ManagementFactory.getRuntimeMXBean().getStartTime());
  }

  StartupTimeline(LongSupplier millis, long jvmStartMillis) {
    this.millis = millis;
    this.jvmStart = jvmStartMillis;
  }

  /** The processor's {@code KafkaStreams.start()} is being called. */
  void processorStarting() {
    processorStart = millis.getAsLong();
  }

  void restoreStarted() {
    firstRestoreStart.compareAndSet(-1, millis.getAsLong());
  }

  void restoreEnded(String store, long records) {
    restored.addAndGet(records);
    restoredByStore.computeIfAbsent(store, k -> new AtomicLong()).addAndGet(records);
    lastRestoreEnd.set(millis.getAsLong());
  }

  /** Called on each state change: the first RUNNING is said, with its parts. */
  void stateChanged(KafkaStreams.State now) {
    if (now == KafkaStreams.State.RUNNING && said.compareAndSet(false, true)) {
      LOG.info(line(millis.getAsLong()));
    }
  }

  /** The line said at {@code running}, epoch ms. */
  String line(long running) {
    long started = processorStart < 0 ? jvmStart : processorStart;
    long restoreFrom = firstRestoreStart.get();
    StringBuilder b = new StringBuilder(String.format("Running %d ms after the JVM started: the JVM and topology "
        + "until the processor started %d ms", running - jvmStart, started - jvmStart));
    if (restoreFrom < 0) {
      b.append(String.format(", then the group's join and assignment and the stores' opening %d ms, no changelog "
          + "to restore", running - started));
    } else {
      long restoreTo = Math.max(restoreFrom, lastRestoreEnd.get());
      b.append(String.format(", the group's join and assignment and the stores' opening %d ms, restoring %d changelog "
              + "records %d ms (%s), then until every task ran %d ms", restoreFrom - started, restored.get(),
          restoreTo - restoreFrom, largest(), running - restoreTo));
    }
    return b.toString();
  }

  /** The stores that read back the most, most first: at most three. */
  private String largest() {
    return restoredByStore.entrySet().stream()
        .sorted(Map.Entry.<String, AtomicLong>comparingByValue(Comparator.comparingLong(AtomicLong::get)).reversed()
            .thenComparing(Map.Entry.comparingByKey()))
        .limit(3).map(e -> e.getKey() + " " + e.getValue().get()).collect(Collectors.joining(", "));
  }
}
