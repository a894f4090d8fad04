package io.stunwatch.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.json.Json;
import io.stunwatch.processor.ProcessorConfig;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API: bearer-token authentication, one endpoint class per resource, JSON errors that name the parameter,
 * and no stack trace ever sent to a client.
 */
public final class ApiServer {

  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  /** Writes a future's value as JSON, or its failure as the error it stands for. */
  public interface Responder {
    void json(RoutingContext rc, Future<?> value);
  }

  private final Vertx vertx;
  private final ApiConfig config;
  private final StoreReader stores;
  private final Readiness readiness;
  private final PrometheusMeterRegistry registry;
  private final InternalEndpoint internal;
  private final Duration longestMigration;
  private final Clock clock;
  private final Planner.Busy busy;
  private final ProcessorConfig processor;
  private final ObjectMapper json = Json.mapper();
  private final AtomicInteger connections = new AtomicInteger();

  /**
   * @param internal the {@code /internal} routes other instances call, or null for one instance
   * @param longestMigration the longest a migration can run (the processor's {@code process.migration-timeout}):
   *                         how far before a time range a migration that ends in it can have started
   * @param clock            "now" of the default time ranges (the demo's is simulated)
   */
  public ApiServer(Vertx vertx, ApiConfig config, StoreReader stores, Readiness readiness,
      PrometheusMeterRegistry registry, InternalEndpoint internal, Duration longestMigration,
      Clock clock) {
    this(vertx, config, stores, readiness, registry, internal, longestMigration, clock,
        ProcessorConfig.defaults());
  }

  /**
   * @param processor the processor's settings: its alert thresholds say what "under load now" means to the plans
   */
  public ApiServer(Vertx vertx, ApiConfig config, StoreReader stores, Readiness readiness,
      PrometheusMeterRegistry registry, InternalEndpoint internal, Duration longestMigration,
      Clock clock, ProcessorConfig processor) {
    this.busy = Planner.Busy.of(processor);
    this.processor = processor;
    this.vertx = vertx;
    this.config = config;
    this.stores = stores;
    this.readiness = readiness;
    this.registry = registry;
    this.internal = internal;
    this.longestMigration = longestMigration;
    this.clock = clock;
  }

  /** Whether the processor's stores can be queried now (the {@code /ready} check). */
  @FunctionalInterface
  public interface Readiness {
    boolean ready();
  }

  public Router router() {
    Router router = Router.router(vertx);
    router.route().handler(rc -> {
      // every answer, errors included: a browser must never sniff JSON or CSV into something it runs
      rc.response().putHeader("X-Content-Type-Options", "nosniff");
      rc.next();
    });
    router.route().handler(this::timed);
    new HealthEndpoint(readiness, registry).addRoutes(router, config.openHealth() ? null : this::authenticate);
    new ConsoleEndpoint().addRoutes(router);
    router.route().handler(this::authenticate);
    new OpenApiEndpoint().addRoutes(router);
    Responder respond = this::respond;
    new MigrationsEndpoint(stores, config, clock).addRoutes(router, respond);
    new VmEndpoint(stores, config, clock, processor.windowRetention()).addRoutes(router, respond);
    Planner planner = new Planner(stores, busy, clock);
    new StunTimeEndpoint(stores, planner, vertx, config, clock).addRoutes(router, respond);
    new EvacuationEndpoint(planner, config.planMaxStun(), config.switchoverLimit(), clock).addRoutes(router, respond);
    new MigrateCheckEndpoint(stores, planner, config.planMaxStun(), config.switchoverLimit(), clock).addRoutes(router, respond);
    new AlertsEndpoint(stores, config, clock).addRoutes(router, respond);
    new UtilizationEndpoint(stores, config, clock).addRoutes(router, respond);
    new HostsEndpoint(stores).addRoutes(router, respond);
    new GuardEndpoint(stores, processor.guard()).addRoutes(router, respond);
    new AnnotationsEndpoint(stores, config, longestMigration, clock).addRoutes(router, respond);
    if (internal != null) {
      internal.addRoutes(router, respond, longestMigration);
    }
    router.route().last().handler(rc -> error(rc, new ApiException(404, null, "no such resource")));
    router.route().failureHandler(rc -> error(rc, rc.failure()));
    return router;
  }

  /** One server on one event loop (tests, and any port including 0). */
  public Future<HttpServer> start() {
    return server().listen();
  }

  /**
   * {@code eventLoops} servers on the configured port, each on its own event loop, which Vert.x hands connections
   * to in turn. Writing a response (a day's annotations are about 300 KB of JSON) is CPU work on the event loop, so
   * one loop would leave the other cores to the store reads only.
   *
   * @return the deployment, to {@link Vertx#undeploy} on close
   */
  public Future<String> start(int eventLoops) {
    if (config.port() == 0) {
      return Future.failedFuture(new IllegalArgumentException(
          "several event loops share a fixed port; choose it first"));
    }
    return vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return server().listen();
      }
    }, new DeploymentOptions().setInstances(eventLoops));
  }

  /** A server with the routes, the idle timeout and the connection limit, which all its event loops share. */
  private HttpServer server() {
    return vertx.createHttpServer(serverOptions()).requestHandler(router()).connectionHandler(connection -> {
      if (connections.incrementAndGet() > config.maxConnections()) {
        connections.decrementAndGet();
        registry.counter(Meters.API_CONNECTIONS_REFUSED).increment();
        LOG.warn("refused a connection from {}: {} connections open (api.max-connections)",
            connection.remoteAddress(), config.maxConnections());
        connection.close();
        return;
      }
      connection.closeHandler(v -> connections.decrementAndGet());
    });
  }

  private HttpServerOptions serverOptions() {
    HttpServerOptions options = new HttpServerOptions().setHost(config.host()).setPort(config.port())
        .setIdleTimeout((int) config.idleTimeout().toSeconds()).setIdleTimeoutUnit(TimeUnit.SECONDS);
    if (config.tlsCert() != null) {
      options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
          .setCertPath(config.tlsCert().toString()).setKeyPath(config.tlsKey().toString()));
    }
    return options;
  }

  private void timed(RoutingContext rc) {
    Timer.Sample sample = Timer.start(registry);
    rc.addBodyEndHandler(v -> {
      // The route's path template, never the raw path: a migration id must not become a label.
      String route = rc.currentRoute() == null || rc.currentRoute().getPath() == null ? "other"
          : rc.currentRoute().getPath();
      sample.stop(registry.timer(Meters.API_REQUESTS, Meters.TAG_ROUTE, route, Meters.TAG_STATUS,
          String.valueOf(rc.response().getStatusCode() / 100) + "xx"));
    });
    rc.next();
  }

  private void authenticate(RoutingContext rc) {
    String h = rc.request().getHeader("Authorization");
    byte[] given = h != null && h.startsWith("Bearer ") ? h.substring(7).getBytes(StandardCharsets.UTF_8)
        : new byte[0];
    // The internal routes take the instances' own credential and nothing else; the public ones, the users' token.
    String expected = rc.normalizedPath().startsWith(InternalEndpoint.PATH) ? config.internalToken()
        : config.token();
    // Constant-time comparison: the token must not leak through response timing.
    if (expected == null || !MessageDigest.isEqual(given, expected.getBytes(StandardCharsets.UTF_8))) {
      rc.response().putHeader("WWW-Authenticate", "Bearer realm=\"stunwatch\"");
      error(rc, new ApiException(401, null, "a valid bearer token is required"));
      return;
    }
    rc.next();
  }

  private void respond(RoutingContext rc, Future<?> value) {
    value.onComplete(ar -> {
      if (ar.failed()) {
        error(rc, ar.cause());
        return;
      }
      Object v = ar.result();
      if (v instanceof Answer a) {
        a.headers().forEach((k, h) -> rc.response().putHeader(k, h));
        v = a.body();
      }
      if (v == NO_CONTENT) {
        rc.response().setStatusCode(204).end();
        return;
      }
      if (v instanceof JsonBody body) {
        rc.response().putHeader("Content-Type", "application/json").end(body.json());
        return;
      }
      if (v instanceof BinaryBody bytes) {
        rc.response().putHeader("Content-Type", "application/octet-stream").end(bytes.bytes());
        return;
      }
      if (v instanceof CsvBody csv) {
        rc.response().putHeader("Content-Type", "text/csv; charset=utf-8").end(csv.text());
        return;
      }
      try {
        rc.response().putHeader("Content-Type", "application/json").end(Buffer.buffer(json.writeValueAsBytes(v)));
      } catch (Exception e) {
        error(rc, e);
      }
    });
  }

  /** An answer with no body (204): an internal route's "I hold none of it". */
  static final Object NO_CONTENT = new Object();

  /** A body with headers of its own, set as the response is written. */
  record Answer(Map<String, String> headers, Object body) {
  }

  /** A JSON answer already rendered. */
  record JsonBody(Buffer json) {
  }

  /** Bytes that are not JSON (the rows one instance forwards to another). */
  record BinaryBody(Buffer bytes) {
  }

  /** A CSV answer instead of JSON. */
  record CsvBody(String text) {
  }

  private void error(RoutingContext rc, Throwable t) {
    if (rc.response().ended()) {
      return;
    }
    int status;
    String parameter = null;
    String reason;
    if (t instanceof ApiException a) {
      status = a.status();
      parameter = a.parameter();
      reason = a.getMessage();
    } else if (t instanceof StoreReader.StateOutOfReachException) {
      status = 503;
      reason = t.getMessage();
    } else if (t instanceof StoreReader.StoresUnavailableException) {
      status = 503;
      reason = "the processor's stores are not ready (rebalancing or restoring); retry shortly";
      rc.response().putHeader("Retry-After", "5");
    } else if (rc.statusCode() >= 400 && rc.statusCode() < 500 && t == null) {
      status = rc.statusCode();
      reason = "bad request";
    } else {
      status = 500;
      reason = "internal error";
      LOG.error("Request {} {} failed", rc.request().method(), rc.request().path(), t);
    }
    ErrorBody body = new ErrorBody(status, parameter, reason);
    try {
      rc.response().setStatusCode(status).putHeader("Content-Type", "application/json")
          .end(json.writeValueAsString(body));
    } catch (Exception e) {
      rc.response().setStatusCode(500).end();
    }
  }

  /** Every error's body: the status, the parameter at fault when one is, and why. */
  record ErrorBody(int error, String parameter, String reason) {
  }
}
