package io.stunwatch.processor;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.ConfigValues;
import io.stunwatch.processor.processors.LiveCommits;
import io.stunwatch.processor.readmodel.StoreNames;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of the stream processor, read once from {@link ConfigSource} and validated there ({@link #from}): each is
 * a {@link ConfigKey} of {@link #KEYS} (documented in docs/configuration.md), read with {@link #get}, and the DRS
 * guard's are {@link GuardConfig}. The named accessors below read the same values, in the units the processor uses.
 * A copy with one value changed is {@link #with} (a second instance, a test).
 */
public final class ProcessorConfig {

  /** Where the per-second load history ({@link StoreNames#VM_SAMPLES}) is kept; both are changelogged alike. */
  public enum SampleStore {
    /** On the heap, restored from its changelog at each start: no RocksDB write or segment per block. */
    MEMORY,
    /** In RocksDB on disk, as every other store: for histories too large for the heap. */
    ROCKSDB
  }

  public static final ConfigKey<String> APPLICATION_ID = ConfigKeys.string("process.application-id",
      "stunwatch-processor", "Kafka Streams application id; instances with the same id share the work.");
  public static final ConfigKey<Path> STATE_DIR = ConfigKeys.path("process.state-dir",
      Path.of("stunwatch-data", "streams"), "Directory of the processor's state stores.");
  public static final ConfigKey<Integer> ALERT_GPU_PCT = ConfigKeys.integer("process.alert.gpu-utilization-pct", 50,
      0, 100, "A migration starts under load when the VM's GPU utilization over the alert window is at least this.");
  public static final ConfigKey<Duration> ALERT_WINDOW = ConfigKeys.duration("process.alert.window",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1),
      "Look-back of the GPU utilization average an alert compares.");
  public static final ConfigKey<Integer> ALERT_FB_PCT = ConfigKeys.integer("process.alert.fb-used-pct", 80, 0, 100,
      "A migration starts under load when the VM's framebuffer use is at least this percent of its size.");
  public static final ConfigKey<Integer> ALERT_RDMA_MBPS = ConfigKeys.integer("process.alert.rdma-mbps", 1000, 0,
      10_000_000, "A migration starts under load when the VM's RDMA traffic is at least this many Mbit/s.");
  public static final ConfigKey<Duration> SAMPLE_RETENTION = ConfigKeys.duration("process.sample-retention",
      Duration.ofHours(1), Duration.ofMinutes(1), Duration.ofHours(24),
      "How long each VM's per-second load history is kept (alerts, impact timelines). It also bounds how far a "
          + "VM's samples may run ahead of its vCenter events (one repartition hop behind) in a catch-up.");

  public static final ConfigKey<Duration> BEFORE_WINDOW = ConfigKeys.duration("process.before-window",
      Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofHours(1),
      "The 'before' phase an impact record compares against.");
  public static final ConfigKey<Duration> SETTLE_WINDOW = ConfigKeys.duration("process.settle-window",
      Duration.ofSeconds(120), Duration.ofSeconds(1), Duration.ofHours(1),
      "After-samples collected past a migration's end before its impact record is emitted.");
  public static final ConfigKey<Duration> MIGRATION_TIMEOUT = ConfigKeys.duration("process.migration-timeout",
      Duration.ofMinutes(30), Duration.ofMinutes(1), Duration.ofDays(1),
      "A migration that has not ended after this long is closed with result UNKNOWN.");

  public static final ConfigKey<Duration> LATE_GRACE = ConfigKeys.duration("process.late-grace",
      Duration.ofSeconds(60), Duration.ZERO, Duration.ofHours(6),
      "A sample up to this far behind the newest sample of its own source (its VM, view and the machine that read "
          + "it) still counts in its load and utilization windows; later ones are dropped and counted (Kafka Streams' "
          + "dropped-records metric). Behind its own source, not the task's stream time: VMs share partitions, and one "
          + "replayed after another is not late.");
  public static final ConfigKey<Duration> WINDOW_RETENTION = ConfigKeys.duration("process.window-retention",
      Duration.ofHours(6), Duration.ofMinutes(10), Duration.ofDays(30),
      "How long each VM keeps its 10 s and 1 min load windows behind its newest, for /api/vms/{vm}/load (which "
          + "says from when in windowsKeptFrom). Counted per VM, so a VM replayed after another keeps its own. The "
          + "1 h windows keep eight days and the utilization audit process.utilization-retention, whatever this "
          + "says. At least process.late-grace plus 1 min.");
  public static final ConfigKey<Duration> UTILIZATION_RETENTION = ConfigKeys.duration(
      "process.utilization-retention", Duration.ofDays(90), Duration.ofDays(2), Duration.ofDays(3660),
      "How long the daily GPU utilization audit (busy and idle GPU-hours per VM and host) is kept.");
  public static final ConfigKey<Integer> IDLE_BELOW_PCT = ConfigKeys.integer("process.idle-utilization-pct", 5, 1,
      100, "In the utilization audit a GPU is idle while its utilization is below this percent.");
  public static final ConfigKey<Duration> INVENTORY_REFRESH = ConfigKeys.duration("process.inventory-refresh",
      Duration.ofSeconds(10), Duration.ZERO, Duration.ofMinutes(10),
      "How often the by-VM-id view of the inventory (hosts in the utilization audit) is rebuilt.");

  public static final ConfigKey<String> INSTANCE_ID = ConfigKeys.optionalString("process.instance-id",
      "Static group membership: a stable id per instance (a StatefulSet ordinal, a host name). A restarted "
          + "instance with the same id takes its partitions back at once instead of after the session timeout, "
          + "with no rebalance. Unset: dynamic membership.");

  public static final ConfigKey<Integer> THREADS = ConfigKeys.integer("process.threads", 1, 1, 64,
      "Stream threads of this instance. Work is split by task (a partition of every input topic), so more threads "
          + "help only up to the partition count; one per core the instance may use.");

  public static final ConfigKey<Duration> HISTORY_RETENTION = ConfigKeys.duration("process.history-retention",
      Duration.ofDays(400), Duration.ofDays(1), Duration.ofDays(3660),
      "How long a migration is kept after its start, counted in stream time: then its events, alert, impact, list "
          + "rows and annotation leave every store, and the migration, impact and alert topics get tombstones.");

  public static final ConfigKey<Integer> CACHE_MIB = ConfigKeys.integer("process.cache-mib", 10, 0, 4096,
      "Kafka Streams' record cache for all of this instance's state stores, MiB (statestore.cache.max.bytes; "
          + "Streams' default). It absorbs repeated writes to a key between commits; 1 MiB cut a catch-up's "
          + "throughput by a third (docs/performance.md). 0 turns it off.");

  public static final ConfigKey<Boolean> JMX_METRICS = ConfigKeys.bool("process.jmx-metrics", false,
      "Also report the Kafka Streams clients' metrics to JMX (Kafka's JmxReporter). Off by default: /metrics serves "
          + "the same meters, and JMX registers and unregisters an MBean each time an interactive query opens the "
          + "first iterator on a store, a fifth of the API's cost per list request (docs/performance.md).");

  public static final ConfigKey<Duration> COMMIT_INTERVAL = ConfigKeys.duration("process.commit-interval",
      Duration.ofSeconds(1), Duration.ofMillis(10), Duration.ofMinutes(1),
      "How often the processor commits its transaction (commit.interval.ms): its outputs reach read_committed "
          + "readers, and the API's lists see its state, at commits. A live migration's vCenter events and its alert "
          + "are committed at once whatever this says (LiveCommits). Kafka's exactly-once default is 100ms; each "
          + "commit costs the broker a marker on every partition written, and the stores a write of every key "
          + "changed (docs/performance.md).");

  public static final ConfigKey<SampleStore> SAMPLE_STORE = ConfigKeys.enumeration("process.sample-store",
      SampleStore.class, SampleStore.MEMORY,
      "Where each VM's per-second load history (the store vm-sample-blocks) is kept. memory: on the heap, about "
          + "0.26 MB per VM for each hour of process.sample-retention (260 MB for 1,000 VMs at 1h, shared among the "
          + "instances), restored from its changelog at each start; its RocksDB writes and new segments were about "
          + "a tenth of the stream threads' CPU in a catch-up (docs/performance.md). rocksdb: on disk, for fleets or "
          + "retentions whose history does not fit the heap. Both use the same changelog, so a change keeps the "
          + "history.");

  public static final ConfigKey<Duration> IDLE_CLOSE = ConfigKeys.duration("process.idle-close",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofDays(1),
      "Wall time a processor task may go without any input record before the wall clock closes its due migrations "
          + "(timeouts, settled impacts), as if event time had moved on by the time idle. Until then only event time "
          + "closes them, so a replay, a catch-up or a processor whose clock is days after the data gives the same "
          + "migrations, impacts and alerts as live.");
  public static final ConfigKey<Duration> INVENTORY_HOLD = ConfigKeys.duration("process.inventory-hold",
      Duration.ofMinutes(10), Duration.ZERO, Duration.ofDays(1),
      "Wall time a vCenter event or stun observation of a VM the inventory does not know yet is held for the VM's "
          + "inventory entry, so that its migration is keyed by VM id and meets the VM's samples. Past it the "
          + "record goes on under the VM's vCenter key (counted by the Streams metric inventory-hold-expired-<topic>); "
          + "the chain it belongs to stays there, so one migration is never two records.");

  public static final ConfigKey<Integer> STANDBY_REPLICAS = ConfigKeys.integer("process.standby-replicas", 0, 0, 8,
      "Warm copies of each task's state stores that other instances of the same process.application-id keep, "
          + "following the changelogs (Kafka Streams' num.standby.replicas). When an instance dies, the one that "
          + "holds a copy takes its tasks over after catching up the last records, not a whole restore, and its API "
          + "answers for those VMs. Each copy costs its instance the stores' disk and the changelogs' read traffic. "
          + "0: a task moved after a failure is restored from its changelog first.");

  public static final ConfigKey<Duration> SESSION_TIMEOUT = ConfigKeys.duration("process.session-timeout",
      Duration.ofSeconds(10), Duration.ofSeconds(6), Duration.ofMinutes(30),
      "How long the group waits for an instance it no longer hears from (kill -9, an OOM, a lost host) before its "
          + "tasks move to another: the main consumer's session.timeout.ms, which Kafka's default puts at 45 s. Until "
          + "then that instance's VMs get no new alerts or impacts, and /ready of the others says NOT_READY while they "
          + "take the tasks over. A clean stop without process.instance-id hands its tasks over at once; with it, the "
          + "group waits this long for the instance to come back (a restart within it keeps its tasks, no "
          + "rebalance). Heartbeats go every 500 ms, so a stop-the-world pause shorter than this costs nothing. The "
          + "broker refuses values outside its group.min.session.timeout.ms (6 s) and group.max.session.timeout.ms "
          + "(30 min).");

  /** The longest gap between two samples of a GPU that the utilization audit still counts as sampled time. */
  public static final long MAX_SAMPLE_GAP_SECONDS = 60;

  public static final List<ConfigKey<?>> KEYS = List.of(APPLICATION_ID, STATE_DIR, ALERT_GPU_PCT, ALERT_WINDOW,
      ALERT_FB_PCT, ALERT_RDMA_MBPS, SAMPLE_RETENTION, BEFORE_WINDOW, SETTLE_WINDOW, MIGRATION_TIMEOUT, LATE_GRACE,
      WINDOW_RETENTION, UTILIZATION_RETENTION, IDLE_BELOW_PCT, INVENTORY_REFRESH, INSTANCE_ID, THREADS, HISTORY_RETENTION,
      CACHE_MIB, JMX_METRICS, COMMIT_INTERVAL, SAMPLE_STORE, IDLE_CLOSE, INVENTORY_HOLD, STANDBY_REPLICAS,
      SESSION_TIMEOUT);

  private final ConfigValues values;
  private final GuardConfig guard;

  private ProcessorConfig(ConfigValues values, GuardConfig guard) {
    this.values = values;
    this.guard = guard;
  }

  public static ProcessorConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    ProcessorConfig c = new ProcessorConfig(ConfigValues.read(r, KEYS), GuardConfig.read(r));
    r.check(c.sampleRetention().compareTo(c.beforeWindow().plus(c.settleWindow())) > 0, SAMPLE_RETENTION,
        "must be longer than process.before-window plus process.settle-window, or impact timelines are cut");
    r.check(c.windowRetention().compareTo(c.lateGrace().plusMinutes(1)) >= 0, WINDOW_RETENTION,
        "must be at least process.late-grace plus 1 min, or a late sample could reopen a window already let go");
    r.done();
    return c;
  }

  /** Defaults, for tests and embedding: every key at its catalog default. */
  public static ProcessorConfig defaults() {
    return from(ConfigSource.of(Map.of()));
  }

  /** The value of {@code key}, one of {@link #KEYS}; null for an optional key that is not set. */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  /** This configuration with {@code key} set to {@code value}. */
  public <T> ProcessorConfig with(ConfigKey<T> key, T value) {
    return new ProcessorConfig(values.with(key, value), guard);
  }

  /** This configuration with the DRS guard's decisions as {@code g}. */
  public ProcessorConfig withGuard(GuardConfig g) {
    return new ProcessorConfig(values, g);
  }

  /** This configuration under another application id and state directory (a second instance, a test). */
  public ProcessorConfig withIdentity(String applicationId, Path stateDir) {
    return with(APPLICATION_ID, applicationId).with(STATE_DIR, stateDir);
  }

  /** This configuration with a static group membership id ({@code process.instance-id}). */
  public ProcessorConfig withInstanceId(String id) {
    return with(INSTANCE_ID, id == null || id.isBlank() ? null : id);
  }

  /** This configuration with {@code threads} stream threads ({@code process.threads}). */
  public ProcessorConfig withThreads(int threads) {
    return with(THREADS, threads);
  }

  /** This configuration with another inventory refresh (tests use zero: every miss looks again). */
  public ProcessorConfig withInventoryRefresh(Duration refresh) {
    return with(INVENTORY_REFRESH, refresh);
  }

  /** This configuration with another {@code process.history-retention}. */
  public ProcessorConfig withHistoryRetention(Duration retention) {
    return with(HISTORY_RETENTION, retention);
  }

  /** Kafka Streams application id (consumer group, internal topic prefix). */
  public String applicationId() {
    return get(APPLICATION_ID);
  }

  /** Where the state stores live on disk. */
  public Path stateDir() {
    return get(STATE_DIR);
  }

  /** "Under load" when GPU utilization averaged over {@link #alertWindow} is at least this. */
  public double alertGpuPct() {
    return get(ALERT_GPU_PCT);
  }

  /** The look-back of that average. */
  public Duration alertWindow() {
    return get(ALERT_WINDOW);
  }

  /** "Under load" when framebuffer used is at least this percent. */
  public double alertFbUsedPct() {
    return get(ALERT_FB_PCT);
  }

  /** "Under load" when RDMA traffic is at least this many Gbit/s. */
  public double alertRdmaGbps() {
    return get(ALERT_RDMA_MBPS) / 1000.0;
  }

  /** How long a VM's load history is kept for alerts and impact timelines. */
  public Duration sampleRetention() {
    return get(SAMPLE_RETENTION);
  }

  /** The "before" phase of an impact record. */
  public Duration beforeWindow() {
    return get(BEFORE_WINDOW);
  }

  /** The "after" phase: how long after its end a migration's impact is closed. */
  public Duration settleWindow() {
    return get(SETTLE_WINDOW);
  }

  /** A migration without an end after this long is closed as UNKNOWN. */
  public Duration migrationTimeout() {
    return get(MIGRATION_TIMEOUT);
  }

  /** How far behind the newest sample of its own source a sample may be and still count in its window. */
  public Duration lateGrace() {
    return get(LATE_GRACE);
  }

  /** How long each VM keeps its 10 s and 1 min load windows behind its newest. */
  public Duration windowRetention() {
    return get(WINDOW_RETENTION);
  }

  /** How long the daily utilization audit is kept. */
  public Duration utilizationRetention() {
    return get(UTILIZATION_RETENTION);
  }

  /** A GPU below this utilization is idle in the audit. */
  public double idleBelowPct() {
    return get(IDLE_BELOW_PCT);
  }

  /** How stale the by-VM-id view of the inventory may get. */
  public Duration inventoryRefresh() {
    return get(INVENTORY_REFRESH);
  }

  /** Static group membership id of this instance, or empty for dynamic membership. */
  public String instanceId() {
    String id = get(INSTANCE_ID);
    return id == null ? "" : id;
  }

  /** Stream threads of this instance. */
  public int threads() {
    return get(THREADS);
  }

  /** How long a migration is kept after its start, in every store and output topic. */
  public Duration historyRetention() {
    return get(HISTORY_RETENTION);
  }

  /** Kafka Streams' record cache, MiB. */
  public int cacheMib() {
    return get(CACHE_MIB);
  }

  /** Whether the Streams clients also report their metrics to JMX. */
  public boolean jmxMetrics() {
    return get(JMX_METRICS);
  }

  /** How often the stream threads commit when nothing asks for a commit sooner. */
  public Duration commitInterval() {
    return get(COMMIT_INTERVAL);
  }

  /** Where the per-second load history is kept: the heap or RocksDB. */
  public SampleStore sampleStore() {
    return get(SAMPLE_STORE);
  }

  /**
   * Wall time without input after which a task's due migrations are closed as if event time had moved on by the
   * time idle.
   */
  public Duration idleClose() {
    return get(IDLE_CLOSE);
  }

  /** Wall time a vCenter event of a VM the inventory does not know yet is held for its entry. */
  public Duration inventoryHold() {
    return get(INVENTORY_HOLD);
  }

  /** Warm copies of each task's stores that other instances keep ({@code num.standby.replicas}). */
  public int standbyReplicas() {
    return get(STANDBY_REPLICAS);
  }

  /** How long the group waits for a silent instance before its tasks move ({@code session.timeout.ms}). */
  public Duration sessionTimeout() {
    return get(SESSION_TIMEOUT);
  }

  /** The DRS guard's decisions ({@code guard.*}). */
  public GuardConfig guard() {
    return guard;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProcessorConfig c && values.equals(c.values) && guard.equals(c.guard);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values, guard);
  }

  @Override
  public String toString() {
    return "ProcessorConfig" + values + " " + guard;
  }
}
