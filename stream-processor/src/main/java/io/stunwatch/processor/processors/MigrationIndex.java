package io.stunwatch.processor.processors;

import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StartKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessingContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link StoreNames#MIGRATIONS_BY_VM} and {@link StoreNames#MIGRATIONS_BY_START} in step with the migrations,
 * alerts and impacts stores, so that the API lists a VM's migrations or a day's without scanning every migration
 * and decoding every impact's timeline. A processor that writes one of those stores calls {@link #refresh} after.
 * Each row carries its JSON renderings ({@link MigrationRow}), so a list is copied, not rendered; the annotations
 * are also kept by hour ({@link StoreNames#ANNOTATIONS_BY_HOUR}, {@link AnnotationBlock}).
 */
public final class MigrationIndex {

  private static final Logger LOG = LoggerFactory.getLogger(MigrationIndex.class);

  private final KeyValueStore<String, Migration> migrations;
  private final KeyValueStore<String, MigrationAlert> alerts;
  private final KeyValueStore<String, MigrationImpact> impacts;
  private final KeyValueStore<String, MigrationRow> byVm;
  private final KeyValueStore<String, String> byVmOrder;
  private final KeyValueStore<String, MigrationRow> byStart;
  private final KeyValueStore<String, AnnotationBlock> byHour;

  public MigrationIndex(ProcessingContext context) {
    this.migrations = context.getStateStore(StoreNames.MIGRATIONS);
    this.alerts = context.getStateStore(StoreNames.ALERTS);
    this.impacts = context.getStateStore(StoreNames.IMPACTS);
    this.byVm = context.getStateStore(StoreNames.MIGRATIONS_BY_VM);
    this.byVmOrder = context.getStateStore(StoreNames.MIGRATIONS_BY_VM_ORDER);
    this.byStart = context.getStateStore(StoreNames.MIGRATIONS_BY_START);
    this.byHour = context.getStateStore(StoreNames.ANNOTATIONS_BY_HOUR);
  }

  /** The {@link StoreNames#MIGRATIONS_BY_VM} key of a migration of the VM keyed {@code vmKey}. */
  public static String vmKey(String vmKey, String migrationId) {
    return VmOrderKeys.rowKey(vmKey, migrationId);
  }

  /**
   * Moves migration {@code row} (null when it leaves) of the VM keyed {@code vmKey}, whose row was {@code old} (null
   * when new), to its places in {@link StoreNames#MIGRATIONS_BY_VM_ORDER}.
   */
  static void reorder(KeyValueStore<String, String> byVmOrder, String vmKey, MigrationRow old, MigrationRow row) {
    for (VmOrderKeys.Order order : VmOrderKeys.Order.values()) {
      String was = old == null ? null : VmOrderKeys.of(vmKey, order, old);
      String now = row == null ? null : VmOrderKeys.of(vmKey, order, row);
      if (was != null && !was.equals(now)) {
        byVmOrder.delete(was);
      }
      if (now != null && !now.equals(was)) {
        byVmOrder.put(now, row.id());
      }
    }
  }

  /**
   * Fills {@link StoreNames#MIGRATIONS_BY_VM_ORDER} from {@link StoreNames#MIGRATIONS_BY_VM} when the task's order
   * index is empty and its rows are not: the first start of a build that keeps the index, on state written by one
   * that did not. Returns the rows indexed.
   */
  public long fillOrderIndex(String task) {
    try (KeyValueIterator<String, String> any = byVmOrder.all()) {
      if (any.hasNext()) {
        return 0;
      }
    }
    long n = 0;
    try (KeyValueIterator<String, MigrationRow> rows = byVm.all()) {
      while (rows.hasNext()) {
        KeyValue<String, MigrationRow> kv = rows.next();
        String vmKey = kv.key.substring(0, kv.key.length() - kv.value.id().length() - 1);
        reorder(byVmOrder, vmKey, null, kv.value);
        n++;
      }
    }
    if (n > 0) {
      LOG.info("Task {} indexed the {} migrations it holds by start, stun and duration, for the VMs' lists", task, n);
    }
    return n;
  }

  /** Rewrites the summary of migration {@code id} of the VM keyed {@code vmKey} from the stores, if it changed. */
  public void refresh(String vmKey, String id) {
    Migration m = migrations.get(id);
    if (m != null) {
      refresh(vmKey, m, impacts.get(id));
    }
  }

  /**
   * Rewrites the summary of migration {@code m}, as just stored, whose stored impact is {@code impact} (null when it
   * has none), if it changed. For callers that hold both: an impact's stored form carries its whole timeline, and
   * reading it back cost a twentieth of the stream thread's time.
   */
  public void refresh(String vmKey, Migration m, MigrationImpact impact) {
    if (m.startTime() == null) {
      return;
    }
    String id = m.id();
    MigrationRow row = MigrationRow.of(MigrationSummary.of(m, alerts.get(id), impact));
    String key = vmKey(vmKey, id);
    MigrationRow old = byVm.get(key);
    if (row.equals(old)) {
      return;
    }
    String hour = StartKeys.hour(row.startTime());
    if (old != null && !old.startTime().equals(row.startTime())) {
      byStart.delete(StartKeys.of(old.startTime(), id)); // an earlier event moved the start
      String oldHour = StartKeys.hour(old.startTime());
      if (!oldHour.equals(hour)) {
        AnnotationBlock was = byHour.get(oldHour);
        if (was != null) {
          AnnotationBlock now = was.without(id);
          if (now.isEmpty()) {
            byHour.delete(oldHour);
          } else if (now != was) {
            byHour.put(oldHour, now);
          }
        }
      }
    }
    byVm.put(key, row);
    reorder(byVmOrder, vmKey, old, row);
    byStart.put(StartKeys.of(row.startTime(), id), row);
    AnnotationBlock block = byHour.get(hour);
    AnnotationBlock updated = (block == null ? AnnotationBlock.EMPTY : block).with(row);
    if (updated != block) {
      byHour.put(hour, updated); // not when only the summary changed: the block holds the annotation alone
    }
  }
}
