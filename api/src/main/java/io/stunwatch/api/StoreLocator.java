package io.stunwatch.api;

import io.stunwatch.api.StoreReader.StateOutOfReachException;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import io.stunwatch.processor.readmodel.StoreNames;

/**
 * Which instance holds what, from the application's {@code application.server} metadata (as kafka-streams-examples'
 * {@code MetadataService}): the owner of a VM's keys, the other instances, and whether every part of the state can be
 * reached at all. In-memory lookups of the assignment; nothing here reads a store.
 */
final class StoreLocator {

  /** The partitioned stores the API reads: each must be reachable on some instance. */
  static final List<String> QUERIED_STORES = List.of(StoreNames.VM_LIVE, StoreNames.MIGRATIONS,
      StoreNames.MIGRATIONS_BY_START, StoreNames.MIGRATIONS_BY_VM, StoreNames.IMPACTS, StoreNames.ALERTS,
      StoreNames.UTILIZATION_DAILY, StoreNames.ANNOTATIONS_BY_HOUR, StoreNames.MIGRATION_OWNERS);

  /** The part of {@link KafkaStreams} the locator asks: the application's metadata and this instance's state. */
  interface Metadata {

    KafkaStreams.State state();

    /** Every instance's address ({@code application.server}); one that gave none has a port of 0 or less. */
    List<HostInfo> addresses();

    <K> KeyQueryMetadata forKey(String store, K key, StreamPartitioner<? super K, ?> partitioner);

    KeyQueryMetadata forKey(String store, String key);

    static Metadata of(KafkaStreams streams) {
      return new Metadata() {
        @Override
        public KafkaStreams.State state() {
          return streams.state();
        }

        @Override
        public List<HostInfo> addresses() {
          return streams.metadataForAllStreamsClients().stream().map(StreamsMetadata::hostInfo).toList();
        }

        @Override
        public <K> KeyQueryMetadata forKey(String store, K key, StreamPartitioner<? super K, ?> partitioner) {
          return streams.queryMetadataForKey(store, key, partitioner);
        }

        @Override
        public KeyQueryMetadata forKey(String store, String key) {
          return streams.queryMetadataForKey(store, key, Serdes.String().serializer());
        }
      };
    }
  }

  private static final String PROCESS_ONLY = "owned by an instance that serves no queries (a `stunwatch process` "
      + "under the same process.application-id): run only `stunwatch api` instances where the API is used";

  private final Metadata metadata;
  private final HostInfo self;
  private final LongSupplier nanoTime;
  private volatile long checkedAt = Long.MIN_VALUE;
  private volatile Optional<String> lastCheck = Optional.empty();

  StoreLocator(Metadata metadata, HostInfo self, LongSupplier nanoTime) {
    this.metadata = metadata;
    this.self = self;
    this.nanoTime = nanoTime;
  }

  HostInfo self() {
    return self;
  }

  /**
   * Where {@code vmId}'s keys are: the instance whose active task holds them, and the partition. Every VM-keyed
   * store is in the one sub-topology (they share the per-second history), whose sources Streams keeps
   * co-partitioned, so one answer serves them all.
   *
   * @throws StoresUnavailableException while no instance owns the partition (a rebalance)
   * @throws StateOutOfReachException   when its owner serves no queries
   */
  KeyQueryMetadata owner(String vmId) {
    KeyQueryMetadata m;
    try {
      m = metadata.forKey(StoreNames.VM_LIVE, vmId);
    } catch (InvalidStateStoreException e) {
      throw new StoresUnavailableException(e.getMessage());
    }
    if (m == null || m.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
      throw new StoresUnavailableException("no instance owns " + vmId + "'s partition right now");
    }
    if (m.activeHost() != null && m.activeHost().port() <= 0) {
      throw new StateOutOfReachException(vmId + "'s partition is " + PROCESS_ONLY);
    }
    return m;
  }

  /**
   * Where migration {@code migrationId}'s entry of the owners index is ({@link StoreNames#MIGRATION_OWNERS},
   * partitioned by migration id): the instance that knows which VM, so which instance, holds the migration.
   *
   * @throws StoresUnavailableException while no instance owns the partition (a rebalance)
   * @throws StateOutOfReachException   when its owner serves no queries
   */
  KeyQueryMetadata ownersIndex(String migrationId) {
    KeyQueryMetadata m;
    try {
      m = metadata.forKey(StoreNames.MIGRATION_OWNERS, migrationId);
    } catch (InvalidStateStoreException | IllegalArgumentException e) {
      throw new StoresUnavailableException(e.getMessage());
    }
    if (m == null || m.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
      throw new StoresUnavailableException("no instance owns " + migrationId + "'s owners index partition now");
    }
    if (m.activeHost() != null && m.activeHost().port() <= 0) {
      throw new StateOutOfReachException(migrationId + "'s owners index partition is " + PROCESS_ONLY);
    }
    return m;
  }

  /** Whether the active task of {@code m} is this instance's. */
  boolean isLocal(KeyQueryMetadata m) {
    return m.activeHost() == null || m.activeHost().equals(self);
  }

  /**
   * The other instances that serve queries.
   *
   * @throws StateOutOfReachException when an instance that owns partitions serves no queries: a list would lack its
   *                                  part without a word
   */
  List<HostInfo> others() {
    if (metadata.state() == KafkaStreams.State.RUNNING) { // while rebalancing, partitions are between owners
      cachedWhyNotQueryable().ifPresent(why -> {
        throw new StateOutOfReachException(why);
      });
    }
    List<HostInfo> out = new ArrayList<>();
    for (HostInfo h : metadata.addresses()) {
      if (!h.equals(self) && h.port() > 0) {
        out.add(h);
      }
    }
    return out;
  }

  /** {@link #whyNotQueryable}, asked at most once a second: lists ask it on every request. */
  private Optional<String> cachedWhyNotQueryable() {
    long now = nanoTime.getAsLong();
    if (checkedAt == Long.MIN_VALUE || now - checkedAt > 1_000_000_000L) {
      lastCheck = whyNotQueryable();
      checkedAt = now;
    }
    return lastCheck;
  }

  /**
   * Why part of the application's state cannot be queried: an instance of the group owns partitions but gave no
   * address ({@code application.server}), as {@code stunwatch process} does. Empty when every part can be reached.
   */
  Optional<String> whyNotQueryable() {
    // Streams knows the address of every member that gave one; a partition of a member that gave none shows as
    // owned by the "unavailable" host. Every store the API reads is asked, partition by partition.
    Set<String> unreachable = new TreeSet<>();
    for (String store : QUERIED_STORES) {
      int[] partitions = {0};
      try {
        metadata.forKey(store, "", (topic, key, value, n) -> {
          partitions[0] = n;
          return Optional.of(Set.of(0));
        });
        for (int p = 0; p < partitions[0]; p++) {
          int partition = p;
          KeyQueryMetadata m = metadata.forKey(store, "",
              (topic, key, value, n) -> Optional.of(Set.of(partition)));
          if (m != null && !m.equals(KeyQueryMetadata.NOT_AVAILABLE) && m.activeHost() != null
              && m.activeHost().port() <= 0) {
            unreachable.add(store + "-" + partition);
          }
        }
      } catch (InvalidStateStoreException | IllegalArgumentException e) {
        // rebalancing, or a store this topology does not have: nothing to say about it now
      }
    }
    return unreachable.isEmpty() ? Optional.empty() : Optional.of(unreachable.size()
        + " store partitions of this application (" + String.join(", ", unreachable.stream().limit(4).toList())
        + (unreachable.size() > 4 ? ", ..." : "") + ") are " + PROCESS_ONLY);
  }
}
