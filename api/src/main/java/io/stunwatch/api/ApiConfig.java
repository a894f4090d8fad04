package io.stunwatch.api;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

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
 * @param idleTimeout   how long a connection may stay idle before the server closes it
 * @param maxConnections the most connections served at once; one more is closed as it opens
 * @param internalToken what instances present to each other's {@code /internal} routes, which accept nothing else
 * @param tlsCa         PEM CAs an instance trusts when it calls another over HTTPS, or null for the JVM's
 * @param vmSeries      the most VMs this instance exports per-VM series of on {@code /metrics}; 0 for none
 * @param planMaxStun   the longest forecast stun (p95) the migrate check and the evacuation plan accept
 * @param switchoverLimit the switchover time after which ESXi fails a vMotion; a forecast stun (p95) over it would
 *                      fail
 */
public record ApiConfig(String host, int port, String advertisedHost, String token, boolean openHealth,
    int maxPageSize, Duration maxRange, Path tlsCert, Path tlsKey, Duration idleTimeout, int maxConnections,
    String internalToken, Path tlsCa, int vmSeries, Duration planMaxStun, Duration switchoverLimit) {

  /** With the default switchover limit. */
  public ApiConfig(String host, int port, String advertisedHost, String token, boolean openHealth, int maxPageSize,
      Duration maxRange, Path tlsCert, Path tlsKey, Duration idleTimeout, int maxConnections, String internalToken,
      Path tlsCa, int vmSeries, Duration planMaxStun) {
    this(host, port, advertisedHost, token, openHealth, maxPageSize, maxRange, tlsCert, tlsKey, idleTimeout,
        maxConnections, internalToken, tlsCa, vmSeries, planMaxStun, SWITCHOVER_LIMIT.defaultValue());
  }

  /** With the default stun limit of the plans. */
  public ApiConfig(String host, int port, String advertisedHost, String token, boolean openHealth, int maxPageSize,
      Duration maxRange, Path tlsCert, Path tlsKey, Duration idleTimeout, int maxConnections, String internalToken,
      Path tlsCa, int vmSeries) {
    this(host, port, advertisedHost, token, openHealth, maxPageSize, maxRange, tlsCert, tlsKey, idleTimeout,
        maxConnections, internalToken, tlsCa, vmSeries, PLAN_MAX_STUN.defaultValue());
  }

  /** With the default idle timeout and connection limit, and the internal token derived from {@code token}. */
  public ApiConfig(String host, int port, String advertisedHost, String token, boolean openHealth, int maxPageSize,
      Duration maxRange, Path tlsCert, Path tlsKey) {
    this(host, port, advertisedHost, token, openHealth, maxPageSize, maxRange, tlsCert, tlsKey,
        IDLE_TIMEOUT.defaultValue(), MAX_CONNECTIONS.defaultValue(), derivedInternalToken(token), null,
        VM_SERIES.defaultValue(), PLAN_MAX_STUN.defaultValue());
  }

  /** This config on another port. */
  public ApiConfig withPort(int p) {
    return new ApiConfig(host, p, advertisedHost, token, openHealth, maxPageSize, maxRange, tlsCert, tlsKey,
        idleTimeout, maxConnections, internalToken, tlsCa, vmSeries, planMaxStun, switchoverLimit);
  }

  /** This config serving HTTPS with {@code cert} and {@code key}, and trusting {@code ca} in calls to the others. */
  public ApiConfig withTls(Path cert, Path key, Path ca) {
    return new ApiConfig(host, port, advertisedHost, token, openHealth, maxPageSize, maxRange, cert, key,
        idleTimeout, maxConnections, internalToken, ca, vmSeries, planMaxStun, switchoverLimit);
  }

  /**
   * The internal token when none is configured: an HMAC of the users' token, so every instance of a site agrees on
   * it without another secret, and a member that receives it learns nothing of the users' token.
   */
  static String derivedInternalToken(String token) {
    if (token == null) {
      return null;
    }
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(token.getBytes(StandardCharsets.UTF_8),
          "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal("stunwatch instance-to-instance calls"
          .getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }

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

  public static final ConfigKey<Duration> IDLE_TIMEOUT = ConfigKeys.duration("api.idle-timeout",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofHours(1),
      "How long a connection may stay idle before the API closes it (keep-alive clients reconnect).");
  public static final ConfigKey<Integer> MAX_CONNECTIONS = ConfigKeys.integer("api.max-connections", 1024, 1,
      1_000_000, "The most connections the API serves at once; a connection beyond them is closed as it opens "
          + "and counted in stunwatch_api_connections_refused_total.");

  public static final ConfigKey<String> INTERNAL_TOKEN = ConfigKeys.secret("api.internal-token",
      "What API instances present to each other's /internal routes (at least 16 characters, the same on every "
          + "instance, as a file: STUNWATCH_API_INTERNAL_TOKEN_FILE). Those routes accept it and nothing else, and "
          + "the public routes refuse it. Default: derived from api.token by HMAC, so a member that receives it "
          + "learns nothing of the users' token.");
  public static final ConfigKey<Path> TLS_CA = ConfigKeys.path("api.tls.ca", null,
      "PEM CA certificates an instance trusts when it calls another over HTTPS (with api.tls.cert); the host "
          + "name in api.advertised-host is verified. Default: the JVM's CAs.");

  public static final ConfigKey<Integer> VM_SERIES = ConfigKeys.integer("api.metrics.vm-series", 2000, 0, 1_000_000,
      "The most VMs whose per-VM series (stunwatch_vm_*) this instance exports on /metrics, of those whose "
          + "partitions it owns; 0 for none. Beyond it, the VMs first in VM-id order are kept (a stable set, not one "
          + "that churns series), and the rest are counted in stunwatch_vm_series_omitted. Each VM is about 5 series "
          + "and 1 KB of every scrape.");

  public static final ConfigKey<Duration> PLAN_MAX_STUN = ConfigKeys.duration("api.plan.max-stun",
      Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofHours(1),
      "The longest forecast stun (its p95) that GET /api/vms/{vm}/migrate-check calls safe and that the evacuation "
          + "plan moves without deferring a busy VM: a training job's collective operations time out when a peer is "
          + "frozen for longer than their timeout.");

  public static final ConfigKey<Duration> SWITCHOVER_LIMIT = ConfigKeys.duration("api.plan.switchover-limit",
      Duration.ofSeconds(100), Duration.ofSeconds(1), Duration.ofHours(1),
      "The switchover time after which ESXi fails a vMotion and leaves the VM on its source (the VMs' "
          + "vmotion.maxSwitchoverSeconds, 100 s unless changed). The migrate check and the evacuation plan flag a VM "
          + "whose forecast stun (p95) is over it as one whose move would fail.");

  public static final List<ConfigKey<?>> KEYS = List.of(HOST, PORT, ADVERTISED_HOST, TOKEN, OPEN_HEALTH,
      MAX_PAGE_SIZE, MAX_RANGE, TLS_CERT, TLS_KEY, TLS_CA, IDLE_TIMEOUT, MAX_CONNECTIONS, INTERNAL_TOKEN, VM_SERIES,
      PLAN_MAX_STUN, SWITCHOVER_LIMIT);

  public static ApiConfig from(ConfigSource source) {
    ConfigReader r = source.reader();
    String token = r.get(TOKEN);
    Path cert = r.get(TLS_CERT);
    Path key = r.get(TLS_KEY);
    r.check(token != null, TOKEN, "is required: the API never runs without authentication");
    r.check(token == null || token.length() >= 16, TOKEN, "must be at least 16 characters");
    r.check((cert == null) == (key == null), TLS_KEY, "api.tls.cert and api.tls.key go together");
    String internal = r.get(INTERNAL_TOKEN);
    r.check(internal == null || internal.length() >= 16, INTERNAL_TOKEN, "must be at least 16 characters");
    r.check(internal == null || !internal.equals(token), INTERNAL_TOKEN, "must differ from api.token");
    Path ca = r.get(TLS_CA);
    r.check(ca == null || cert != null, TLS_CA, "is for calls between HTTPS instances: set api.tls.cert too");
    String host = r.get(HOST);
    String advertised = r.get(ADVERTISED_HOST);
    ApiConfig c = new ApiConfig(host, r.get(PORT), advertised == null ? host : advertised, token,
        r.get(OPEN_HEALTH), r.get(MAX_PAGE_SIZE), r.get(MAX_RANGE), cert, key, r.get(IDLE_TIMEOUT),
        r.get(MAX_CONNECTIONS), internal != null ? internal : derivedInternalToken(token), ca, r.get(VM_SERIES),
        r.get(PLAN_MAX_STUN), r.get(SWITCHOVER_LIMIT));
    r.done();
    return c;
  }

  @Override
  public String toString() {
    return "ApiConfig[host=" + host + ", port=" + port + ", token=****, internalToken=****]";
  }
}
