package io.stunwatch.api;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of {@code stunwatch api}.
 *
 * @param host          address to listen on
 * @param port          HTTP port (0: any free port)
 * @param advertisedHost host name other instances reach this one by (forwarded queries)
 * @param token         the bearer token every request must carry
 * @param openHealth    whether {@code /health}, {@code /ready} and {@code /metrics} answer without the token
 * @param maxPageSize   the largest {@code limit} a list request may ask for
 * @param maxRange      the longest {@code from}–{@code to} range a request may ask for
 * @param tlsCert       PEM certificate chain for HTTPS, or null for plain HTTP
 * @param tlsKey        its PEM private key
 */
public record ApiConfig(String host, int port, String advertisedHost, String token, boolean openHealth,
    int maxPageSize, Duration maxRange, Path tlsCert, Path tlsKey) {

  public static final ConfigKey<String> HOST = ConfigKeys.string("api.host", "127.0.0.1",
      "Address the API listens on; 0.0.0.0 for all interfaces.");
  public static final ConfigKey<Integer> PORT = ConfigKeys.port("api.port", 8080, "HTTP port of the API.");
  public static final ConfigKey<String> ADVERTISED_HOST = ConfigKeys.optionalString("api.advertised-host",
      "Host name other API instances use to reach this one (forwarded queries); defaults to api.host.");
  public static final ConfigKey<String> TOKEN = ConfigKeys.secret("api.token",
      "Bearer token every API request must carry. Give it as STUNWATCH_API_TOKEN_FILE (a file) or "
          + "STUNWATCH_API_TOKEN; at least 16 characters.");
  public static final ConfigKey<Boolean> OPEN_HEALTH = ConfigKeys.bool("api.open-health", true,
      "Whether /health, /ready and /metrics answer without the token (for probes and Prometheus).");
  public static final ConfigKey<Integer> MAX_PAGE_SIZE = ConfigKeys.integer("api.max-page-size", 1000, 1, 100_000,
      "The largest page a list request may ask for (limit).");
  public static final ConfigKey<Duration> MAX_RANGE = ConfigKeys.duration("api.max-range", Duration.ofDays(92),
      Duration.ofHours(1), Duration.ofDays(3660), "The longest from-to range a request may ask for.");
  public static final ConfigKey<Path> TLS_CERT = ConfigKeys.path("api.tls.cert", null,
      "PEM certificate chain: serve HTTPS instead of HTTP.");
  public static final ConfigKey<Path> TLS_KEY = ConfigKeys.path("api.tls.key", null,
      "PEM private key of api.tls.cert.");

  public static final List<ConfigKey<?>> KEYS = List.of(HOST, PORT, ADVERTISED_HOST, TOKEN, OPEN_HEALTH,
      MAX_PAGE_SIZE, MAX_RANGE, TLS_CERT, TLS_KEY);

  public static ApiConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    String token = r.get(TOKEN);
    Path cert = r.get(TLS_CERT);
    Path key = r.get(TLS_KEY);
    r.check(token != null, TOKEN, "is required: the API never runs without authentication");
    r.check(token == null || token.length() >= 16, TOKEN, "must be at least 16 characters");
    r.check((cert == null) == (key == null), TLS_KEY, "api.tls.cert and api.tls.key go together");
    String host = r.get(HOST);
    String advertised = r.get(ADVERTISED_HOST);
    ApiConfig c = new ApiConfig(host, r.get(PORT), advertised == null ? host : advertised, token,
        r.get(OPEN_HEALTH), r.get(MAX_PAGE_SIZE), r.get(MAX_RANGE), cert, key);
    r.done();
    return c;
  }

  @Override
  public String toString() {
    return "ApiConfig[host=" + host + ", port=" + port + ", token=****]";
  }
}
