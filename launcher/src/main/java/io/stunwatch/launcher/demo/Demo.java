package io.stunwatch.launcher.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.launcher.sim.StunLaw;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Stunwatch site on this machine, fed by a simulated fleet: {@link DemoSite} (broker, processor, API) and a
 * {@link FleetScenario} released through the collectors by {@link CollectorFeed} on a {@link SimulatedClock}. The DRS
 * guard runs in enforce mode ({@link DemoGuard}) against the simulated vCenter, whose DRS honours its overrides
 * ({@link SimulatedDrs}).
 *
 * <p>What it shows is read back through the API ({@link #summary}); the fleet never writes a result. The one figure
 * no record holds, the DRS migrations that did not happen, is the simulated DRS's.
 */
public final class Demo implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Demo.class);
  /** Marks a directory as the demo's, which a later demo may empty. */
  static final String MARKER = ".stunwatch-demo";
  /** How long past its start the fleet's scenario is planned: the longest a demo runs. */
  static final Duration PLANNED = Duration.ofDays(7);

  /**
   * What to run.
   *
   * @param speed          simulated seconds per real second until the present is reached
   * @param history        how far in the past the simulation starts
   * @param vms            GPU VMs (hosts: one per four VMs, at least two)
   * @param seed           the fleet's random seed
   * @param dataDir        the demo's directory: broker log, processor state, the fleet's files, the API token
   * @param port           the API's port, 0 for any free one
   * @param migrationEvery on average, one migration starts this often (simulated time)
   * @param stunLaw        how long the fleet's migrations stun their VMs
   */
  public record Options(double speed, Duration history, int vms, long seed, Path dataDir, int port,
      Duration migrationEvery, StunLaw stunLaw) {

    /** Options whose stuns follow VMware's published vSphere 7 figure. */
    public Options(double speed, Duration history, int vms, long seed, Path dataDir, int port,
        Duration migrationEvery) {
      this(speed, history, vms, seed, dataDir, port, migrationEvery, StunLaw.VSPHERE_7);
    }

    public Options {
      if (!(speed >= 1 && speed <= 10_000)) {
        throw new IllegalArgumentException("--speed must be between 1 and 10000, not " + speed);
      }
      if (history.isNegative() || history.compareTo(Duration.ofDays(30)) > 0) {
        throw new IllegalArgumentException("--history must be between 0 and 30 days, not " + history);
      }
      if (vms < 1 || vms > 1000) {
        throw new IllegalArgumentException("--vms must be between 1 and 1000, not " + vms);
      }
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("--port must be between 0 and 65535, not " + port);
      }
      if (migrationEvery.toSeconds() < 1) {
        throw new IllegalArgumentException("--migration-every must be at least 1 s, not " + migrationEvery);
      }
    }

    public int hosts() {
      return Math.max(2, (vms + 3) / 4);
    }
  }

  /**
   * What the API says so far.
   *
   * @param guardHeld VMs the DRS guard protects now ({@code GET /api/guard})
   * @param prevented DRS migrations of VMs under load that did not happen for the guard's override
   */
  public record Summary(Instant simulatedNow, double speed, Instant fleetAt, int migrations, boolean more,
      int alerts, String lastStun, int hostOnly, int guardHeld, int prevented) {
    /** One line for the terminal. */
    public String line() {
      long behind = fleetAt == null ? 0 : Duration.between(fleetAt, simulatedNow).toMinutes();
      return String.format("[%s UTC %s%s] %s%d migrations, %d under-load alerts | last stun %s",
          simulatedNow.truncatedTo(ChronoUnit.SECONDS).toString().replace('T', ' ').replace("Z", ""),
          speed > 1 ? "x" + Math.round(speed) : "live",
          behind >= 1 ? ", fleet " + behind + " min behind: this machine is busy" : "",
          more ? "over " : "", migrations, alerts, lastStun == null ? "none yet" : lastStun)
          + (hostOnly > 0 ? " | " + hostOnly + " seen only from their hosts" : "")
          + String.format(" | DRS guard: %d VM%s held, %d move%s under load prevented", guardHeld,
              guardHeld == 1 ? "" : "s", prevented, prevented == 1 ? "" : "s");
    }
  }

  private final Options options;
  private final Instant start;
  private final SimulatedClock clock;
  private final String token;
  private final DemoSite site;
  private final CollectorFeed feed;
  private final FleetScenario scenario;
  private final SimulatedDrs drs;
  private final DemoGuard guard;
  /** How often the simulated ESXi hosts run {@code nvidia-smi vgpu -q}: the host collector's default interval. */
  static final Duration HOST_VIEW_EVERY = Duration.ofSeconds(5);
  private final Thread fleet;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private volatile Throwable fleetFailure;

  /** The simulated vCenter's VMs by VM id, as its inventory says now: what the guard acts on. */
  private final Map<String, VmInventoryEntry> vms;

  private Demo(Options options, Instant start, SimulatedClock clock, String token, DemoSite site, CollectorFeed feed,
      FleetScenario scenario, SimulatedDrs drs, DemoGuard guard, Map<String, VmInventoryEntry> vms) {
    this.options = options;
    this.start = start;
    this.clock = clock;
    this.token = token;
    this.site = site;
    this.feed = feed;
    this.scenario = scenario;
    this.drs = drs;
    this.guard = guard;
    this.vms = vms;
    this.fleet = new Thread(this::runFleet, "stunwatch-demo-fleet");
  }

  /** Empties the data directory (only a demo's), starts the site, then the fleet. */
  public static Demo start(Options o, Clock real) throws Exception {
    prepare(o.dataDir());
    byte[] secret = new byte[24];
    new SecureRandom().nextBytes(secret);
    String token = HexFormat.of().formatHex(secret);
    Path tokenFile = o.dataDir().resolve("api-token");
    Files.writeString(tokenFile, token + "\n", StandardCharsets.US_ASCII);
    try {
      Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the directory's own permissions apply
    }
    Instant start = real.instant().minus(o.history()).truncatedTo(ChronoUnit.SECONDS);
    SimulatedClock clock = new SimulatedClock(real, start, o.speed());
    DemoSite site = DemoSite.start(o.dataDir(), o.port(), token, clock);
    CollectorFeed feed;
    try {
      feed = new CollectorFeed(o.dataDir().resolve("fleet"), site.bootstrapServers(), clock);
    } catch (Exception | Error e) {
      site.close();
      throw e;
    }
    // the hosts read their vGPUs too, as a host collector does every 5 s: each VM's hypervisor view beside its
    // guest's, and each GPU's scheduler policy
    FleetScenario scenario = new FleetScenario(new FleetScenario.Settings(o.seed(), o.vms(), o.hosts(), start,
        o.history().plus(PLANNED), o.migrationEvery()), 1000, HOST_VIEW_EVERY, o.stunLaw());
    SimulatedDrs drs = new SimulatedDrs();
    Map<String, VmInventoryEntry> vms = new ConcurrentHashMap<>();
    DemoGuard guard;
    try {
      guard = DemoGuard.start(site.bootstrapServers(), clock, o.speed(), drs, vms, feed.registry());
    } catch (RuntimeException | Error e) {
      feed.close();
      site.close();
      throw e;
    }
    Demo d = new Demo(o, start, clock, token, site, feed, scenario, drs, guard, vms);
    d.fleet.start();
    return d;
  }

  /**
   * Checks that the demo may use {@code dir}: a new or empty directory, or one a demo made, which it empties.
   *
   * @throws IllegalArgumentException naming the directory and why not
   */
  public static void checkDataDir(Path dir) throws IOException {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new IllegalArgumentException("--data-dir " + dir + " is not a directory");
    }
    if (Files.isDirectory(dir)) {
      boolean empty;
      try (Stream<Path> s = Files.list(dir)) {
        empty = s.findAny().isEmpty();
      }
      if (!empty && !Files.exists(dir.resolve(MARKER))) {
        throw new IllegalArgumentException("--data-dir " + dir + " is not empty and was not made by the demo (no "
            + MARKER + "), so the demo will not empty it: choose another directory");
      }
    }
  }

  /** A new directory, or one a demo made: emptied. Anything else is refused rather than deleted. */
  private static void prepare(Path dir) throws IOException {
    checkDataDir(dir);
    if (Files.exists(dir)) {
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          if (!p.equals(dir)) {
            Files.delete(p);
          }
        }
      }
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(MARKER), "A Stunwatch demo's data; the next demo on this directory empties it.\n");
  }

  private void runFleet() {
    try {
      scenario.run(new FleetScenario.Sink() {
        @Override
        public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
          feed.send(topic, key, value, at);
          if (value instanceof VmInventoryEntry vm && vm.biosUuid() != null) {
            vms.put(vm.biosUuid(), vm); // once released: the vCenter's inventory as of the simulated now
          }
        }
      }, drs);
      LOG.info("The simulated fleet reached the end of its {} plan", PLANNED);
    } catch (CollectorFeed.Stopped stopped) {
      // closed
    } catch (RuntimeException | Error e) {
      fleetFailure = e;
      LOG.error("The simulated fleet stopped", e);
    }
  }

  public Options options() {
    return options;
  }

  public Instant simulationStart() {
    return start;
  }

  public SimulatedClock clock() {
    return clock;
  }

  public DemoSite site() {
    return site;
  }

  public FleetScenario scenario() {
    return scenario;
  }

  public CollectorFeed feed() {
    return feed;
  }

  public Path tokenFile() {
    return options.dataDir().resolve("api-token");
  }

  /**
   * The planned migrations ({@link FleetScenario#plans}) that DRS did not make for the guard's override, by migration
   * id: every other planned migration that has started is one the simulated vCenter made.
   */
  public Set<String> heldBackMigrations() {
    return drs.heldBackIds();
  }

  /** Why the fleet stopped on its own, or null while it runs (or after a clean stop). */
  public Throwable fleetFailure() {
    return fleetFailure;
  }

  /** What the API reports now. */
  public Summary summary() throws IOException, InterruptedException {
    Instant now = clock.instant();
    String range = "from=" + enc(start.toString()) + "&to=" + enc(now.toString());
    JsonNode migrations = get("/api/migrations?limit=1000&sort=-start&" + range);
    JsonNode alerts = get("/api/alerts?limit=1000&" + range);
    String lastStun = null;
    for (JsonNode m : migrations) {
      JsonNode stun = m.path("stun");
      if (stun.hasNonNull("seconds")) {
        lastStun = String.format("%.1f s on %s (%s)", stun.get("seconds").asDouble(),
            m.path("migration").path("vmName").asText(), stun.path("source").asText().toLowerCase());
        break;
      }
    }
    int hostOnly = 0;
    for (JsonNode m : migrations) {
      hostOnly += "HOST".equals(m.path("loadSource").asText()) ? 1 : 0; // a VM with no worker in its guest
    }
    int guardHeld = get("/api/guard").path("protectedVms").size();
    return new Summary(now, clock.speedNow(), feed.lastReleased(), migrations.size(), migrations.size() >= 1000,
        alerts.size(), lastStun, hostOnly, guardHeld, drs.heldBackUnderLoad());
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(site.apiUrl() + path))
        .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(path + " answered " + r.statusCode() + ": " + r.body());
    }
    return Json.mapper().readTree(r.body());
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** Stops the fleet (sending what the collectors buffered), then the processor, API and broker. */
  @Override
  public void close() throws Exception {
    try {
      feed.stop();
      fleet.join(Duration.ofSeconds(15).toMillis()); // a record being sent completes first
      guard.close();
      feed.close();
    } finally {
      site.close();
    }
  }
}
