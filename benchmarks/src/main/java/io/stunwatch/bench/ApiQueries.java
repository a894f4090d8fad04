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

  /** Where {@link #awaitListed} reports its progress: a format and its arguments. */
  interface Progress {
    void printf(String format, Object... args);
  }

  /**
   * Until every instance at {@code bases} is ready and lists all {@code planned} migrations, in two looks 5 s apart
   * (a group that has just rebalanced can answer once and then move a task). Progress is reported as the first
   * instance's count grows; a minute with no progress and no agreement is a failure.
   */
  static void awaitListed(HttpClient http, String token, Instant from, Instant to, int planned, Progress progress,
      List<String> bases) throws Exception {
    long seen = -1;
    long stuckSince = System.nanoTime();
    int agreed = 0;
    while (agreed < 2) {
      Thread.sleep(5000);
      boolean all = true;
      for (String base : bases) {
        long n = status(http, base + "/ready") == 200 ? listed(http, base, token, from, to) : 0;
        if (base.equals(bases.get(0)) && n != seen) {
          progress.printf("  %,d of %,d migrations listed%n", n, planned);
          seen = n;
          stuckSince = System.nanoTime();
        }
        all &= n == planned;
      }
      agreed = all ? agreed + 1 : 0;
      if (!all && System.nanoTime() - stuckSince > Duration.ofSeconds(60).toNanos()) {
        throw new IllegalStateException("only " + seen + " of " + planned + " migrations listed after a minute "
            + "without progress");
      }
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
