package io.stunwatch.processor;

/**
 * The processor's named state stores. The API reads them through interactive queries, so their names and contents
 * are a contract.
 */
public final class StoreNames {

  /** Global: VM inventory by {@code <vcenterUuid>/<moref>} ({@code VmInventoryEntry}), on every instance. */
  public static final String VM_INVENTORY = "vm-inventory";
  /** By VM id: the VM's recent GPU load, one point a second ({@link VmSamples}). */
  public static final String VM_SAMPLES = "vm-samples";
  /** By migration id: every event of the migration's chain ({@link EventSet}). */
  public static final String MIGRATION_EVENTS = "migration-events";
  /** By migration id: the migration as assembled ({@code Migration}). */
  public static final String MIGRATIONS = "migrations";
  /** By migration id: the migration-under-load alert ({@code MigrationAlert}). */
  public static final String ALERTS = "alerts";
  /** By migration id: the final impact record ({@code MigrationImpact}). */
  public static final String IMPACTS = "impacts";
  /** By migration id: migrations open (for the timeout) or settling (for the impact). */
  public static final String TRACKED = "tracked-migrations";
  /** By VM id: the previous RDMA sample of each port, for rates. */
  public static final String RDMA_LAST = "rdma-last";
  /** By model key ({@code profile:T4-16C}, ...): the stun-time model this instance's partitions built. */
  public static final String STUN_MODEL = "stun-model";
  /** Global: the whole stun-time model, read back from its topic, for forecasts on every instance. */
  public static final String STUN_MODEL_GLOBAL = "stun-model-global";
  /** By VM id: recent vmware.log stun observations. */
  public static final String VM_STUNS = "vm-stuns";

  private StoreNames() {
  }
}
