package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client of the other instances against a loopback server that answers as an instance might. */
class InstanceClientTest {

  private final Map<String, String> authorizations = new ConcurrentHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger mostInFlight = new AtomicInteger();
  private final Set<HttpServerRequest> held = ConcurrentHashMap.newKeySet();
  private static final int HELD = 40;
  private Vertx vertx;
  private HostInfo peer;
  private InstanceClient client;
  private ApiConfig config;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    HttpServer server = vertx.createHttpServer().requestHandler(req -> {
      authorizations.put(req.path(), String.valueOf(req.getHeader("Authorization")));
      switch (req.path()) {
        case "/internal/json" -> req.response().end("[{\"start\":\"2026-11-28T00:00:00Z\",\"end\":"
            + "\"2026-11-28T00:00:10Z\",\"load\":null}]");
        case "/internal/rebalancing" -> req.response().setStatusCode(503).end();
        case "/internal/broken" -> req.response().setStatusCode(500).end("boom");
        case "/internal/not-json" -> req.response().end("<html>");
        case "/internal/not-rows" -> req.response().end("\u0000\u0000\u0000\u0009abc");
        case "/internal/no-rows" -> req.response().end(RenderedRows.stored(List.of()));
        case "/internal/held" -> {
          // each answer waits until all are in flight, or 4 s (under the client's 5 s timeout): on a slow machine
          // the last may arrive late, but none is answered before it, so in flight counts what the client sent
          int now = inFlight.incrementAndGet();
          mostInFlight.accumulateAndGet(now, Math::max);
          held.add(req);
          if (now == HELD) {
            for (HttpServerRequest r : List.copyOf(held)) {
              if (held.remove(r)) {
                r.response().end("[]");
              }
            }
          } else {
            vertx.setTimer(4000, t -> {
              if (held.remove(req)) {
                req.response().end("[]");
              }
            });
          }
        }
        default -> req.response().setStatusCode(404).end();
      }
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    peer = new HostInfo("127.0.0.1", server.actualPort());
    config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", "user-token-0123456789", true, 50, Duration.ofDays(92),
        null, null);
    client = new InstanceClient(vertx, config);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void anAnswerIsReadWithTheInstancesCredential() throws Exception {
    List<StoreReader.LoadWindow> windows = await(client.json(peer, "json", StoreReader.LoadWindow.class));
    assertThat(windows).hasSize(1);
    assertThat(windows.get(0).end().getEpochSecond() - windows.get(0).start().getEpochSecond()).isEqualTo(10);
    assertThat(authorizations.get("/internal/json")).isEqualTo("Bearer " + config.internalToken())
        .doesNotContain(config.token());
    assertThat(await(client.stored(peer, "no-rows", MigrationRow::decode))).isEmpty();
  }

  @Test
  void aFailedAnswerNamesTheInstanceAndTheQuery() {
    assertThatThrownBy(() -> await(client.body(peer, "rebalancing"))).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StoresUnavailableException.class).hasMessageContaining(peer + " is not ready");
    assertThatThrownBy(() -> await(client.body(peer, "broken")))
        .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining(peer + " answered 500 to broken");
    assertThatThrownBy(() -> await(client.json(peer, "not-json", StoreReader.LoadWindow.class)))
        .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining(peer + " answered not-json with JSON");
    assertThatThrownBy(() -> await(client.stored(peer, "not-rows", MigrationRow::decode)))
        .hasCauseInstanceOf(IllegalStateException.class).hasMessageContaining(peer + " answered not-rows with");
  }

  @Test
  void anInstanceThatIsGoneIsNotReadyRatherThanAnInternalError() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    HostInfo gone = new HostInfo("127.0.0.1", closed);
    // the group has not yet moved the tasks of an instance that stopped: a 503 with Retry-After, not a 500
    assertThatThrownBy(() -> await(client.body(gone, "json"))).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(StoresUnavailableException.class).hasMessageContaining(gone + " is unreachable");
  }

  @Test
  void concurrentQueriesOfOneInstanceAreSentAtOnceNotQueuedForAConnection() throws Exception {
    // an API under 50 clients asks another instance for about that many records at a time; the client's
    // default pool (5 connections) queued them behind one another
    List<io.vertx.core.Future<io.vertx.core.buffer.Buffer>> all = new ArrayList<>();
    for (int i = 0; i < HELD; i++) {
      all.add(client.body(peer, "held"));
    }
    io.vertx.core.Future.join(all).await(60, TimeUnit.SECONDS);
    assertThat(mostInFlight.get()).as("queries in flight at once").isEqualTo(HELD);
  }
}
