package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * How many instances a record by id asks: against a loopback server that answers as the other instance, which holds
 * the owners index's entry and the VM.
 */
class MigrationRecordsTest {

  private static final String ID = "vc-1/chain-77";
  private static final String VM_KEY = "vc-1/vm-42";

  private final List<String> asked = new CopyOnWriteArrayList<>();
  private volatile boolean forgotten;
  private Vertx vertx;
  private MigrationRecords records;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    HttpServer server = vertx.createHttpServer().requestHandler(req -> {
      asked.add(req.path());
      String id = req.getParam("id");
      switch (req.path()) {
        case "/internal/migration-record" -> req.response()
            .putHeader(MigrationRecords.VM_KEY_HEADER, MigrationRecords.enc(VM_KEY))
            .end("{\"id\":\"" + id + "\",\"via\":\"index\"}");
        case "/internal/migration-record-here" -> {
          if (forgotten) {
            req.response().setStatusCode(204).end();
          } else {
            req.response().end("{\"id\":\"" + id + "\",\"via\":\"vm\"}");
          }
        }
        default -> req.response().setStatusCode(404).end();
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    HostInfo other = new HostInfo("127.0.0.1", server.actualPort());
    StoreLocator locator = new StoreLocator(new StoreLocator.Metadata() {
      @Override
      public KafkaStreams.State state() {
        return KafkaStreams.State.RUNNING;
      }

      @Override
      public List<HostInfo> addresses() {
        return List.of(other);
      }

      @Override
      public <K> KeyQueryMetadata forKey(String store, K key, StreamPartitioner<? super K, ?> partitioner) {
        return new KeyQueryMetadata(other, Set.of(), 3);
      }

      @Override
      public KeyQueryMetadata forKey(String store, String key) {
        return new KeyQueryMetadata(other, Set.of(), 3);
      }
    }, new HostInfo("127.0.0.1", 1), System::nanoTime);
    LocalStoreReader nothingHere = new LocalStoreReader(new StoreSource() {
      @Override
      public <T> T store(String name, QueryableStoreType<T> type) {
        throw new AssertionError("read here: " + name);
      }

      @Override
      public <T> T store(String name, QueryableStoreType<T> type, StorePartition at) {
        throw new AssertionError("read here: " + name);
      }
    });
    ApiConfig config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", "user-token-0123456789", true, 50,
        Duration.ofDays(92), null, null);
    records = new MigrationRecords(nothingHere, locator, new InstanceClient(vertx, config), new ReadThreads(vertx));
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private String find() throws Exception {
    Optional<Buffer> r = records.find(ID).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return r.map(Buffer::toString).orElse(null);
  }

  @Test
  void aMigrationSeenOnceIsAskedOfItsVmsHolderAloneTheIndexSkipped() throws Exception {
    assertThat(find()).contains("\"via\":\"index\"");
    assertThat(asked).containsExactly("/internal/migration-record");
    asked.clear();
    assertThat(find()).contains("\"via\":\"vm\"");
    assertThat(asked).as("the VM's key learned with the record: one request, to the VM's holder")
        .containsExactly("/internal/migration-record-here");
  }

  @Test
  void aKnownMigrationItsVmsHolderNoLongerHasIsLookedUpAfreshThroughTheIndex() throws Exception {
    find();
    forgotten = true;
    asked.clear();
    assertThat(find()).contains("\"via\":\"index\"");
    assertThat(asked).containsExactly("/internal/migration-record-here", "/internal/migration-record");
  }
}
