package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.stunwatch.model.Initiator;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunTime;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StoreNames;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The internal routes on a real HTTP server, called as another instance calls them ({@link InstanceClient}). */
class InternalEndpointTest {

  private static final String TOKEN = "user-token-0123456789";
  private static final String VM = "4210000-vm";

  private final LocalStoreReaderTest.CommitStore<MigrationRow> rows = new LocalStoreReaderTest.CommitStore<>();
  private final LocalStoreReaderTest.CommitStore<String> index = new LocalStoreReaderTest.CommitStore<>();
  private volatile boolean queryable = true;
  private volatile StorePartition askedAt;
  private Vertx vertx;
  private HostInfo self;
  private InstanceClient instances;
  private ApiConfig config;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 50, Duration.ofDays(92), null, null);
    StoreSource stores = new StoreSource() {
      @Override
      public <T> T store(String name, QueryableStoreType<T> type) {
        return store(name, type, null);
      }

      @Override
      @SuppressWarnings("unchecked")
      public <T> T store(String name, QueryableStoreType<T> type, StorePartition at) {
        if (!queryable) {
          throw new StoresUnavailableException(name + " is not queryable now");
        }
        askedAt = at;
        return (T) switch (name) {
          case StoreNames.MIGRATIONS_BY_VM -> rows;
          case StoreNames.MIGRATIONS_BY_VM_ORDER -> index;
          default -> throw new IllegalArgumentException(name);
        };
      }
    };
    StoreLocator locator = new StoreLocator(new StoreLocator.Metadata() {
      @Override
      public KafkaStreams.State state() {
        return KafkaStreams.State.RUNNING;
      }

      @Override
      public List<HostInfo> addresses() {
        return List.of();
      }

      @Override
      public <K> KeyQueryMetadata forKey(String store, K key, StreamPartitioner<? super K, ?> partitioner) {
        return KeyQueryMetadata.NOT_AVAILABLE;
      }

      @Override
      public KeyQueryMetadata forKey(String store, String key) {
        return new KeyQueryMetadata(new HostInfo("elsewhere", 1), Set.of(), 5);
      }
    }, new HostInfo("127.0.0.1", 0), System::nanoTime);
    LocalStoreReader local = new LocalStoreReader(stores);
    ReadThreads threads = new ReadThreads(vertx);
    InternalEndpoint internal = new InternalEndpoint(local, locator, threads, config,
        new MigrationRecords(local, locator, new InstanceClient(vertx, config), threads));
    int port = new ApiServer(vertx, config, new ApiServerTest.FakeStores(), () -> true,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), internal, Duration.ofMinutes(30),
        ApiServerTest.CLOCK).start().await(10, TimeUnit.SECONDS).actualPort();
    self = new HostInfo("127.0.0.1", port);
    instances = new InstanceClient(vertx, config);
    for (int i = 1; i <= 3; i++) {
      MigrationRow r = MigrationRow.of(new MigrationSummary(ApiServerTest.migration(i, "T4-16C", Initiator.DRS,
          MigrationState.SUCCEEDED), false, new StunTime(10.0 - i, StunTime.Source.VMWARE_LOG), 1024.0, null));
      rows.pending.put(VmOrderKeys.rowKey(VM, r.id()), r);
      index.pending.put(VmOrderKeys.of(VM, VmOrderKeys.Order.STUN, r), r.id());
    }
    rows.commit();
    index.commit();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aVmsPageIsReadFromThePartitionThatHoldsItAndForwardedAsStoredRows() throws Exception {
    List<MigrationRow> page = await(instances.stored(self, "vm-migrations-page?vm=" + VM + "&order=stun&limit=2",
        MigrationRow::decode));
    assertThat(page).extracting(MigrationRow::stunSeconds).containsExactly(7.0, 8.0);
    assertThat(askedAt).isEqualTo(new StorePartition(5, false));

    String after = VmOrderKeys.position(VmOrderKeys.Order.STUN, page.get(1));
    List<MigrationRow> rest = await(instances.stored(self, "vm-migrations-page?vm=" + VM + "&order=stun&limit=2"
        + "&after=" + java.net.URLEncoder.encode(after, "UTF-8") + "&stale=true", MigrationRow::decode));
    assertThat(rest).extracting(MigrationRow::stunSeconds).containsExactly(9.0);
    assertThat(askedAt).isEqualTo(new StorePartition(5, true));
  }

  @Test
  void aMissingOrUnknownParameterIsRefusedAndAStoreNotQueryableIsA503() throws Exception {
    assertThatThrownBy(() -> await(instances.body(self, "vm-migrations-page?order=stun")))
        .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining("answered 400");
    assertThatThrownBy(() -> await(instances.body(self, "vm-migrations-page?vm=" + VM + "&order=size")))
        .hasMessageContaining("answered 400");
    queryable = false;
    assertThatThrownBy(() -> await(instances.body(self, "vm-migrations-page?vm=" + VM)))
        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(StoresUnavailableException.class);
  }

  @Test
  void theInternalRoutesTakeTheInstancesCredentialAndNotTheUsersToken() throws Exception {
    WebClient web = WebClient.create(vertx);
    var asUser = web.request(HttpMethod.GET, self.port(), self.host(), InternalEndpoint.PATH
        + "vm-migrations-page?vm=" + VM).bearerTokenAuthentication(TOKEN).send().await(10, TimeUnit.SECONDS);
    assertThat(asUser.statusCode()).isEqualTo(401);
    var asInstance = web.request(HttpMethod.GET, self.port(), self.host(), InternalEndpoint.PATH
        + "vm-migrations-page?vm=" + VM).bearerTokenAuthentication(config.internalToken()).send()
        .await(10, TimeUnit.SECONDS);
    assertThat(asInstance.statusCode()).isEqualTo(200);
  }
}
