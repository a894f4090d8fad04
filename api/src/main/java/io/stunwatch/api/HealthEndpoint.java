package io.stunwatch.api;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** {@code /health} (the process answers), {@code /ready} (its stores can be queried) and {@code /metrics}. */
final class HealthEndpoint {

  private final ApiServer.Readiness readiness;
  private final PrometheusMeterRegistry registry;

  HealthEndpoint(ApiServer.Readiness readiness, PrometheusMeterRegistry registry) {
    this.readiness = readiness;
    this.registry = registry;
  }

  /** @param auth the authentication handler, or null when these routes are open */
  void addRoutes(Router router, Handler<RoutingContext> auth) {
    for (String path : new String[] {"/health", "/ready", "/metrics"}) {
      if (auth != null) {
        router.get(path).handler(auth);
      }
    }
    router.get("/health").handler(rc -> rc.response().putHeader("Content-Type", "application/json")
        .end("{\"status\":\"UP\"}"));
    router.get("/ready").handler(rc -> {
      boolean ready = readiness.ready();
      if (!ready) {
        rc.response().putHeader("Retry-After", "5");
      }
      rc.response().setStatusCode(ready ? 200 : 503).putHeader("Content-Type", "application/json")
          .end(ready ? "{\"status\":\"READY\"}" : "{\"status\":\"NOT_READY\"}");
    });
    router.get("/metrics").handler(rc -> rc.response()
        .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(registry.scrape()));
  }
}
