package io.stunwatch.api;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.stunwatch.model.json.Json;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The client of the other instances' {@link InternalEndpoint}: asks one for its part of a query, with the internal
 * token, over HTTPS when this instance serves HTTPS (they share the scheme), trusting {@code api.tls.ca} and
 * verifying names. A 503, or an instance that takes no connection (it stopped, and the group has not yet moved its
 * tasks), fails with {@link StoresUnavailableException} (the stores are moving); any other
 * answer but 200 with {@link IllegalStateException} naming the instance and the query.
 */
final class InstanceClient {

  /** How long another instance has to answer one internal query. */
  static final int TIMEOUT_MILLIS = 5000;

  /**
   * Connections kept to each other instance. Each request the API serves asks another instance at most once at a
   * time, so under N concurrent clients about N queries go to one peer together; with Vert.x's default of 5 they
   * would wait for a connection, latency the peer never sees.
   */
  static final int CONNECTIONS_PER_INSTANCE = 128;

  private final WebClient client;
  private final String token;
  private final ObjectMapper json = Json.mapper();

  InstanceClient(Vertx vertx, ApiConfig config) {
    WebClientOptions options = new WebClientOptions().setUserAgent("stunwatch-api (internal)");
    if (config.tlsCert() != null) {
      options.setSsl(true).setVerifyHost(true);
      if (config.tlsCa() != null) {
        options.setTrustOptions(new PemTrustOptions().addCertPath(config.tlsCa().toString()));
      }
    }
    this.client = WebClient.create(vertx, options, new PoolOptions().setHttp1MaxSize(CONNECTIONS_PER_INSTANCE));
    this.token = config.internalToken();
  }

  /** A JSON array of {@code type} from {@code host}'s {@code /internal/<query>}. */
  <V> Future<List<V>> json(HostInfo host, String query, Class<V> type) {
    JavaType listType = json.getTypeFactory().constructCollectionType(List.class, type);
    return body(host, query).compose(body -> {
      try {
        return Future.<List<V>>succeededFuture(json.readValue(body.getBytes(), listType));
      } catch (IOException e) {
        return Future.failedFuture(new IllegalStateException(host + " answered " + query + " with JSON that does "
            + "not read: " + e.getMessage(), e));
      }
    });
  }

  /** Stored values (index rows, annotation blocks) from {@code host}'s {@code /internal/<query>}. */
  <T> Future<List<T>> stored(HostInfo host, String query, Function<byte[], T> decode) {
    return body(host, query).compose(body -> {
      try {
        return Future.succeededFuture(RenderedRows.read(body, decode));
      } catch (IllegalStateException e) {
        return Future.failedFuture(new IllegalStateException(host + " answered " + query + " with " + e.getMessage(),
            e));
      }
    });
  }

  /** The body of {@code host}'s answer to {@code /internal/<query>}, or empty when it answered 204 (it holds none). */
  Future<Optional<Buffer>> bodyIfAny(HostInfo host, String query) {
    return response(host, query).map(r -> r.statusCode() == 204 ? Optional.empty()
        : Optional.of(r.body() == null ? Buffer.buffer() : r.body()));
  }

  /** The body of {@code host}'s answer to {@code /internal/<query>}. */
  Future<Buffer> body(HostInfo host, String query) {
    return response(host, query).compose(r -> r.statusCode() == 200
        ? Future.succeededFuture(r.body() == null ? Buffer.buffer() : r.body())
        : Future.failedFuture(new IllegalStateException(host + " answered " + r.statusCode() + " to " + query)));
  }

  /** {@code host}'s answer to {@code /internal/<query>}: 200 or 204; a 503 fails as the stores' unavailability. */
  Future<HttpResponse<Buffer>> response(HostInfo host, String query) {
    return client.request(HttpMethod.GET, host.port(), host.host(), InternalEndpoint.PATH + query)
        .bearerTokenAuthentication(token)
        .timeout(TIMEOUT_MILLIS)
        .send()
        // an instance that stopped answers no connection until the group has moved its tasks: that is the
        // stores moving, which a client retries, not a fault of this one
        .recover(t -> Future.failedFuture(t instanceof ConnectException
            ? new StoresUnavailableException(host + " is unreachable (" + t.getMessage() + ")") : t))
        .compose(r -> {
          if (r.statusCode() == 503) {
            return Future.failedFuture(new StoresUnavailableException(host + " is not ready"));
          }
          if (r.statusCode() != 200 && r.statusCode() != 204) {
            return Future.failedFuture(new IllegalStateException(host + " answered " + r.statusCode() + " to "
                + query));
          }
          return Future.succeededFuture(r);
        });
  }
}
