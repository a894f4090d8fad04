package io.stunwatch.api;

import io.stunwatch.model.MigrationAlert;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Set;

/** {@code GET /api/alerts?from&to&state}: migration-under-load alerts raised in the range, newest first. */
final class AlertsEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Clock clock;

  AlertsEndpoint(StoreReader stores, ApiConfig config, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/alerts").handler(rc -> {
      Params p = new Params(rc);
      Instant now = clock.instant();
      TimeRange range = p.range(now.minus(Duration.ofDays(7)), now.plusSeconds(3600), config.maxRange());
      String state = p.choice("state", Set.of("firing", "resolved"), null);
      int limit = p.limit(1000, config.maxPageSize());
      respond.json(rc, stores.alerts(range.from(), range.to(), state == null ? null
          : MigrationAlert.AlertState.valueOf(state.toUpperCase(Locale.ROOT)), limit));
    });
  }
}
