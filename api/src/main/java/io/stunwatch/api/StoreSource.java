package io.stunwatch.api;

import io.stunwatch.api.StoreReader.StoresUnavailableException;
import org.apache.kafka.streams.state.QueryableStoreType;

/**
 * Where {@link LocalStoreReader} finds this instance's stores: Kafka Streams' interactive queries in the API, stores of
 * a test's own in its unit tests. A store that cannot be read now fails with {@link StoresUnavailableException}.
 */
interface StoreSource {

  /** The store {@code name} of every partition this instance holds. */
  <T> T store(String name, QueryableStoreType<T> type);

  /** The store {@code name} of the one partition {@code at}: the one that holds a VM's keys. */
  <T> T store(String name, QueryableStoreType<T> type, StorePartition at);
}
