package io.stunwatch.api;

import io.stunwatch.api.StoreReader.StateOutOfReachException;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * One migration's record ({@code GET /api/migrations/{id}}) from the one instance that holds it. A migration's id
 * names no VM, and its stores are partitioned by VM: the owners index ({@code migration-owners}, partitioned by
 * migration id) says which VM. So the instance asked finds the index's instance from the assignment, and asks it
 * (or itself) once; that one reads the VM's instance (itself, or the one it asks). The asking instance asks at most
 * one other, and the record comes back as the JSON its holder rendered, forwarded as bytes.
 *
 * <p>A migration the index does not know (one seen before the index existed, or no such migration) is asked of
 * every instance, in one round.
 */
final class MigrationRecords {

  private final LocalStoreReader local;
  private final StoreLocator locator;
  private final InstanceClient instances;
  private final ReadThreads threads;

  MigrationRecords(LocalStoreReader local, StoreLocator locator, InstanceClient instances, ReadThreads threads) {
    this.local = local;
    this.locator = locator;
    this.instances = instances;
    this.threads = threads;
  }

  /** The record of migration {@code id}, wherever it is; empty when no instance holds it. */
  Future<Optional<Buffer>> find(String id) {
    return ownersIndex(id).compose(index -> locator.isLocal(index) ? fromIndex(id, index.partition())
        : instances.bodyIfAny(index.activeHost(), "migration-record?id=" + enc(id)));
  }

  /**
   * On the instance that holds {@code id}'s partition of the owners index: the record, read here or from the one
   * instance that holds its VM.
   */
  Future<Optional<Buffer>> fromIndex(String id) {
    return ownersIndex(id).compose(index -> fromIndex(id, index.partition()));
  }

  private Future<KeyQueryMetadata> ownersIndex(String id) {
    try {
      return Future.succeededFuture(locator.ownersIndex(id));
    } catch (StoresUnavailableException | StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<Optional<Buffer>> fromIndex(String id, int partition) {
    return threads.run(() -> Optional.ofNullable(local.ownerOf(id, new StorePartition(partition, false))))
        .compose(vmKey -> {
          if (vmKey.isEmpty()) {
            return everywhere(id);
          }
          KeyQueryMetadata vm;
          try {
            vm = locator.owner(vmKey.get());
          } catch (StoresUnavailableException | StateOutOfReachException e) {
            return Future.failedFuture(e);
          }
          return locator.isLocal(vm) ? here(id)
              : instances.bodyIfAny(vm.activeHost(), "migration-record-here?id=" + enc(id));
        });
  }

  /** The record from this instance's stores, or empty when it does not hold it. */
  Future<Optional<Buffer>> here(String id) {
    return threads.run(() -> Optional.ofNullable(local.migrationRecord(id)).map(StoreReader::render));
  }

  /** Every instance asked at once; the first that holds it answers. */
  private Future<Optional<Buffer>> everywhere(String id) {
    List<HostInfo> others;
    try {
      others = locator.others();
    } catch (StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
    List<Future<Optional<Buffer>>> parts = new ArrayList<>();
    parts.add(here(id));
    for (HostInfo h : others) {
      parts.add(instances.bodyIfAny(h, "migration-record-here?id=" + enc(id)));
    }
    return Future.all(parts).map(all -> {
      for (int i = 0; i < all.size(); i++) {
        Optional<Buffer> part = all.resultAt(i);
        if (part.isPresent()) {
          return part;
        }
      }
      return Optional.empty();
    });
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
