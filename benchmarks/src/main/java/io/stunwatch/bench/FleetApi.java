package io.stunwatch.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The API of a fleet benchmark's processor instances, asked with the run's token. */
final class FleetApi {

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String token;

  FleetApi(String token) {
    this.token = token;
  }

  /** Waits until {@code base} answers {@code /ready} with 200. */
  void awaitReady(String base, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/ready"))
            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(2)).build(),
            HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the processor was not ready within " + timeout);
  }

  /** The migrations listed between {@code from} and {@code to} ({@code X-Total-Count}). */
  long listed(String base, Instant from, Instant to) throws Exception {
    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/api/migrations?limit=1&count=true&from="
        + from.toEpochMilli() + "&to=" + to.toEpochMilli())).header("Authorization", "Bearer " + token)
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.discarding());
    return r.statusCode() == 200 ? Long.parseLong(r.headers().firstValue("X-Total-Count").orElse("0")) : 0;
  }

  /** Whether every path answers 200 on {@code base}, asked one after another. */
  boolean answersAll(String base, List<String> paths) throws InterruptedException {
    for (String path : paths) {
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
            .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() != 200) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return true;
  }

  /** {@code stunwatch_processor_restored_records_total} of one {@code task} kind, every store together. */
  long restored(String base, String task) throws Exception {
    String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
        .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile("(?m)^stunwatch_processor_restored_records_total\\{[^}]*task=\"" + task
        + "\"[^}]*} ([0-9.eE+]+)$").matcher(metrics);
    double sum = 0;
    while (m.find()) {
      sum += Double.parseDouble(m.group(1));
    }
    return (long) sum;
  }

  /** A port free now on this machine. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
