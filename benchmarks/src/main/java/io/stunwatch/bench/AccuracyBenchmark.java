package io.stunwatch.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.launcher.demo.Demo;
import io.stunwatch.launcher.sim.StunLaw;
import io.stunwatch.model.json.Json;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The stun forecasts' accuracy, by the API's own backtest ({@code GET /api/stun-time/accuracy}), on simulated sites
 * whose stuns follow a given law: each a whole demo (embedded broker, the collectors' parsers, the processor, the
 * API) run through its history as fast as this machine goes, then asked. VMware's published figure is scored on the
 * same migrations, as the baseline.
 */
public final class AccuracyBenchmark {

  /**
   * What to run.
   *
   * @param laws           one site per law
   * @param vms            GPU VMs of each site
   * @param history        simulated history of each site
   * @param migrationEvery one migration this often, on average
   * @param speed          simulated seconds per real second
   * @param seed           the fleet's seed
   * @param dir            working directory
   */
  public record Settings(List<StunLaw> laws, int vms, Duration history, Duration migrationEvery, double speed,
      long seed, Path dir) {
  }

  /** One site's answer. */
  public record Result(StunLaw law, JsonNode accuracy, Duration took) {
  }

  private final Settings settings;
  private final PrintWriter log;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public AccuracyBenchmark(Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  public List<Result> run() throws Exception {
    List<Result> out = new ArrayList<>();
    int n = 0;
    for (StunLaw law : settings.laws()) {
      Path dir = settings.dir().resolve("site-" + n++);
      long t0 = System.nanoTime();
      Demo.Options o = new Demo.Options(settings.speed(), settings.history(), settings.vms(), settings.seed(), dir, 0,
          settings.migrationEvery(), law);
      try (Demo demo = Demo.start(o, Clock.systemUTC())) {
        String token = Files.readString(demo.tokenFile()).trim();
        String url = demo.site().apiUrl();
        log.printf("site %s: %d VMs, %s of history at x%.0f%n", law, settings.vms(), settings.history(),
            settings.speed());
        log.flush();
        // through the history, then until the backtest stops growing: the last impacts settle a minute or two after
        // their migrations end, in simulated time. A machine that cannot keep up gets four times the planned pace.
        long deadline = System.nanoTime() + Duration.ofSeconds((long) (settings.history().toSeconds()
            / settings.speed() * 4) + 600).toNanos();
        while (!demo.clock().live() || demo.feed().lastReleased() == null
            || demo.feed().lastReleased().isBefore(demo.clock().instant().minusSeconds(60))) {
          if (demo.fleetFailure() != null) {
            throw new IllegalStateException("the fleet failed", demo.fleetFailure());
          }
          overdue(deadline, law, "reach the present");
          Thread.sleep(1000);
        }
        JsonNode last = null;
        long stable = 0;
        while (stable < 3) {
          overdue(deadline, law, "settle its backtest");
          Thread.sleep(5000);
          JsonNode a = get(url, token, "/api/stun-time/accuracy");
          stable = last != null && last.path("overall").path("count").asLong() == a.path("overall").path("count")
              .asLong() ? stable + 1 : 0;
          last = a;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        log.printf("site %s: %d stuns backtested after %d s%n", law, last.path("overall").path("count").asLong(),
            took.toSeconds());
        log.flush();
        out.add(new Result(law, last, took));
      }
    }
    return out;
  }

  private static void overdue(long deadline, StunLaw law, String what) {
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("site " + law + " did not " + what + " in time");
    }
  }

  private JsonNode get(String url, String token, String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + path))
        .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(path + " answered " + r.statusCode() + ": " + r.body());
    }
    return Json.mapper().readTree(r.body());
  }

  /** The markdown table of docs/performance.md: each site's profiles, then its whole fleet. */
  public static String table(List<Result> results) {
    StringBuilder b = new StringBuilder();
    b.append("| site's stun law | profile | stuns backtested | after 20 of the profile | Stunwatch MdAPE, p90 "
        + "(after 20) | VMware's figure MdAPE, p90 (after 20) |\n");
    b.append("|---|---|---|---|---|---|\n");
    for (Result r : results) {
      for (JsonNode p : r.accuracy().path("profiles")) {
        row(b, r.law(), p.path("profile").asText(), p.path("all"), p.path("afterWarmup"));
      }
      row(b, r.law(), "**all**", r.accuracy().path("overall"), r.accuracy().path("overallAfterWarmup"));
    }
    return b.toString();
  }

  private static void row(StringBuilder b, StunLaw law, String profile, JsonNode all, JsonNode warm) {
    b.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %s | %s |%n", law, profile,
        all.path("count").asLong(), warm.path("count").asLong(),
        pct(warm.path("medianAbsPctError"), warm.path("p90AbsPctError")),
        pct(warm.path("referenceMedianAbsPctError"), warm.path("referenceP90AbsPctError"))));
  }

  private static String pct(JsonNode median, JsonNode p90) {
    return median.isNumber() ? String.format(Locale.ROOT, "%.1f %%, %.1f %%", median.asDouble(), p90.asDouble())
        : "n/a";
  }
}
