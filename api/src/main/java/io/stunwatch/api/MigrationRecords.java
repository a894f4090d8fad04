package io.stunwatch.api;

import io.stunwatch.api.StoreReader.StateOutOfReachException;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * One migration's record ({@code GET /api/migrations/{id}}) from the one instance that holds it. A migration's id
 * names no VM, and its stores are partitioned by VM: the owners index ({@code migration-owners}, partitioned by
 * migration id) says which VM. So the instance asked finds the index's instance from the assignment, and asks it
 * (or itself) once; that one reads the VM's instance (itself, or the one it asks), and tells the VM's key with the
 * record ({@link #VM_KEY_HEADER}). The record comes back as the JSON its holder rendered, forwarded as bytes.
 *
 * <p>A migration's VM never changes, so the instance asked keeps the VM keys it has learned (up to
 * {@link #MAX_KNOWN}) and asks for a known migration the one instance that holds its VM now, or reads it itself:
 * one hop at most, the index skipped. Which instance holds a VM is asked of the assignment each time, so a
 * rebalance sends the next request to the new holder. A known migration its VM's holder no longer has (forgotten)
 * is looked up afresh.
 *
 * <p>A migration the index does not know (one seen before the index existed, or no such migration) is asked of
 * every instance, in one round.
 */
final class MigrationRecords {

  /** The response header of {@code /internal/migration-record} that names the record's VM key. */
  static final String VM_KEY_HEADER = "Stunwatch-Vm-Key";

  /** The most migrations whose VM an instance keeps; past it, it forgets them all and learns again. */
  static final int MAX_KNOWN = 100_000;

  /** A record and the key of its VM, null where it was found by asking everyone. */
  record Held(Buffer json, String vmKey) {
  }

  private final Map<String, String> vmKeys = new ConcurrentHashMap<>();
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
    String vmKey = vmKeys.get(id);
    if (vmKey == null) {
      return viaIndex(id);
    }
    return fromVm(id, vmKey).compose(held -> {
      if (held.isPresent()) {
        return Future.succeededFuture(held);
      }
      vmKeys.remove(id);
      return viaIndex(id);
    });
  }

  private Future<Optional<Buffer>> viaIndex(String id) {
    return ownersIndex(id).compose(index -> locator.isLocal(index) ? fromIndex(id, index.partition())
        : instances.response(index.activeHost(), "migration-record?id=" + enc(id)).map(r -> r.statusCode() == 204
            ? Optional.<Held>empty()
            : Optional.of(new Held(r.body() == null ? Buffer.buffer() : r.body(), dec(r.getHeader(VM_KEY_HEADER))))))
        .map(held -> {
          held.ifPresent(h -> learn(id, h.vmKey()));
          return held.map(Held::json);
        });
  }

  private void learn(String id, String vmKey) {
    if (vmKey == null) {
      return;
    }
    if (vmKeys.size() >= MAX_KNOWN) {
      vmKeys.clear();
    }
    vmKeys.put(id, vmKey);
  }

  /**
   * On the instance that holds {@code id}'s partition of the owners index: the record, read here or from the one
   * instance that holds its VM, with the VM's key.
   */
  Future<Optional<Held>> fromIndex(String id) {
    return ownersIndex(id).compose(index -> fromIndex(id, index.partition()));
  }

  private Future<KeyQueryMetadata> ownersIndex(String id) {
    try {
      return Future.succeededFuture(locator.ownersIndex(id));
    } catch (StoresUnavailableException | StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
  }

  private Future<Optional<Held>> fromIndex(String id, int partition) {
    return threads.run(() -> Optional.ofNullable(local.ownerOf(id, new StorePartition(partition, false))))
        .compose(vmKey -> vmKey.isEmpty() ? everywhere(id).map(json -> json.map(j -> new Held(j, null)))
            : fromVm(id, vmKey.get()).map(json -> json.map(j -> new Held(j, vmKey.get()))));
  }

  /** The record from the instance that holds VM {@code vmKey} now: this one, or the one asked. */
  private Future<Optional<Buffer>> fromVm(String id, String vmKey) {
    KeyQueryMetadata vm;
    try {
      vm = locator.owner(vmKey);
    } catch (StoresUnavailableException | StateOutOfReachException e) {
      return Future.failedFuture(e);
    }
    return locator.isLocal(vm) ? here(id)
        : instances.bodyIfAny(vm.activeHost(), "migration-record-here?id=" + enc(id));
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

  /** A query parameter's or the {@link #VM_KEY_HEADER}'s value: URL-encoded, so any VM key is one header line. */
  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return s == null ? null : URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
