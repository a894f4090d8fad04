package io.stunwatch.api;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.stunwatch.api.StoreReader.StoresUnavailableException;
import io.stunwatch.model.json.Json;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The client of the other instances' {@link InternalEndpoint}: asks one for its part of a query, with the internal
 * token, over HTTPS when this instance serves HTTPS (they share the scheme), trusting {@code api.tls.ca} and
 * verifying names. A 503 fails with {@link StoresUnavailableException} (that instance is rebalancing); any other
 * answer but 200 with {@link IllegalStateException} naming the instance and the query.
 */
final class InstanceClient {

  /** How long another instance has to answer one internal query. */
  static final int TIMEOUT_MILLIS = 5000;

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
    this.client = WebClient.create(vertx, options);
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
    return request(host, query).map(r -> r.statusCode() == 204 ? Optional.empty()
        : Optional.of(r.body() == null ? Buffer.buffer() : r.body()));
  }

  /** The body of {@code host}'s answer to {@code /internal/<query>}. */
  Future<Buffer> body(HostInfo host, String query) {
    return request(host, query).compose(r -> r.statusCode() == 200
        ? Future.succeededFuture(r.body() == null ? Buffer.buffer() : r.body())
        : Future.failedFuture(new IllegalStateException(host + " answered " + r.statusCode() + " to " + query)));
  }

  /** {@code host}'s answer to {@code /internal/<query>}: 200 or 204; a 503 fails as the stores' unavailability. */
  private Future<HttpResponse<Buffer>> request(HostInfo host, String query) {
    return client.request(HttpMethod.GET, host.port(), host.host(), InternalEndpoint.PATH + query)
        .bearerTokenAuthentication(token)
        .timeout(TIMEOUT_MILLIS)
        .send()
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
