package io.stunwatch.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.model.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What {@link ApiBenchmark} asks the API besides the load it measures: how far loading is, the ids, readiness. */
final class ApiQueries {

  private ApiQueries() {
  }

  /** Up to 1,000 migration ids, newest first, as the list gives them. */
  static List<String> migrationIds(HttpClient http, String base, String token, Instant from, Instant to)
      throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/migrations?limit=1000&from="
        + from.toEpochMilli() + "&to=" + to.toEpochMilli())).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    List<String> ids = new ArrayList<>();
    for (JsonNode n : Json.mapper().readTree(r.body())) {
      ids.add(n.path("migration").path("id").asText());
    }
    if (ids.isEmpty()) {
      throw new IllegalStateException("the list gave no migration id: " + r.statusCode());
    }
    return ids;
  }

  /**
   * Until both instances are ready, the group has settled (two looks 5 s apart agree) and the first lists every
   * migration again. The second restores the stores of the tasks it takes, and Streams moves an active task only
   * once a warm-up copy has caught up (a probing rebalance every 10 minutes): on a slow machine that is half an hour.
   */
  static void awaitTwo(HttpClient http, String first, String second, String token, Instant from, Instant to,
      int planned) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(40).toNanos();
    int agreed = 0;
    while (agreed < 2) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the two instances did not settle within 40 minutes");
      }
      Thread.sleep(5000);
      boolean ready = status(http, first + "/ready") == 200 && status(http, second + "/ready") == 200
          && listed(http, first, token, from, to) == planned && listed(http, second, token, from, to) == planned;
      agreed = ready ? agreed + 1 : 0;
    }
  }

  static int status(HttpClient http, String url) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  static long listed(HttpClient http, String base, String token, Instant from, Instant to)
      throws Exception {
    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/migrations?limit=1&count=true&from="
        + from.toEpochMilli() + "&to=" + to.toEpochMilli())).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.discarding());
    if (r.statusCode() != 200 && r.statusCode() != 503) {
      throw new IllegalStateException("/api/migrations answered " + r.statusCode());
    }
    return r.statusCode() == 200 ? Long.parseLong(r.headers().firstValue("X-Total-Count").orElse("0")) : 0;
  }
}
