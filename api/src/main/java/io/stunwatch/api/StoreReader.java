package io.stunwatch.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the API reads from the processor's state stores. Every method answers for the whole application: the
 * stores of every instance, not only this one's. A store that is not queryable (a rebalance) fails the future with
 * {@link StoresUnavailableException}.
 */
public interface StoreReader {

  /**
   * The migrations that started within {@code [from, to]}, with what a list needs of their alerts and impacts, as
   * the index stores them: ready-rendered rows, in no particular order.
   */
  Future<List<MigrationRow>> migrations(Instant from, Instant to);

  /** Every migration of the VM with id {@code vmId} (the SMBIOS UUID the processor keys it by), as stored rows. */
  Future<List<MigrationRow>> migrationsOfVm(String vmId);

  /**
   * Up to {@code n} of the VM's migrations in {@code order}, ascending or ({@code desc}) descending, that come
   * strictly after {@code after} in that direction (a {@link VmOrderKeys#position}; null: from the first), as stored
   * rows in that order. A page of a VM's list reads about its own rows, not the VM's whole history. This default
   * reads the whole history and sorts it: the contract, for stores without the order index.
   */
  default Future<List<MigrationRow>> migrationsOfVm(String vmId, VmOrderKeys.Order order, boolean desc,
      String after, int n) {
    return migrationsOfVm(vmId).map(all -> {
      Comparator<String> direction = desc ? Comparator.reverseOrder() : Comparator.naturalOrder();
      return all.stream()
          .map(r -> Map.entry(VmOrderKeys.position(order, r), r))
          .filter(e -> after == null || direction.compare(e.getKey(), after) > 0)
          .sorted(Map.Entry.comparingByKey(direction))
          .limit(n)
          .map(Map.Entry::getValue)
          .toList();
    });
  }

  /**
   * The annotation blocks of every hour that {@code [from, to]} touches, one per hour and instance partition, in
   * no particular order: their entries may start outside the range.
   */
  Future<List<AnnotationBlock>> annotationBlocks(Instant from, Instant to);

  /** One migration's summary by id (also before its impact is settled), or empty. */
  Future<Optional<MigrationSummary>> migration(String migrationId);

  /**
   * Migration {@code migrationId} as {@code GET /api/migrations/{id}} shows it, rendered: its impact record once
   * settled, else its summary; empty when no instance holds it. This default asks {@link #impact}, then
   * {@link #migration}; an implementation over several instances asks the one that holds it.
   */
  default Future<Optional<Buffer>> migrationRecord(String migrationId) {
    return impact(migrationId).compose(i -> i.isPresent() ? Future.succeededFuture(Optional.<Object>of(i.get()))
            : migration(migrationId).map(m -> m.<Object>map(x -> x)))
        .map(o -> o.map(StoreReader::render));
  }

  /** {@code value} rendered as the API renders an answer. */
  static Buffer render(Object value) {
    try {
      return Buffer.buffer(Json.mapper().writeValueAsBytes(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render " + value.getClass().getSimpleName(), e);
    }
  }

  /** The impact record of one migration, or empty. */
  Future<Optional<MigrationImpact>> impact(String migrationId);

  /**
   * The migration-under-load alerts raised within {@code [from, to]} (in {@code state}, FIRING or RESOLVED, when not
   * null), newest first, at most {@code limit} of them. Read through the start-time index: an alert is raised at its
   * migration's start, so a range costs the migrations that started in it, not every alert kept.
   */
  Future<List<MigrationAlert>> alerts(Instant from, Instant to, MigrationAlert.AlertState state, int limit);

  /**
   * The VM's latest GPU samples as one view reads them, or empty.
   *
   * @param loadKey the VM id for the guest's view, or {@link LoadKeys#of} it for the ESXi host's
   */
  Future<Optional<CurrentLoad>> currentLoad(String loadKey);

  /**
   * The VM's load windows ({@code 10s}, {@code 1m} or {@code 1h}) starting within {@code [from, to]}, oldest first, as one view
   * reads them ({@code loadKey}, as for {@link #currentLoad}).
   */
  Future<List<LoadWindow>> loadWindows(String loadKey, String size, Instant from, Instant to);

  /** Every physical GPU of the ESXi hosts, as its host last reported it: name and vGPU scheduler policy. */
  Future<List<HostGpu>> hostGpus();

  /** The VM inventory as the processor holds it (a global store: every VM of every vCenter). */
  Future<List<VmInventoryEntry>> vmInventory();

  /** The host inventory as the processor holds it: link speeds and versions. */
  Future<List<HostInventoryEntry>> hostInventory();

  /** Every group of the stun-time model. */
  Future<List<StunModelEntry>> model();

  /**
   * The VMs the DRS guard protects now (its decision state, {@code guard-state}), in no order; fails when the
   * processor does not run the guard ({@code guard.enabled}).
   */
  Future<List<GuardState>> guarded();

  /**
   * The DRS guard's audit trail of every VM it acted on ({@code guard-trail}, from {@code stunwatch.guard-actions}),
   * in no order; fails when the processor does not run the guard.
   */
  Future<List<GuardTrail>> guardTrails();

  /** Days of the utilization audit within {@code [from, to]}, one row per VM, day and host. */
  Future<List<UtilizationRow>> utilization(Instant from, Instant to);

  /**
   * A load window.
   *
   * @param start window start
   * @param end   window end (exclusive)
   * @param load  the aggregate
   */
  record LoadWindow(Instant start, Instant end, LoadAggregate load) {
  }

  /**
   * One VM's GPU time on one host on one UTC day.
   *
   * @param day         the day (its start)
   * @param vmId        the VM
   * @param host        the host, or {@code (unresolved)}
   * @param busySeconds GPU-seconds at or above the idle threshold
   * @param idleSeconds GPU-seconds below it
   * @param unknownSeconds GPU-seconds with no readable utilization
   * @param source      the view the seconds were read in: the guest's, or the ESXi host's
   */
  record UtilizationRow(Instant day, String vmId, String host, double busySeconds, double idleSeconds,
      double unknownSeconds, LoadSource source) {
  }

  /**
   * Part of the state is owned by an instance that serves no queries: a deployment error that retrying does not
   * cure, answered with a 503 that says so rather than a list without that part.
   */
  final class StateOutOfReachException extends RuntimeException {
    public StateOutOfReachException(String message) {
      super(message, null, false, false);
    }
  }

  /** Stores cannot be queried now (rebalancing, restoring): the client should retry. */
  final class StoresUnavailableException extends RuntimeException {
    public StoresUnavailableException(String message) {
      super(message, null, false, false);
    }
  }
}
