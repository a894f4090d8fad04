package io.stunwatch.processor.readmodel;

import java.time.Duration;

/**
 * The processor's named state stores. The API reads them through interactive queries, so their names and contents
 * are a contract.
 */
public final class StoreNames {

  /** Global: VM inventory by {@code <vcenterUuid>/<moref>} ({@code VmInventoryEntry}), on every instance. */
  public static final String VM_INVENTORY = "vm-inventory";
  /**
   * Global: host inventory by {@code <vcenterUuid>/<moref>} ({@code HostInventoryEntry}), on every instance: the
   * vMotion link speed and the versions forecasts use.
   */
  public static final String HOST_INVENTORY = "host-inventory";
  /**
   * Window store by VM id: the VM's recent load, one point a second, in blocks of ten seconds
   * ({@link VmSamples.Block}). On the heap unless {@code process.sample-store} says RocksDB; changelogged either way.
   * Not named {@code vm-samples}: an upgraded site may still hold that changelog, one point per window in another
   * format, and this store must never restore from it.
   */
  public static final String VM_SAMPLES = "vm-sample-blocks";
  /**
   * By load key ({@link LoadKeys}: the VM id, or the VM id and {@code |host} for the ESXi host's view, in the bytes of
   * {@link LoadKeySerde}): everything a reading updates ({@link VmLive}), one record per VM written once per commit.
   * Its current load, the open window of each load store and the open block of the per-second history are read from
   * here; the window stores and the history hold the closed ones, keyed by the same load keys as text.
   */
  public static final String VM_LIVE = "vm-live";
  /**
   * What {@link #VM_LIVE} replaced for the current load ({@link CurrentLoad}): read once per VM on an upgraded site,
   * then emptied (docs/upgrading.md).
   */
  public static final String VM_LOAD_CURRENT = "vm-load-current";
  /** Window store by VM id, 10 s tumbling windows of GPU load ({@link LoadAggregate}). */
  public static final String VM_LOAD_10S = "vm-load-10s";
  /** Window store by VM id, 1 min tumbling windows of GPU load ({@link LoadAggregate}). */
  public static final String VM_LOAD_1M = "vm-load-1m";
  /**
   * Window store by VM id, 1 h tumbling windows of GPU load ({@link LoadAggregate}), kept
   * {@link #VM_LOAD_1H_RETENTION}: a week of a VM's load by hour of day, which "when is it quieter?" reads.
   */
  public static final String VM_LOAD_1H = "vm-load-1h";
  /** How long {@link #VM_LOAD_1H} keeps a window: seven whole days behind the current hour. */
  public static final Duration VM_LOAD_1H_RETENTION = Duration.ofDays(8);
  /** Window store by VM id, one UTC day per window: GPU-seconds busy, idle and unknown by host
   * ({@link UtilizationDay}). */
  public static final String UTILIZATION_DAILY = "utilization-daily";
  /**
   * By {@link HostGpu#key} ({@code <host>|<pci bus id>}): each physical GPU's name and vGPU scheduler policy as its host
   * last reported them ({@link HostGpu}).
   */
  public static final String HOST_GPUS = "host-gpus";
  /** By migration id: every event of the migration's chain ({@link io.stunwatch.processor.domain.EventSet}). */
  public static final String MIGRATION_EVENTS = "migration-events";
  /** By migration id: the migration as assembled ({@code Migration}). */
  public static final String MIGRATIONS = "migrations";
  /** By migration id: the migration-under-load alert ({@code MigrationAlert}). */
  public static final String ALERTS = "alerts";
  /** By migration id: the final impact record ({@code MigrationImpact}). */
  public static final String IMPACTS = "impacts";
  /** By migration id: migrations open (for the timeout) or settling (for the impact). */
  public static final String TRACKED = "tracked-migrations";
  /**
   * By VM id: the start (epoch ms) of the earliest range a tracked migration of the VM still needs from its
   * per-second history ({@link #VM_SAMPLES}), which the history's writers keep whatever the VM's newest readings.
   */
  public static final String HISTORY_PINS = "history-pins";
  /**
   * What {@link #VM_LIVE} replaced for the previous RDMA sample of each port: read once per VM on an upgraded site,
   * then emptied (docs/upgrading.md).
   */
  public static final String RDMA_LAST = "rdma-last";
  /** By model key ({@code profile:T4-16C}, ...): the stun-time model this instance's partitions built. */
  public static final String STUN_MODEL = "stun-model";
  /** Global: the whole stun-time model, read back from its topic, for forecasts on every instance. */
  public static final String STUN_MODEL_GLOBAL = "stun-model-global";
  /** By VM id: the VM's most recent migration ids, so that a late vmware.log figure can find its migration. */
  public static final String VM_MIGRATIONS = "vm-migrations";
  /** By VM id: the DRS guard's protection of the VM ({@link GuardState}), while it lasts. */
  public static final String GUARD_STATE = "guard-state";
  /** By VM id: the DRS guard's audit trail of the VM ({@link GuardTrail}), from {@code stunwatch.guard-actions}. */
  public static final String GUARD_TRAIL = "guard-trail";
  /** By VM id: recent vmware.log stun observations. */
  public static final String VM_STUNS = "vm-stuns";

  /** By {@code <VM id>|<migration id>}: each migration's {@link MigrationRow}, a VM's read by prefix. */
  public static final String MIGRATIONS_BY_VM = "migrations-by-vm";
  /**
   * By {@link VmOrderKeys} ({@code <VM id>|<order>|<sort value>|<migration id>}), valued with the migration id: a
   * VM's migrations in start, stun and duration order, so that a page of a VM's list reads that page's rows of
   * {@link #MIGRATIONS_BY_VM}, not all of them.
   */
  public static final String MIGRATIONS_BY_VM_ORDER = "migrations-by-vm-order";
  /**
   * By {@link StartKeys} ({@code <start ms>|<migration id>}): each migration's {@link MigrationRow} in start
   * order, a time range's read by one range scan (annotations, lists). Its oldest keys are what
   * {@link io.stunwatch.processor.processors.HistoryRetention} forgets when a migration is older than {@code process.history-retention}.
   */
  public static final String MIGRATIONS_BY_START = "migrations-by-start-time";
  /**
   * By {@link StartKeys#hour} (the start's epoch hour): an {@link AnnotationBlock} of the Grafana annotations of the
   * migrations that started in that hour, so that a day's annotations are a couple of dozen reads. Kept for
   * {@code process.history-retention}, by whole hours.
   */
  public static final String ANNOTATIONS_BY_HOUR = "annotations-by-start-hour";

  /** By {@code <vcenter>/<moref>}: vCenter events of VMs the inventory does not know yet, held for their entry. */
  public static final String EVENTS_HELD = "events-held-for-inventory";
  /** By {@code <vcenter>/<moref>}: stun observations of VMs the inventory does not know yet. */
  public static final String STUNS_HELD = "stuns-held-for-inventory";
  /** By {@code <vcenter>/<moref>}: vMotion observations of VMs the inventory does not know yet. */
  public static final String VMOTIONS_HELD = "vmotions-held-for-inventory";
  /**
   * By vMotion id: the precopy bandwidth its source host logged and the VM its vmware.log names
   * ({@link io.stunwatch.processor.domain.Tracked.VmotionId}).
   */
  public static final String VMOTION_IDS = "vmotion-ids";
  /**
   * By migration id: the key of the VM whose partition holds the migration ({@code Tracked.Owner}), partitioned by
   * migration id, so that the API finds a migration's instance with one lookup.
   */
  public static final String MIGRATION_OWNERS = "migration-owners";
  /** By migration id: the key its events go under (see {@link io.stunwatch.processor.domain.Tracked.Route}). */
  public static final String CHAIN_ROUTES = "chain-routes";

  private StoreNames() {
  }
}
