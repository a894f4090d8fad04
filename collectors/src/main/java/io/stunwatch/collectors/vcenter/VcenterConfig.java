package io.stunwatch.collectors.vcenter;

import io.stunwatch.config.ConfigKey;
import io.stunwatch.config.ConfigKeys;
import io.stunwatch.config.ConfigReader;
import io.stunwatch.config.ConfigSource;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.X509TrustManager;

/**
 * Settings of the vCenter collector. Credentials come only from the environment or a file (never the command line,
 * never a URL); TLS is verified unless {@code vcenter.insecure} says otherwise.
 *
 * @param urls              the vCenters' SDK URLs, each collected with its own session and checkpoint
 * @param username          the vCenter user (read-only role with Datastore.Browse)
 * @param password          its password
 * @param thumbprints       pinned SHA-256 certificate thumbprints by host name
 * @param caFile            a CA bundle that signs the vCenters' certificates
 * @param insecure          skip certificate verification (logged loudly at every connect)
 * @param pollInterval      how often new events are read
 * @param inventoryInterval how often the inventory is refreshed
 * @param startLookback     how far back a first start (no checkpoint) reads events
 * @param logTailBytes      how much of the end of a vmware.log is fetched
 * @param heartbeatInterval how often the checkpoint is saved when nothing happens
 * @param metricsPort       port of the collector's /metrics page, 0 for none
 * @param metricsHost       interface of the /metrics page
 * @param eventOverlap      how far behind the newest event published each read starts again
 * @param maxEventsPerTransaction the most events one transaction publishes
 * @param credentials       per vCenter login and trust, by {@code host} or {@code host:port} (see
 *                          {@link VcenterCredentials})
 * @param guard             how the DRS guard's decisions are applied ({@code guard.*})
 */
public record VcenterConfig(List<URL> urls, String username, String password, Map<String, String> thumbprints,
    Path caFile, boolean insecure, Duration pollInterval, Duration inventoryInterval, Duration startLookback,
    long logTailBytes, Duration heartbeatInterval, int metricsPort, String metricsHost, Duration eventOverlap,
    int maxEventsPerTransaction, Map<String, VcenterCredentials> credentials, GuardApplyConfig guard) {

  /** The settings of a test or a tool: the defaults of everything after {@code startLookback}. */
  public VcenterConfig(List<URL> urls, String username, String password, Map<String, String> thumbprints,
      Path caFile, boolean insecure, Duration pollInterval, Duration inventoryInterval, Duration startLookback) {
    this(urls, username, password, thumbprints, caFile, insecure, pollInterval, inventoryInterval, startLookback,
        LOG_TAIL_KIB.defaultValue() * 1024L, HEARTBEAT_INTERVAL.defaultValue(), 0, METRICS_HOST.defaultValue(),
        EVENT_OVERLAP.defaultValue(), MAX_EVENTS_PER_TRANSACTION.defaultValue(), Map.of(), GuardApplyConfig.OFF);
  }

  public static final ConfigKey<List<URL>> URLS = ConfigKeys.custom("vcenter.urls", "URL list",
      "a comma-separated list of https://HOST/sdk URLs without credentials", List.of(),
      "The vCenters to collect from; each gets its own session and checkpoint.", VcenterConfig::urls);
  public static final ConfigKey<String> USERNAME = ConfigKeys.optionalString("vcenter.username",
      "The vCenter user, e.g. stunwatch@vsphere.local: a read-only role with Datastore.Browse (for vmware.log).");
  public static final ConfigKey<String> PASSWORD = ConfigKeys.secret("vcenter.password",
      "The vCenter password. Give it as STUNWATCH_VCENTER_PASSWORD_FILE (a file) or STUNWATCH_VCENTER_PASSWORD; "
          + "it is never accepted on the command line and never logged.");
  public static final ConfigKey<Map<String, String>> THUMBPRINTS = ConfigKeys.custom("vcenter.thumbprints",
      "host=sha256 list", "a comma-separated list of HOST=SHA256 (64 hex digits, colons allowed)", Map.of(),
      "Pinned SHA-256 thumbprints of vCenter certificates, by host name; a pinned host trusts nothing else.",
      VcenterConfig::thumbprints);
  public static final ConfigKey<Path> CA_FILE = ConfigKeys.path("vcenter.ca-file", null,
      "A PEM bundle of the CAs that sign the vCenter certificates (e.g. the VMCA root). Default: the system trust "
          + "store.");
  public static final ConfigKey<Boolean> INSECURE = ConfigKeys.bool("vcenter.insecure", false,
      "Skip vCenter certificate verification. For labs only: logged as a warning at every connect.");
  public static final ConfigKey<Duration> POLL_INTERVAL = ConfigKeys.duration("vcenter.poll-interval",
      Duration.ofSeconds(5), Duration.ofMillis(200), Duration.ofMinutes(10), "How often new vCenter events are read.");
  public static final ConfigKey<Duration> INVENTORY_INTERVAL = ConfigKeys.duration("vcenter.inventory-interval",
      Duration.ofMinutes(5), Duration.ofSeconds(1), Duration.ofDays(1), "How often the VM and host inventory is read.");
  public static final ConfigKey<Duration> START_LOOKBACK = ConfigKeys.duration("vcenter.start-lookback",
      Duration.ofHours(1), Duration.ZERO, Duration.ofDays(30),
      "On a first start (no checkpoint yet), how far back events are read.");

  public static final ConfigKey<Integer> LOG_TAIL_KIB = ConfigKeys.integer("vcenter.log-tail-kib", 8192, 64,
      1024 * 1024, "How much of the end of a migrated VM's vmware.log is fetched (an HTTP Range request), KiB. The "
          + "stun lines are at the end; a log can reach gigabytes.");
  public static final ConfigKey<Duration> HEARTBEAT_INTERVAL = ConfigKeys.duration("vcenter.heartbeat-interval",
      Duration.ofSeconds(60), Duration.ofSeconds(1), Duration.ofMinutes(10),
      "How often the checkpoint is saved when a vCenter has no new events: a quiet vCenter is not a silent "
          + "collector.");
  public static final ConfigKey<Integer> METRICS_PORT = ConfigKeys.port("vcenter.metrics-port", 0,
      "Port of the vCenter collector's Prometheus /metrics page; 0 turns it off.");
  public static final ConfigKey<String> METRICS_HOST = ConfigKeys.string("vcenter.metrics-host", "localhost",
      "Interface of the vCenter collector's /metrics page. Loopback by default; 0.0.0.0 lets a remote Prometheus "
          + "scrape it.");

  public static final ConfigKey<Duration> EVENT_OVERLAP = ConfigKeys.duration("vcenter.event-overlap",
      Duration.ofMinutes(10), Duration.ZERO, Duration.ofDays(1),
      "How far behind the newest event published each read of events starts again, to catch an event that becomes "
          + "visible late with an older createdTime (a host's events when it reconnects). An event later than this "
          + "is lost.");
  public static final ConfigKey<Integer> MAX_EVENTS_PER_TRANSACTION = ConfigKeys.integer(
      "vcenter.max-events-per-transaction", 1000, 10, 100_000,
      "The most events one Kafka transaction publishes: a long catch-up commits in parts, each with its checkpoint.");

  public static final ConfigKey<Path> CREDENTIALS_FILE = ConfigKeys.path("vcenter.credentials-file", null,
      "Each vCenter's own username, password file, CA file and thumbprint, one HOST.FIELD=VALUE a line (FIELD: "
          + "username, password-file, ca-file, thumbprint; HOST or HOST:PORT). What a vCenter leaves out comes from "
          + "the global keys.");

  public static final List<ConfigKey<?>> KEYS = List.of(URLS, USERNAME, PASSWORD, THUMBPRINTS, CA_FILE, INSECURE,
      CREDENTIALS_FILE, POLL_INTERVAL, INVENTORY_INTERVAL, START_LOOKBACK, LOG_TAIL_KIB, HEARTBEAT_INTERVAL,
      METRICS_PORT, METRICS_HOST, EVENT_OVERLAP, MAX_EVENTS_PER_TRANSACTION);

  /** Reads the settings; for live collection, {@code requireLive} also demands URLs and credentials. */
  public static VcenterConfig from(ConfigSource source, boolean requireLive) {
    ConfigReader r = source.reader();
    Path credentialsFile = r.get(CREDENTIALS_FILE);
    Map<String, VcenterCredentials> credentials = Map.of();
    if (credentialsFile != null) {
      try {
        credentials = VcenterCredentials.read(credentialsFile);
      } catch (IllegalArgumentException e) {
        r.check(false, CREDENTIALS_FILE, e.getMessage());
      }
    }
    VcenterConfig c = new VcenterConfig(r.get(URLS), r.get(USERNAME), r.get(PASSWORD), r.get(THUMBPRINTS),
        r.get(CA_FILE), r.get(INSECURE), r.get(POLL_INTERVAL), r.get(INVENTORY_INTERVAL), r.get(START_LOOKBACK),
        r.get(LOG_TAIL_KIB) * 1024L, r.get(HEARTBEAT_INTERVAL), r.get(METRICS_PORT), r.get(METRICS_HOST),
        r.get(EVENT_OVERLAP), r.get(MAX_EVENTS_PER_TRANSACTION), credentials, GuardApplyConfig.read(r));
    r.check(c.insecure || c.urls.stream().allMatch(u -> u.getProtocol().equals("https")), URLS,
        "must be https URLs: http sends the vCenter password in clear (set vcenter.insecure=true for a lab)");
    if (requireLive) {
      r.check(!c.urls.isEmpty(), URLS, "is required to collect from vCenter (or use --replay)");
      if (c.urls.isEmpty()) {
        r.check(c.username != null, USERNAME, "is required; set it in the config file or STUNWATCH_VCENTER_USERNAME");
        r.check(c.password != null, PASSWORD,
            "is required; set STUNWATCH_VCENTER_PASSWORD_FILE to a file holding it, or STUNWATCH_VCENTER_PASSWORD");
      }
      for (URL u : c.urls) {
        r.check(c.usernameFor(u) != null, USERNAME, "is required for " + u.getHost() + "; set it in the config "
            + "file or STUNWATCH_VCENTER_USERNAME, or " + u.getHost() + ".username in vcenter.credentials-file");
        r.check(c.passwordFor(u) != null, PASSWORD, "is required for " + u.getHost() + "; set "
            + "STUNWATCH_VCENTER_PASSWORD_FILE to a file holding it, or " + u.getHost()
            + ".password-file in vcenter.credentials-file");
      }
    }
    r.done();
    return c;
  }

  /** The user that logs in to {@code url}: its own from the credentials file, else {@code vcenter.username}. */
  public String usernameFor(URL url) {
    VcenterCredentials own = VcenterCredentials.lookup(credentials, url);
    return own != null && own.username() != null ? own.username() : username;
  }

  /** The password of {@code url}: its own password file, else {@code vcenter.password}. */
  public String passwordFor(URL url) {
    VcenterCredentials own = VcenterCredentials.lookup(credentials, url);
    return own != null && own.password() != null ? own.password() : password;
  }

  /**
   * How {@code url}'s certificate is verified: its pin, else its CA file, else insecure, else the system store;
   * its own entry of the credentials file first.
   */
  public X509TrustManager trustFor(URL url) throws IOException {
    VcenterCredentials own = VcenterCredentials.lookup(credentials, url);
    String pin = own != null && own.thumbprint() != null ? own.thumbprint()
        : thumbprints.get(url.getHost().toLowerCase(Locale.ROOT));
    if (pin != null) {
      return VcenterTrust.pinned(pin);
    }
    Path ca = own != null && own.caFile() != null ? own.caFile() : caFile;
    if (ca != null) {
      return VcenterTrust.caFile(ca);
    }
    return insecure ? VcenterTrust.insecure() : VcenterTrust.system();
  }

  @Override
  public String toString() {
    return "VcenterConfig[urls=" + urls + ", username=" + username + ", password=****, credentials="
        + credentials.keySet() + "]";
  }

  private static List<URL> urls(String raw) {
    List<URL> out = new ArrayList<>();
    for (String s : raw.split(",")) {
      String t = s.trim();
      if (t.isEmpty()) {
        continue;
      }
      URL u;
      try {
        u = URI.create(t).toURL();
      } catch (IllegalArgumentException | MalformedURLException e) {
        throw new IllegalArgumentException("'" + redacted(t) + "' is not a URL");
      }
      if (u.getUserInfo() != null) {
        throw new IllegalArgumentException("must not carry credentials (" + u.getHost() + "): use vcenter.username "
            + "and STUNWATCH_VCENTER_PASSWORD_FILE");
      }
      if (!u.getProtocol().equals("https") && !u.getProtocol().equals("http")) {
        throw new IllegalArgumentException("'" + redacted(t) + "' must be an https URL");
      }
      out.add(u);
    }
    return List.copyOf(out);
  }

  /**
   * {@code url} fit for a message: any user info (everything between {@code //} and the last {@code @} before the
   * path) is replaced by {@code ****}, even where the URL is too broken to parse.
   */
  static String redacted(String url) {
    int scheme = url.indexOf("//");
    int from = scheme < 0 ? 0 : scheme + 2;
    int pathAt = url.indexOf('/', from);
    int at = url.lastIndexOf('@', pathAt < 0 ? url.length() - 1 : pathAt);
    return at < from ? url : url.substring(0, from) + "****" + url.substring(at);
  }

  private static Map<String, String> thumbprints(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String s : raw.split(",")) {
      if (s.isBlank()) {
        continue;
      }
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + s.trim() + "' is not HOST=SHA256");
      }
      String host = s.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      String thumb = s.substring(eq + 1).trim();
      VcenterTrust.pinned(thumb); // validates the form
      out.put(host, thumb);
    }
    return Map.copyOf(out);
  }
}
