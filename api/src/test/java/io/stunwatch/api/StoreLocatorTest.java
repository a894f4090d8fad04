package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.api.StoreReader.StateOutOfReachException;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

class StoreLocatorTest {

  private static final HostInfo SELF = new HostInfo("api-a", 8080);
  private static final HostInfo OTHER = new HostInfo("api-b", 8080);
  private static final HostInfo NO_ADDRESS = new HostInfo("unavailable", -1);

  /** An application of four partitions per store, each owned by {@link #owners}[partition]. */
  private static final class FakeMetadata implements StoreLocator.Metadata {
    KafkaStreams.State state = KafkaStreams.State.RUNNING;
    HostInfo[] owners = {SELF, OTHER, SELF, OTHER};
    List<HostInfo> addresses = new ArrayList<>(List.of(SELF, OTHER));
    KeyQueryMetadata forVm;
    final AtomicInteger asked = new AtomicInteger();

    @Override
    public KafkaStreams.State state() {
      return state;
    }

    @Override
    public List<HostInfo> addresses() {
      return addresses;
    }

    @Override
    public <K> KeyQueryMetadata forKey(String store, K key, StreamPartitioner<? super K, ?> partitioner) {
      asked.incrementAndGet();
      Optional<Set<Integer>> p = partitioner.partitions(store, key, null, owners.length);
      int partition = p.orElseThrow().iterator().next();
      return new KeyQueryMetadata(owners[partition], Set.of(), partition);
    }

    @Override
    public KeyQueryMetadata forKey(String store, String key) {
      return forVm;
    }
  }

  private final FakeMetadata metadata = new FakeMetadata();
  private final AtomicLong nanos = new AtomicLong(1);
  private final StoreLocator locator = new StoreLocator(metadata, SELF, nanos::get);

  @Test
  void aVmIsFoundWithItsOwnerAndPartitionAndAnOwnerWithoutAnAddressIsNamed() {
    metadata.forVm = new KeyQueryMetadata(OTHER, Set.of(SELF), 3);
    KeyQueryMetadata m = locator.owner("vm-1");
    assertThat(m.partition()).isEqualTo(3);
    assertThat(locator.isLocal(m)).isFalse();
    metadata.forVm = new KeyQueryMetadata(SELF, Set.of(), 2);
    assertThat(locator.isLocal(locator.owner("vm-1"))).isTrue();

    metadata.forVm = KeyQueryMetadata.NOT_AVAILABLE;
    assertThatThrownBy(() -> locator.owner("vm-1")).isInstanceOf(StoresUnavailableException.class)
        .hasMessageContaining("no instance owns vm-1's partition");
    metadata.forVm = new KeyQueryMetadata(NO_ADDRESS, Set.of(), 1);
    assertThatThrownBy(() -> locator.owner("vm-1")).isInstanceOf(StateOutOfReachException.class)
        .hasMessageContaining("vm-1's partition is owned by an instance that serves no queries");
  }

  @Test
  void theOthersAreEveryAddressButThisOneAndNoneWhilePartOfTheStateIsOutOfReach() {
    metadata.addresses.add(NO_ADDRESS);
    assertThat(locator.others()).containsExactly(OTHER);
    assertThat(locator.whyNotQueryable()).isEmpty();

    metadata.owners[1] = NO_ADDRESS;
    nanos.addAndGet(2_000_000_000L);
    assertThatThrownBy(locator::others).isInstanceOf(StateOutOfReachException.class)
        .hasMessageStartingWith(StoreLocator.QUERIED_STORES.size() + " store partitions of this application (")
        .hasMessageContaining("run only `stunwatch api` instances");

    // while rebalancing, partitions are between owners: nothing is concluded
    metadata.state = KafkaStreams.State.REBALANCING;
    assertThat(locator.others()).containsExactly(OTHER);
  }

  @Test
  void theCheckOfEveryPartitionIsMadeAtMostOnceASecond() {
    locator.others();
    int once = metadata.asked.get();
    assertThat(once).isEqualTo(StoreLocator.QUERIED_STORES.size() * (1 + metadata.owners.length));
    nanos.addAndGet(500_000_000L);
    metadata.owners[1] = NO_ADDRESS;
    assertThat(locator.others()).containsExactly(OTHER); // the last answer, half a second old
    assertThat(metadata.asked.get()).isEqualTo(once);
    nanos.addAndGet(600_000_000L);
    assertThatThrownBy(locator::others).isInstanceOf(StateOutOfReachException.class);
    assertThat(metadata.asked.get()).isEqualTo(2 * once);
  }
}
