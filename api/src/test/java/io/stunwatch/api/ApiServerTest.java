package io.stunwatch.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.FailureCause;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Initiator;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.GuardConfig;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.GuardDecision;
import io.stunwatch.model.DrsOverride;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.MigrationImpact;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.StunTime;
import io.stunwatch.api.StoreReader.LoadWindow;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.readmodel.AnnotationBlock;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.GuardState;
import io.stunwatch.processor.readmodel.GuardTrail;
import io.stunwatch.processor.readmodel.HostGpu;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.stunwatch.processor.readmodel.StartKeys;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The HTTP layer against a fake {@link StoreReader}: auth, parameters, errors, formats. No network but loopback. */
@ExtendWith(VertxExtension.class)
class ApiServerTest {

  static final String TOKEN = "test-token-0123456789";
  static final Instant T0 = Instant.parse("2026-11-21T08:00:00Z");
  /** The server's "now": migration i starts at T0 + i minutes, so a default range ending now cuts through them. */
  static final Clock CLOCK = Clock.fixed(T0.plusSeconds(200), ZoneOffset.UTC);

  Vertx vertx;
  WebClient client;
  int port;
  FakeStores stores = new FakeStores();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    ApiConfig config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 50, Duration.ofDays(92), null,
        null);
    var server = new ApiServer(vertx, config, stores, () -> stores.ready,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), null, Duration.ofMinutes(30), CLOCK).start()
        .await(10, TimeUnit.SECONDS);
    port = server.actualPort();
    client = WebClient.create(vertx);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  HttpResponse<Buffer> get(String uri, boolean auth) throws Exception {
    var req = client.request(HttpMethod.GET, port, "127.0.0.1", uri);
    if (auth) {
      req.bearerTokenAuthentication(TOKEN);
    }
    return req.send().await(10, TimeUnit.SECONDS);
  }

  static Migration migration(int i, String profile, Initiator initiator, MigrationState state) {
    Instant start = T0.plusSeconds(60L * i);
    return new Migration("vc/" + i, "vc", "vm-" + i, "train-" + i, "4210000" + i + "-0000-4000-8000-000000000000",
        profile, state, initiator, initiator == Initiator.DRS ? "DRS" : "admin", false,
        new EntityRef("HostSystem", "host-1", "esx01"), new EntityRef("HostSystem", "host-2", "esx02"), null, null,
        null, null, start, state == MigrationState.IN_PROGRESS ? null : start.plusSeconds(30 + i), null,
        start.plusSeconds(30));
  }

  /** A fake store: a mock is fine in a unit test (the ITs use the real processor). */
  static final class FakeStores implements StoreReader {
    boolean ready = true;
    List<MigrationSummary> migrations = new ArrayList<>();
    List<GuardState> guarded = new ArrayList<>();
    List<GuardTrail> trails = new ArrayList<>();
    /** The rows the time-range reads have returned. */
    final AtomicLong rowsRead = new AtomicLong();

    FakeStores() {
      for (int i = 1; i <= 7; i++) {
        migrations.add(new MigrationSummary(ApiServerTest.migration(i, i % 2 == 0 ? "T4-16C" : "A100-40C",
            i % 3 == 0 ? Initiator.DRS : Initiator.USER, i == 5 ? MigrationState.FAILED : MigrationState.SUCCEEDED),
            i % 2 == 0, new StunTime(2.0 * i, StunTime.Source.VMWARE_LOG), 1024.0 * i, 10.0 * i));
      }
    }

    private <T> Future<T> unless(T v) {
      return ready ? Future.succeededFuture(v) : Future.failedFuture(new StoresUnavailableException("rebalancing"));
    }

    @Override
    public Future<List<MigrationRow>> migrations(Instant from, Instant to) {
      List<MigrationRow> rows = migrations.stream().filter(s -> !s.migration().startTime().isBefore(from)
          && !s.migration().startTime().isAfter(to)).map(MigrationRow::of).toList();
      rowsRead.addAndGet(rows.size());
      return unless(rows);
    }

    /** The rows the paged reads of a VM's list have returned. */
    final AtomicLong vmRowsRead = new AtomicLong();

    @Override
    public Future<List<MigrationRow>> migrationsOfVm(String vmId, VmOrderKeys.Order order, boolean desc, String after,
        int n) {
      return StoreReader.super.migrationsOfVm(vmId, order, desc, after, n).map(rows -> {
        vmRowsRead.addAndGet(rows.size());
        return rows;
      });
    }

    @Override
    public Future<List<MigrationRow>> migrationsOfVm(String vmId) {
      if (rowsOfVm.containsKey(vmId)) {
        return unless(rowsOfVm.get(vmId));
      }
      return unless(migrations.stream().filter(s -> vmId.equals(s.migration().vmId())).map(MigrationRow::of)
          .toList());
    }

    @Override
    public Future<List<AnnotationBlock>> annotationBlocks(Instant from, Instant to) {
      // as the index keeps them: one block per hour
      var byHour = new TreeMap<String, List<MigrationRow>>();
      migrations.forEach(s -> byHour.computeIfAbsent(StartKeys.hour(s.migration().startTime()),
          h -> new ArrayList<>()).add(MigrationRow.of(s)));
      return unless(byHour.subMap(StartKeys.hour(from), true, StartKeys.hour(to), true).values().stream()
          .map(AnnotationBlock::of).toList());
    }

    @Override
    public Future<Optional<MigrationSummary>> migration(String id) {
      return unless(migrations.stream().filter(s -> s.migration().id().equals(id)).findFirst());
    }

    @Override
    public Future<Optional<MigrationImpact>> impact(String id) {
      return unless(Optional.empty());
    }

    @Override
    public Future<List<MigrationAlert>> alerts(Instant from, Instant to, MigrationAlert.AlertState state,
        int limit) {
      return unless(List.of());
    }

    /** By load key: the guest's view under the VM id, the host's under {@link LoadKeys#of}. */
    final Map<String, CurrentLoad> loads = new HashMap<>();
    final List<String> windowsAsked = new ArrayList<>();

    @Override
    public Future<Optional<CurrentLoad>> currentLoad(String loadKey) {
      return unless(Optional.ofNullable(loads.get(loadKey)));
    }

    @Override
    public Future<List<GuardState>> guarded() {
      return unless(guarded);
    }

    @Override
    public Future<List<GuardTrail>> guardTrails() {
      return unless(trails);
    }

    @Override
    public Future<List<HostGpu>> hostGpus() {
      // one GPU held by two tasks: the newer report stands
      return unless(List.of(new HostGpu("esx02", "00000000:3B:00.0", "Tesla T4", "Equal Share", T0),
          new HostGpu("esx01", "00000000:86:00.0", "Tesla T4", null, T0),
          new HostGpu("esx01", "00000000:3B:00.0", "Tesla T4", "Best Effort", T0),
          new HostGpu("esx01", "00000000:3B:00.0", "Tesla T4", "Fixed Share", T0.plusSeconds(60))));
    }

    @Override
    public Future<List<LoadWindow>> loadWindows(String loadKey, String size, Instant from, Instant to) {
      windowsAsked.add(loadKey);
      return unless(windows.getOrDefault(loadKey + "@" + size, List.of()).stream()
          .filter(w -> !w.start().isBefore(from) && !w.start().isAfter(to)).toList());
    }

    final List<StunModelEntry> model = new ArrayList<>();
    final List<VmInventoryEntry> vms = new ArrayList<>();
    final List<HostInventoryEntry> hosts = new ArrayList<>();
    /** By load key and window size: what {@link #loadWindows} answers. */
    final Map<String, List<LoadWindow>> windows = new HashMap<>();
    /** By VM id: its migration rows, beside {@link #migrations}. */
    final Map<String, List<MigrationRow>> rowsOfVm = new HashMap<>();

    @Override
    public Future<List<StunModelEntry>> model() {
      return unless(List.copyOf(model));
    }

    @Override
    public Future<List<VmInventoryEntry>> vmInventory() {
      return unless(List.copyOf(vms));
    }

    @Override
    public Future<List<HostInventoryEntry>> hostInventory() {
      return unless(List.copyOf(hosts));
    }

    @Override
    public Future<List<UtilizationRow>> utilization(Instant from, Instant to) {
      return unless(List.of(new UtilizationRow(T0, "vm-a", "esx01", 7200, 3600, 0, LoadSource.GUEST),
          new UtilizationRow(T0, "vm-b", "esx01", 0, 7200, 360, LoadSource.GUEST),
          // vm-a's GPU as its host saw it: the guest's view of that day stands alone
          new UtilizationRow(T0, "vm-a", "esx01", 3600, 3600, 0, LoadSource.HOST),
          // vm-c has no guest readings: its host's view is its day
          new UtilizationRow(T0, "vm-c", "esx02", 1800, 1800, 0, LoadSource.HOST)));
    }
  }

  // --- tests ----------------------------------------------------------------------------------------------------

  @Test
  void everyApiRouteNeedsTheBearerTokenButHealthAndMetricsDoNotByDefault() throws Exception {
    assertThat(get("/api/migrations", false).statusCode()).isEqualTo(401);
    var wrong = client.request(HttpMethod.GET, port, "127.0.0.1", "/api/migrations")
        .bearerTokenAuthentication("not-the-token-at-all").send().await(10, TimeUnit.SECONDS);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.getHeader("WWW-Authenticate")).startsWith("Bearer");
    assertThat(get("/api/migrations", true).statusCode()).isEqualTo(200);
    assertThat(get("/health", false).statusCode()).isEqualTo(200);
    assertThat(get("/metrics", false).bodyAsString()).contains("stunwatch_api_requests");
    assertThat(get("/openapi.json", true).bodyAsJsonObject().getString("openapi")).startsWith("3.");
  }

  @Test
  void theConsoleIsServedWithoutTheTokenUnderAStrictContentSecurityPolicyAndTheApiStillNeedsIt() throws Exception {
    var root = client.request(HttpMethod.GET, port, "127.0.0.1", "/").followRedirects(false).send()
        .await(10, TimeUnit.SECONDS);
    assertThat(root.statusCode()).isEqualTo(302);
    assertThat(root.getHeader("Location")).isEqualTo("/console/");
    var page = get("/console/", false);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.getHeader("Content-Type")).startsWith("text/html");
    assertThat(page.getHeader("Content-Security-Policy")).contains("script-src 'self'").doesNotContain("unsafe");
    assertThat(page.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(page.bodyAsString()).contains("<script type=\"module\" src=\"app.js\">")
        .doesNotContainPattern("<script>|\\son[a-z]+=\"");
    var chart = get("/console/vendor/uPlot.esm.js", false);
    assertThat(chart.statusCode()).as("uPlot, vendored at build time").isEqualTo(200);
    assertThat(chart.getHeader("Content-Type")).contains("javascript");
    assertThat(get("/console/vendor/LICENSE", false).bodyAsString()).contains("MIT");
    assertThat(get("/console/../openapi.json", false).statusCode()).isIn(401, 404);
    assertThat(get("/api/migrations", false).statusCode()).isEqualTo(401);
  }

  @Test
  void theOpenApiDocumentDescribesEveryPublicRouteAndNoOther() throws Exception {
    ApiConfig config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 50, Duration.ofDays(92), null, null);
    var router = new ApiServer(vertx, config, stores, () -> true,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), null, Duration.ofMinutes(30), CLOCK).router();
    Set<String> routes = new TreeSet<>();
    router.getRoutes().forEach(r -> {
      String path = r.getPath();
      // the console's pages are not API: they read the API like any client
      if (path != null && !path.startsWith(InternalEndpoint.PATH) && !path.equals("/")
          && !path.startsWith("/console")) {
        routes.add(path.replaceAll(":([A-Za-z]+)", "{$1}"));
      }
    });
    JsonObject doc = get("/openapi.json", true).bodyAsJsonObject();
    assertThat(new TreeSet<>(doc.getJsonObject("paths").fieldNames())).isEqualTo(routes);
  }

  /**
   * A walk over every page in start order reads each row a few times, not the whole range for every page: 2,000
   * migrations a minute apart, 100 pages of 20, either way round.
   */
  @Test
  void walkingEveryPageInStartOrderReadsEachRowAFewTimesNotTheRangeForEveryPage() throws Exception {
    stores.migrations.clear();
    for (int i = 1; i <= 2000; i++) {
      stores.migrations.add(new MigrationSummary(ApiServerTest.migration(i, "T4-16C", Initiator.USER,
          MigrationState.SUCCEEDED), false, null, null, null));
    }
    String range = "&from=" + T0 + "&to=" + T0.plus(Duration.ofDays(2));
    for (String sort : List.of("-start", "start")) {
      stores.rowsRead.set(0);
      List<String> walked = new ArrayList<>();
      String token = null;
      do {
        var page = get("/api/migrations?sort=" + sort + "&limit=20" + range
            + (token == null ? "" : "&cursor=" + token), true);
        assertThat(page.statusCode()).as(page.bodyAsString()).isEqualTo(200);
        page.bodyAsJsonArray().forEach(o -> walked.add(((JsonObject) o).getJsonObject("migration").getString("id")));
        token = page.getHeader("X-Next-Cursor");
      } while (token != null);
      assertThat(walked).as(sort).hasSize(2000).doesNotHaveDuplicates();
      assertThat(walked.get(0)).isEqualTo(sort.startsWith("-") ? "vc/2000" : "vc/1");
      // reading the whole range for every page would be 100 × 2,000 rows
      assertThat(stores.rowsRead.get()).as(sort + ": rows read").isLessThan(8 * 2000L);
    }
  }

  /**
   * A VM's list is read a page at a time in every sort: walking it page by page gives what one whole read sorted
   * gives (ties broken by id, unknown stuns and durations first in ascending order), and reads each row a few times,
   * not the VM's 1,000 migrations for every page.
   */
  @Test
  void aVmsListIsPagedInEverySortReadingAboutItsPagesRowsNotTheVmsHistory() throws Exception {
    stores.migrations.clear();
    String vm = "4210abcd-0000-4000-8000-000000000000";
    Random random = new Random(55);
    for (int i = 1; i <= 1000; i++) {
      Instant start = T0.plusSeconds(60L * (i / 2)); // pairs with the same start: ties broken by id
      Double stun = i % 7 == 0 ? null : (double) random.nextInt(40); // unknown stuns, and many equal ones
      Migration m = new Migration("vc/m" + i, "vc", "vm-1", "train-1", vm, "T4-16C", MigrationState.SUCCEEDED,
          Initiator.DRS, "DRS", false, new EntityRef("HostSystem", "host-1", "esx01"),
          new EntityRef("HostSystem", "host-2", "esx02"), null, null, null, null, start,
          i % 11 == 0 ? null : start.plusSeconds(random.nextInt(200)), null, start.plusSeconds(30));
      stores.migrations.add(new MigrationSummary(m, i % 3 == 0,
          stun == null ? null : new StunTime(stun, StunTime.Source.VMWARE_LOG), 1024.0, null));
    }
    String range = "&from=" + T0.minusSeconds(1) + "&to=" + T0.plus(Duration.ofDays(2));
    for (String sort : MigrationsEndpoint.SORTS) {
      // the reference: the VM's whole list read and sorted for each page (count=true)
      List<String> expected = new ArrayList<>();
      String next = null;
      do {
        var whole = get("/api/migrations?vm=" + vm + "&count=true&limit=50&sort=" + sort + range
            + (next == null ? "" : "&cursor=" + next), true);
        assertThat(whole.statusCode()).as(whole.bodyAsString()).isEqualTo(200);
        whole.bodyAsJsonArray().forEach(o -> expected.add(((JsonObject) o).getJsonObject("migration")
            .getString("id")));
        next = whole.getHeader("X-Next-Cursor");
      } while (next != null);
      assertThat(expected).hasSize(1000).doesNotHaveDuplicates();
      stores.vmRowsRead.set(0);
      List<String> walked = new ArrayList<>();
      String token = null;
      int pages = 0;
      do {
        var page = get("/api/migrations?vm=" + vm + "&sort=" + sort + "&limit=20" + range
            + (token == null ? "" : "&cursor=" + token), true);
        assertThat(page.statusCode()).as(page.bodyAsString()).isEqualTo(200);
        page.bodyAsJsonArray().forEach(o -> walked.add(((JsonObject) o).getJsonObject("migration").getString("id")));
        token = page.getHeader("X-Next-Cursor");
        if (pages++ == 0) {
          assertThat(stores.vmRowsRead.get()).as(sort + ": rows read for the first page").isLessThanOrEqualTo(21);
        }
      } while (token != null);
      assertThat(walked).as(sort).isEqualTo(expected);
      assertThat(stores.vmRowsRead.get()).as(sort + ": rows read over every page").isLessThan(2 * 1000L);
    }
    // the filters still apply, and a narrow range in start order is read from its end
    stores.vmRowsRead.set(0);
    var narrow = get("/api/migrations?vm=" + vm + "&sort=-start&limit=5&underLoad=true&from="
        + T0.plusSeconds(60L * 100) + "&to=" + T0.plusSeconds(60L * 110), true);
    List<String> ids = new ArrayList<>();
    narrow.bodyAsJsonArray().forEach(o -> ids.add(((JsonObject) o).getJsonObject("migration").getString("id")));
    assertThat(ids).containsExactly("vc/m219", "vc/m216", "vc/m213", "vc/m210", "vc/m207");
    assertThat(stores.vmRowsRead.get()).as("rows read for a page of a narrow range").isLessThan(100);
  }

  @Test
  void migrationsAreFilteredSortedAndPagedWithACursor() throws Exception {
    var r = get("/api/migrations?profile=T4-16C&sort=-stun&limit=2", true);
    JsonArray page = r.bodyAsJsonArray();
    assertThat(page).hasSize(2);
    assertThat(page.getJsonObject(0).getJsonObject("migration").getString("id")).isEqualTo("vc/6");
    assertThat(page.getJsonObject(1).getJsonObject("migration").getString("id")).isEqualTo("vc/4");
    assertThat(r.getHeader("X-Total-Count")).isEqualTo("3");
    var next = get("/api/migrations?profile=T4-16C&sort=-stun&limit=2&cursor=" + r.getHeader("X-Next-Cursor"),
        true);
    assertThat(next.bodyAsJsonArray()).hasSize(1);
    assertThat(next.bodyAsJsonArray().getJsonObject(0).getJsonObject("migration").getString("id"))
        .isEqualTo("vc/2");
    assertThat(next.getHeader("X-Next-Cursor")).isNull();

    // a cursor is a place in its sort, not an offset: a row added before it does not shift the next page
    stores.migrations.add(0, new MigrationSummary(ApiServerTest.migration(8, "T4-16C", Initiator.USER,
        MigrationState.SUCCEEDED), true, new StunTime(99.0, StunTime.Source.VMWARE_LOG), 1024.0, 1.0));
    var after = get("/api/migrations?profile=T4-16C&sort=-stun&limit=2&cursor=" + r.getHeader("X-Next-Cursor"),
        true);
    assertThat(after.bodyAsJsonArray().getJsonObject(0).getJsonObject("migration").getString("id")).isEqualTo("vc/2");
    stores.migrations.remove(0);
    var otherSort = get("/api/migrations?profile=T4-16C&sort=start&limit=2&cursor=" + r.getHeader("X-Next-Cursor"),
        true);
    assertThat(otherSort.statusCode()).isEqualTo(400);
    assertThat(otherSort.bodyAsString()).contains("sort=-stun");
    // walking every page by start sees each migration once
    List<String> walked = new ArrayList<>();
    String token = null;
    do {
      var pageR = get("/api/migrations?sort=start&limit=3" + (token == null ? "" : "&cursor=" + token), true);
      pageR.bodyAsJsonArray().forEach(o -> walked.add(((JsonObject) o).getJsonObject("migration").getString("id")));
      token = pageR.getHeader("X-Next-Cursor");
    } while (token != null);
    assertThat(walked).containsExactly("vc/1", "vc/2", "vc/3", "vc/4", "vc/5", "vc/6", "vc/7");

    assertThat(get("/api/migrations?initiator=drs", true).bodyAsJsonArray()).hasSize(2);
    assertThat(get("/api/migrations?result=failed&count=true", true).getHeader("X-Total-Count")).isEqualTo("1");
    assertThat(get("/api/migrations?result=failed", true).bodyAsJsonArray()).hasSize(1);
    assertThat(get("/api/migrations?underLoad=true&host=esx02", true).bodyAsJsonArray()).hasSize(3);
    assertThat(get("/api/vms/train-3/migrations", true).bodyAsJsonArray()).hasSize(1);
  }

  @Test
  void csvIsQuotedAndNeverStartsAFormula() throws Exception {
    stores.migrations.add(new MigrationSummary(new Migration("vc/99", "vc", "vm-99", "=HYPERLINK(\"x\",\"y\")",
        null, null, MigrationState.SUCCEEDED, Initiator.USER, "admin", null, null, null, null, null, null, null,
        T0, T0.plusSeconds(5), null, T0), false, null, null, null));
    var r = get("/api/migrations?format=csv&vm=vm-99", true);
    assertThat(r.getHeader("Content-Type")).startsWith("text/csv");
    String[] lines = r.bodyAsString().split("\n");
    assertThat(lines[0]).startsWith("id,vm_id,vm_name");
    assertThat(lines[1]).contains("\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
  }

  @Test
  void aBadParameterIsA400NamingItAndAnUnknownIdA404() throws Exception {
    var r = get("/api/migrations?from=yesterday", true);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.bodyAsJsonObject().getString("parameter")).isEqualTo("from");
    assertThat(r.bodyAsJsonObject().getString("reason")).contains("ISO-8601");
    assertThat(get("/api/migrations?limit=51", true).bodyAsJsonObject().getString("parameter")).isEqualTo("limit");
    assertThat(get("/api/alerts?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z", true)
        .bodyAsJsonObject().getString("parameter")).isEqualTo("to");
    assertThat(get("/api/stun-time/stats?groupBy=color", true).statusCode()).isEqualTo(400);
    var missing = get("/api/migrations/vc%2F12345", true);
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(get("/api/nothing-here", true).statusCode()).isEqualTo(404);
  }

  @Test
  void aMigrationWithoutAnImpactYetIsAnsweredWithItsSummaryNotA404() throws Exception {
    String id = stores.migrations.get(2).migration().id();
    var r = get("/api/migrations/" + URLEncoder.encode(id, StandardCharsets.UTF_8), true);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.bodyAsJsonObject().getJsonObject("migration").getString("id")).isEqualTo(id);
    assertThat(r.bodyAsJsonObject().getJsonObject("stun").getDouble("seconds")).isEqualTo(6.0);
  }

  @Test
  void storesNotReadyGive503WithRetryAfter() throws Exception {
    stores.ready = false;
    var r = get("/api/migrations", true);
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.getHeader("Retry-After")).isEqualTo("5");
    assertThat(get("/ready", false).statusCode()).isEqualTo(503);
    assertThat(get("/health", false).statusCode()).isEqualTo(200);
  }

  @Test
  void annotationsAndUtilizationAreFlatArraysGrafanaInfinityReads() throws Exception {
    JsonArray a = get("/api/grafana/annotations?from=" + T0.toEpochMilli() + "&to="
        + T0.plusSeconds(3600).toEpochMilli(), true).bodyAsJsonArray();
    assertThat(a).hasSize(7);
    JsonObject first = a.getJsonObject(0);
    assertThat(first.getLong("time")).isEqualTo(T0.plusSeconds(60).toEpochMilli());
    assertThat(first.getLong("timeEnd")).isEqualTo(T0.plusSeconds(91).toEpochMilli());
    assertThat(first.getJsonArray("tags").getList()).contains("vmotion");
    assertThat(first.fieldNames()).containsExactlyInAnyOrder("time", "timeEnd", "title", "text", "tags",
        "tagsJoined", "migrationId", "vmId");
    assertThat(first.getString("tagsJoined")).isEqualTo(String.join(",", first.getJsonArray("tags").getList()));
    assertThat(first.getString("title")).startsWith("vMotion ");
    JsonArray u = get("/api/utilization?groupBy=host&from=" + T0 + "&to=" + T0.plusSeconds(86400), true)
        .bodyAsJsonArray();
    assertThat(u).hasSize(2);
    assertThat(u.getJsonObject(0).getString("host")).isEqualTo("esx01");
    assertThat(u.getJsonObject(0).getDouble("busyGpuHours")).as("vm-a once, in its guest's view").isEqualTo(2.0);
    assertThat(u.getJsonObject(0).getDouble("idleGpuHours")).isEqualTo(3.0);
    assertThat(u.getJsonObject(0).getDouble("busyPct")).isEqualTo(40.0);
    assertThat(u.getJsonObject(0).getJsonArray("sources").getList()).containsExactly("GUEST");
    assertThat(u.getJsonObject(1).getJsonArray("sources").getList()).containsExactly("HOST");
    assertThat(u.getJsonObject(1).getDouble("busyPct")).isEqualTo(50.0);
  }

  @Test
  void aVmsLoadIsItsGuestsViewWhenItHasOneWithTheHostsBesideItElseTheHosts() throws Exception {
    String vm = "42000000-0000-4000-8000-000000000011";
    GpuSample guest = new GpuSample(vm, "trainer", T0, 0, "GPU-1", "GRID T4-16C", null, 92.0, 30.0, 15000L, 16384L,
        null, null, null, null, null);
    GpuSample host = new GpuSample(vm, "esx01", T0, 27, "vgpu:1", "GRID T4-16C", "00000000:3B:00.0", 60.0, 20.0,
        14000L, 16384L, null, null, null, null, null, LoadSource.HOST, null);
    stores.loads.put(LoadKeys.of(vm, LoadSource.HOST), new CurrentLoad(vm, Map.of("vgpu:1", host), "esx01",
        "train-11", true));
    JsonObject hostOnly = get("/api/vms/" + vm + "/load", true).bodyAsJsonObject();
    assertThat(hostOnly.getString("source")).isEqualTo("HOST");
    assertThat(hostOnly.getLong("fbUsedMiB")).isEqualTo(14000L);
    assertThat(stores.windowsAsked).containsExactly(LoadKeys.of(vm, LoadSource.HOST));

    stores.loads.put(vm, new CurrentLoad(vm, Map.of("GPU-1", guest), "esx01", "train-11", true));
    JsonObject both = get("/api/vms/" + vm + "/load", true).bodyAsJsonObject();
    assertThat(both.getString("source")).isEqualTo("GUEST");
    assertThat(both.getLong("fbUsedMiB")).isEqualTo(15000L);
    JsonArray views = both.getJsonArray("views");
    assertThat(views).hasSize(2);
    assertThat(views.getJsonObject(0).getString("source")).isEqualTo("GUEST");
    assertThat(views.getJsonObject(0).getDouble("gpuUtilizationAvgPct")).isEqualTo(92.0);
    assertThat(views.getJsonObject(1).getString("source")).isEqualTo("HOST");
    assertThat(views.getJsonObject(1).getDouble("gpuUtilizationAvgPct")).isEqualTo(60.0);
    assertThat(stores.windowsAsked).last().isEqualTo(vm);
    // from when the VM keeps windows of the size asked: process.window-retention (6 h) behind its newest window
    assertThat(both.getString("window")).isEqualTo("1m");
    assertThat(both.getString("windowsKeptFrom")).isEqualTo(T0.truncatedTo(ChronoUnit.MINUTES)
        .minus(Duration.ofHours(6)).toString());
    assertThat(get("/api/vms/" + vm + "/load?window=1h", true).bodyAsJsonObject().getString("windowsKeptFrom"))
        .isEqualTo(T0.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofDays(8)).toString());
  }

  static final String BUSY = "42000000-0000-4000-8000-0000000000a1";
  static final String IDLE = "42000000-0000-4000-8000-0000000000b2";
  static final String DARK = "42000000-0000-4000-8000-0000000000c3";

  /**
   * A site for the plans: esx01 (25 GbE, vCenter 7.0.3) runs a training VM at 95 % with 16,000 MiB of framebuffer, an
   * idle one, and one without readings; the T4-16C model has thirty stuns on the site's line, 3 s + 1.8 s/GiB.
   */
  private void planningSite() {
    stores.hosts.add(new HostInventoryEntry("vc", "host-1", "esx01", null, List.of(), 25_000L, T0, "7.0.3",
        "7.0.3"));
    stores.hosts.add(new HostInventoryEntry("vc", "host-2", "esx02", null, List.of(), 10_000L, T0, "7.0.3",
        "7.0.3"));
    VgpuProfile t4 = VgpuProfile.parse("grid_t4-16c").orElseThrow();
    EntityRef esx01 = new EntityRef("HostSystem", "host-1", "esx01");
    for (String[] v : new String[][] {{BUSY, "train-a"}, {IDLE, "idle-b"}, {DARK, "dark-c"}}) {
      stores.vms.add(new VmInventoryEntry("vc", "vm-" + v[1], v[1], v[0], null, esx01, null, "dc", null, 65536L,
          List.of("grid_t4-16c"), t4, T0));
    }
    Instant now = CLOCK.instant();
    GpuSample busy = new GpuSample(BUSY, "train-a", now.minusSeconds(5), 0, "GPU-1", "GRID T4-16C", null, 95.0,
        40.0, 16000L, 16384L, null, null, null, null, t4);
    GpuSample idle = new GpuSample(IDLE, "idle-b", now.minusSeconds(5), 0, "GPU-1", "GRID T4-16C", null, 2.0, 1.0,
        1000L, 16384L, null, null, null, null, t4);
    stores.loads.put(BUSY, new CurrentLoad(BUSY, Map.of("GPU-1", busy), "esx01", "train-a", true));
    stores.loads.put(IDLE, new CurrentLoad(IDLE, Map.of("GPU-1", idle), "esx01", "idle-b", true));
    Instant w = now.minusSeconds(20);
    stores.windows.put(BUSY + "@10s", List.of(new LoadWindow(w, w.plusSeconds(10), LoadAggregate.empty().with(busy))));
    stores.windows.put(IDLE + "@10s", List.of(new LoadWindow(w, w.plusSeconds(10), LoadAggregate.empty().with(idle))));
    // a week of the training VM by hour: quiet from 00:00 to 08:00 UTC, busy the rest of the day
    List<LoadWindow> hours = new ArrayList<>();
    Instant day = now.truncatedTo(ChronoUnit.DAYS);
    for (int d = 1; d <= 7; d++) {
      for (int h = 0; h < 24; h++) {
        Instant start = day.minus(Duration.ofDays(d)).plus(Duration.ofHours(h));
        GpuSample s = new GpuSample(BUSY, "train-a", start, 0, "GPU-1", "GRID T4-16C", null, h < 8 ? 10.0 : 90.0,
            null, 16000L, 16384L, null, null, null, null, t4);
        hours.add(new LoadWindow(start, start.plus(Duration.ofHours(1)), LoadAggregate.empty().with(s)));
      }
    }
    stores.windows.put(BUSY + "@1h", hours);
    List<StunModelEntry.Observation> stuns = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      double gib = 2 + (i % 10) * 1.3;
      stuns.add(new StunModelEntry.Observation("vc/" + i, 3 + 1.8 * gib, gib, StunTime.Source.VMWARE_LOG,
          T0.minus(Duration.ofDays(1)).plusSeconds(600L * i), "esx01->esx02", 25_000L));
    }
    stores.model.add(new StunModelEntry(StunModelEntry.Group.PROFILE, "T4-16C", 30, null, null, null, null, null,
        stuns, T0));
    stores.model.add(new StunModelEntry(StunModelEntry.Group.SITE, StunModelEntry.SITE_KEY, 30, null, null, null,
        null, null, stuns, T0));
  }

  @Test
  void anEvacuationMovesIdleVmsFirstAndDefersABusyOneWhoseStunWouldBeTooLong() throws Exception {
    planningSite();
    JsonObject plan = get("/api/hosts/esx01/evacuation", true).bodyAsJsonObject();
    assertThat(plan.getLong("maxStunSeconds")).isEqualTo(30L);
    JsonArray vms = plan.getJsonArray("vms");
    assertThat(vms.stream().map(o -> ((JsonObject) o).getString("vmName"))).containsExactly("idle-b", "dark-c",
        "train-a");
    assertThat(vms.stream().map(o -> ((JsonObject) o).getString("action"))).containsExactly("MOVE", "MOVE_LAST",
        "DEFER");
    JsonObject idle = vms.getJsonObject(0);
    assertThat(idle.getInteger("order")).isEqualTo(1);
    assertThat(idle.getBoolean("underLoad")).isFalse();
    assertThat(idle.getJsonObject("forecast").getDouble("p50Seconds")).isCloseTo(3 + 1.8 * 1000 / 1024.0,
        within(0.01));
    JsonObject dark = vms.getJsonObject(1);
    assertThat(dark.getValue("underLoad")).as("no readings: unknown, not idle").isNull();
    assertThat(dark.getValue("forecast")).isNull();
    assertThat(dark.getString("reason")).contains("unknown");
    JsonObject busy = vms.getJsonObject(2);
    assertThat(busy.getDouble("gpuUtilizationPct")).isEqualTo(95.0);
    assertThat(busy.getJsonObject("forecast").getString("basis")).isEqualTo("SITE_LINEAR_FIT");
    assertThat(busy.getJsonObject("forecast").getDouble("p95Seconds")).isCloseTo(3 + 1.8 * 16000 / 1024.0,
        within(0.01));
    assertThat(busy.getString("reason")).contains("GPU_UTILIZATION", "over the 30 s limit");
    assertThat(busy.getJsonObject("duration").getString("basis")).as("memory at 25 Gbit/s, plus the stun")
        .isEqualTo("MEMORY_OVER_LINK");
    assertThat(busy.getJsonObject("duration").getDouble("p50Seconds")).isCloseTo(65536 * 8.388608 / 25_000
        + 3 + 1.8 * 16000 / 1024.0, within(0.01));
    JsonObject totals = plan.getJsonObject("totals");
    assertThat(totals.getInteger("vms")).isEqualTo(3);
    assertThat(totals.getInteger("deferred")).isEqualTo(1);
    assertThat(totals.getInteger("unknownStun")).isEqualTo(1);
    assertThat(totals.getDouble("stunP50Seconds")).isCloseTo(6 + 1.8 * 17000 / 1024.0, within(0.01));
    assertThat(get("/api/hosts/esx09/evacuation", true).statusCode()).isEqualTo(404);

    // a host whose VMs all went quiet: every figure unknown, and their sums unknown too, not 0 s
    stores.loads.clear();
    JsonObject quiet = get("/api/hosts/esx01/evacuation", true).bodyAsJsonObject().getJsonObject("totals");
    assertThat(quiet.getInteger("unknownStun")).isEqualTo(3);
    assertThat(quiet.getValue("stunP50Seconds")).isNull();
    assertThat(quiet.getValue("stunP95Seconds")).isNull();
  }

  @Test
  void onASiteWhoseReadingsLagAnEvacuationSaysHowOldTheNewestReadingIsNotJustUnknown() throws Exception {
    planningSite();
    // the dark VM's newest reading is four minutes old: a site catching up on a backlog, or a stopped collector
    VgpuProfile t4 = VgpuProfile.parse("grid_t4-16c").orElseThrow();
    GpuSample old = new GpuSample(DARK, "dark-c", CLOCK.instant().minusSeconds(240), 0, "GPU-1", "GRID T4-16C", null,
        97.0, 50.0, 15000L, 16384L, null, null, null, null, t4);
    stores.loads.put(DARK, new CurrentLoad(DARK, Map.of("GPU-1", old), "esx01", "dark-c", true));
    JsonArray vms = get("/api/hosts/esx01/evacuation", true).bodyAsJsonObject().getJsonArray("vms");
    JsonObject dark = vms.stream().map(o -> (JsonObject) o).filter(o -> "dark-c".equals(o.getString("vmName")))
        .findFirst().orElseThrow();
    assertThat(dark.getString("action")).isEqualTo("MOVE_LAST");
    assertThat(dark.getValue("underLoad")).as("a load four minutes old is not the load now").isNull();
    assertThat(dark.getValue("gpuUtilizationPct")).isNull();
    assertThat(dark.getString("reason")).contains("newest GPU reading is 4 min old", "unknown");
    assertThat(dark.getString("newestReadingAt")).isEqualTo(CLOCK.instant().minusSeconds(240).toString());

    JsonObject check = get("/api/vms/" + DARK + "/migrate-check", true).bodyAsJsonObject();
    assertThat(check.getJsonArray("reasons").getJsonObject(0).getString("code")).isEqualTo("LOAD_UNKNOWN");
    assertThat(check.getJsonArray("reasons").getJsonObject(0).getString("detail"))
        .contains("newest GPU reading is 4 min old");
  }

  @Test
  void aMigrateCheckSaysNoWithItsReasonsAndTheNextQuieterHour() throws Exception {
    planningSite();
    JsonObject busy = get("/api/vms/" + BUSY + "/migrate-check", true).bodyAsJsonObject();
    assertThat(busy.getBoolean("safe")).isFalse();
    assertThat(busy.getJsonArray("reasons").stream().map(o -> ((JsonObject) o).getString("code")))
        .containsExactly("UNDER_LOAD", "STUN_OVER_LIMIT");
    JsonObject quieter = busy.getJsonObject("nextQuieterWindow");
    assertThat(Instant.parse(quieter.getString("start"))).as("08:03 now: busy until midnight, quiet after")
        .isEqualTo(CLOCK.instant().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1)));
    assertThat(quieter.getDouble("expectedGpuUtilizationPct")).isEqualTo(10.0);
    assertThat(quieter.getInteger("days")).as("the seventh midnight back is more than 7 days ago").isEqualTo(6);
    assertThat(busy.getJsonArray("byHourOfDay")).hasSize(24);
    assertThat(busy.getJsonObject("inputs").getLong("linkMbps")).isEqualTo(25_000L);

    JsonObject idle = get("/api/vms/" + IDLE + "/migrate-check?to=esx02", true).bodyAsJsonObject();
    assertThat(idle.getBoolean("safe")).isTrue();
    assertThat(idle.getJsonArray("reasons")).isEmpty();
    assertThat(idle.getJsonObject("inputs").getString("hostPair")).isEqualTo("esx01->esx02");
    assertThat(idle.getJsonObject("inputs").getLong("linkMbps")).as("the slower of the two").isEqualTo(10_000L);
    assertThat(idle.getValue("nextQuieterWindow")).as("no hourly history of it").isNull();

    JsonObject dark = get("/api/vms/" + DARK + "/migrate-check", true).bodyAsJsonObject();
    assertThat(dark.getBoolean("safe")).isFalse();
    assertThat(dark.getJsonArray("reasons").getJsonObject(0).getString("code")).isEqualTo("LOAD_UNKNOWN");
    assertThat(get("/api/vms/" + IDLE + "/migrate-check?to=esx09", true).statusCode()).isEqualTo(400);
    assertThat(get("/api/vms/42000000-0000-4000-8000-0000000000ff/migrate-check", true).statusCode())
        .isEqualTo(404);
  }

  @Test
  void aVmWhoseStunCouldPassTheSwitchoverLimitWouldFailInTheCheckAndInThePlan() throws Exception {
    planningSite();
    // an idle A100 with 78 GiB of framebuffer: on the site's line (3 s + 1.8 s/GiB) its stun passes 100 s
    String huge = "42000000-0000-4000-8000-0000000000e5";
    VgpuProfile a100 = VgpuProfile.parse("grid_a100-80c").orElseThrow();
    stores.vms.add(new VmInventoryEntry("vc", "vm-huge-e", "huge-e", huge, null,
        new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, 131072L, List.of("grid_a100-80c"), a100,
        T0));
    GpuSample quiet = new GpuSample(huge, "huge-e", CLOCK.instant().minusSeconds(5), 0, "GPU-1", "GRID A100-80C",
        null, 1.0, 1.0, 80_000L, 81_920L, null, null, null, null, a100);
    stores.loads.put(huge, new CurrentLoad(huge, Map.of("GPU-1", quiet), "esx01", "huge-e", true));
    Instant w = CLOCK.instant().minusSeconds(20);
    stores.windows.put(huge + "@10s", List.of(new LoadWindow(w, w.plusSeconds(10), LoadAggregate.empty().with(quiet))));

    JsonObject check = get("/api/vms/" + huge + "/migrate-check", true).bodyAsJsonObject();
    assertThat(check.getBoolean("safe")).isFalse();
    assertThat(check.getBoolean("wouldFail")).isTrue();
    assertThat(check.getLong("switchoverLimitSeconds")).isEqualTo(100L);
    assertThat(check.getJsonObject("forecast").getDouble("p95Seconds")).isGreaterThan(100.0);
    JsonObject why = check.getJsonArray("reasons").stream().map(o -> (JsonObject) o)
        .filter(o -> "WOULD_FAIL".equals(o.getString("code"))).findFirst().orElseThrow();
    assertThat(why.getString("detail")).contains("over the switchover limit of 100 s");
    assertThat(get("/api/vms/" + IDLE + "/migrate-check", true).bodyAsJsonObject().getBoolean("wouldFail"))
        .as("a small framebuffer's stun stays far under it").isFalse();

    JsonObject plan = get("/api/hosts/esx01/evacuation", true).bodyAsJsonObject();
    assertThat(plan.getLong("switchoverLimitSeconds")).isEqualTo(100L);
    JsonObject row = plan.getJsonArray("vms").stream().map(o -> (JsonObject) o)
        .filter(o -> "huge-e".equals(o.getString("vmName"))).findFirst().orElseThrow();
    assertThat(row.getString("action")).as("idle, and still it would fail").isEqualTo("WOULD_FAIL");
    assertThat(row.getString("reason")).contains("would fail", "switchover limit of 100 s");
    assertThat(plan.getJsonObject("totals").getLong("wouldFail")).isEqualTo(1L);
  }

  @Test
  void failedMigrationsAreFilteredAndCountedByTheirCauseAndByUnderLoad() throws Exception {
    for (int i = 8; i <= 9; i++) {
      stores.migrations.add(new MigrationSummary(ApiServerTest.migration(i, "T4-16C", Initiator.USER,
          MigrationState.FAILED), i == 8, new StunTime(null, StunTime.Source.UNKNOWN), 15_000.0, null, null,
          i == 8 ? FailureCause.SWITCHOVER_TIME_EXCEEDED : null));
    }
    JsonArray switchover = get("/api/migrations?failureCause=switchover_time_exceeded", true).bodyAsJsonArray();
    assertThat(switchover.stream().map(o -> ((JsonObject) o).getJsonObject("migration").getString("id")))
        .containsExactly("vc/8");
    assertThat(get("/api/migrations?failureCause=gremlins", true).bodyAsJsonObject().getString("parameter"))
        .isEqualTo("failureCause");

    String range = "&from=" + T0.minusSeconds(3600) + "&to=" + T0.plus(Duration.ofDays(1));
    JsonArray byProfile = get("/api/stun-time/stats?groupBy=profile" + range, true).bodyAsJsonArray();
    JsonObject t4 = byProfile.stream().map(o -> (JsonObject) o).filter(o -> "T4-16C".equals(o.getString("group")))
        .findFirst().orElseThrow();
    assertThat(t4.getJsonObject("failures").getLong("count")).isEqualTo(2L);
    assertThat(t4.getJsonObject("failures").getLong("underLoad")).isEqualTo(1L);
    assertThat(t4.getJsonObject("failures").getJsonObject("byCause").getMap())
        .as("the one not settled yet has no cause yet").containsExactly(Map.entry("SWITCHOVER_TIME_EXCEEDED", 1));
    assertThat(t4.getLong("count")).as("no stun in the model: its failures list it all the same").isZero();
    JsonObject site = get("/api/stun-time/stats?groupBy=site" + range, true).bodyAsJsonArray().getJsonObject(0);
    assertThat(site.getString("group")).isEqualTo("all");
    assertThat(site.getJsonObject("failures").getLong("count")).as("vc/5, vc/8 and vc/9").isEqualTo(3L);
  }

  @Test
  void aSecondVcenterWithTheSameHostNamesGivesItsVmsItsOwnLinksAndVersion() throws Exception {
    planningSite();
    // vc2 was added first: a lookup by name alone would find its hosts for vc's VMs
    stores.hosts.add(0, new HostInventoryEntry("vc2", "host-1", "esx01", null, List.of(), 1_000L, T0, "6.7.0",
        "6.7.0"));
    stores.hosts.add(1, new HostInventoryEntry("vc2", "host-7", "esx02", null, List.of(), 1_000L, T0, "6.7.0",
        "6.7.0"));
    String other = "42000000-0000-4000-8000-0000000000d4";
    stores.vms.add(new VmInventoryEntry("vc2", "vm-other", "other-d", other, null,
        new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, 65536L, List.of("grid_t4-16c"),
        VgpuProfile.parse("grid_t4-16c").orElseThrow(), T0));
    JsonObject mine = get("/api/vms/" + IDLE + "/migrate-check?to=esx02", true).bodyAsJsonObject()
        .getJsonObject("inputs");
    assertThat(mine.getLong("linkMbps")).isEqualTo(10_000L);
    assertThat(mine.getString("vcenterVersion")).isEqualTo("7.0.3");
    JsonObject theirs = get("/api/vms/" + other + "/migrate-check?to=esx02", true).bodyAsJsonObject()
        .getJsonObject("inputs");
    assertThat(theirs.getString("hostPair")).isEqualTo("esx01->esx02");
    assertThat(theirs.getLong("linkMbps")).isEqualTo(1_000L);
    assertThat(theirs.getString("vcenterVersion")).isEqualTo("6.7.0");
  }

  @Test
  void theForecastSaysWhatItRestsOnWithVmwaresFigureBesideItAndTheBacktestScoresIt() throws Exception {
    planningSite();
    JsonObject f = get("/api/stun-time/forecast?vm=" + BUSY + "&to=esx02", true).bodyAsJsonObject();
    assertThat(f.getJsonObject("inputs").getString("hostPair")).isEqualTo("esx01->esx02");
    assertThat(f.getJsonObject("inputs").getString("vcenterVersion")).isEqualTo("7.0.3");
    JsonObject forecast = f.getJsonObject("forecast");
    assertThat(forecast.getString("basis")).isEqualTo("SITE_LINEAR_FIT");
    assertThat(forecast.getString("group")).isEqualTo("profile:T4-16C");
    assertThat(forecast.getDouble("interceptSeconds")).isCloseTo(3.0, within(0.001));
    assertThat(forecast.getJsonObject("reference").getDouble("secondsPerGiB")).isEqualTo(2.0);
    assertThat(forecast.getJsonObject("reference").getString("vsphereVersion")).isEqualTo("7.0.3");

    JsonObject accuracy = get("/api/stun-time/accuracy", true).bodyAsJsonObject();
    assertThat(accuracy.getString("vcenterVersion")).isEqualTo("7.0.3");
    assertThat(accuracy.getJsonObject("overall").getLong("count")).isEqualTo(30L);
    assertThat(accuracy.getJsonObject("overallAfterWarmup").getLong("count")).as("the last ten").isEqualTo(10L);
    JsonObject t4 = accuracy.getJsonArray("profiles").getJsonObject(0);
    assertThat(t4.getString("profile")).isEqualTo("T4-16C");
    // the stuns lie on the site's line: after warm-up the forecasts are exact, VMware's slope is not
    JsonObject warm = t4.getJsonObject("afterWarmup");
    assertThat(warm.getDouble("medianAbsPctError")).isEqualTo(0.0);
    assertThat(warm.getDouble("p90AbsPctError")).isEqualTo(0.0);
    assertThat(warm.getDouble("referenceMedianAbsPctError")).isGreaterThan(5.0);
  }

  @Test
  void hostGpusGiveEachGpuOnceWithItsNewestSchedulerPolicyAndAnUnknownHostIsNotFound() throws Exception {
    JsonArray all = get("/api/hosts/gpus", true).bodyAsJsonArray();
    assertThat(all).hasSize(3);
    assertThat(all.getJsonObject(0).getString("host")).isEqualTo("esx01");
    assertThat(all.getJsonObject(0).getString("schedulerPolicy")).isEqualTo("Fixed Share");
    JsonArray esx01 = get("/api/hosts/esx01/gpus", true).bodyAsJsonArray();
    assertThat(esx01).hasSize(2);
    assertThat(esx01.getJsonObject(1).getValue("schedulerPolicy")).as("not printed: unknown").isNull();
    assertThat(get("/api/hosts/esx09/gpus", true).statusCode()).isEqualTo(404);
  }

  @Test
  void anAnnotationRangeShowsAMigrationThatStartedBeforeItAndEndedInIt() throws Exception {
    // the first migration runs from T0+60 s to T0+91 s
    JsonArray a = get("/api/grafana/annotations?from=" + T0.plusSeconds(80).toEpochMilli() + "&to="
        + T0.plusSeconds(3600).toEpochMilli(), true).bodyAsJsonArray();
    assertThat(a.getJsonObject(0).getLong("time")).isEqualTo(T0.plusSeconds(60).toEpochMilli());
    JsonArray after = get("/api/grafana/annotations?from=" + T0.plusSeconds(92).toEpochMilli() + "&to="
        + T0.plusSeconds(3600).toEpochMilli(), true).bodyAsJsonArray();
    assertThat(after).hasSize(a.size() - 1);
  }

  @Test
  void defaultTimeRangesEndAtTheServersClockNotAtTheMachinesTime() throws Exception {
    JsonArray a = get("/api/grafana/annotations", true).bodyAsJsonArray(); // the last 24 h before T0 + 200 s
    assertThat(a.stream().map(o -> ((JsonObject) o).getLong("time")).toList()).containsExactly(
        T0.plusSeconds(60).toEpochMilli(), T0.plusSeconds(120).toEpochMilli(), T0.plusSeconds(180).toEpochMilli());
  }

  @Test
  void aCursorAtTheEndOfIntAndInstantsBeyondWhatMillisecondsHoldAre400sNamingTheParameter() throws Exception {
    String offsetCursor = Base64.getUrlEncoder().withoutPadding().encodeToString(("o:" + Integer.MAX_VALUE)
        .getBytes(StandardCharsets.UTF_8));
    var cursor = get("/api/migrations?limit=50&cursor=" + offsetCursor, true);
    assertThat(cursor.statusCode()).as(cursor.bodyAsString()).isEqualTo(400);
    assertThat(cursor.bodyAsJsonObject().getString("parameter")).isEqualTo("cursor");
    String far = URLEncoder.encode("+1000000000-01-01T00:00:00Z", StandardCharsets.UTF_8);
    for (String route : List.of("/api/migrations", "/api/alerts", "/api/grafana/annotations", "/api/utilization")) {
      var r = get(route + "?from=" + far + "&to=" + far, true);
      assertThat(r.statusCode()).as(route + ": " + r.bodyAsString()).isEqualTo(400);
      assertThat(r.bodyAsJsonObject().getString("parameter")).as(route).isEqualTo("from");
    }
  }

  @Test
  void theInternalRoutesTakeTheInstancesCredentialOnlyAndThePublicOnesRefuseIt() throws Exception {
    String internal = ApiConfig.derivedInternalToken(TOKEN);
    assertThat(internal).isNotEqualTo(TOKEN).hasSizeGreaterThanOrEqualTo(32);
    var asUser = client.request(HttpMethod.GET, port, "127.0.0.1", "/internal/migrations")
        .bearerTokenAuthentication(TOKEN).send().await(10, TimeUnit.SECONDS);
    assertThat(asUser.statusCode()).as("a user's token on an internal route").isEqualTo(401);
    var asInstance = client.request(HttpMethod.GET, port, "127.0.0.1", "/api/migrations")
        .bearerTokenAuthentication(internal).send().await(10, TimeUnit.SECONDS);
    assertThat(asInstance.statusCode()).as("the instances' credential on a public route").isEqualTo(401);
    var inside = client.request(HttpMethod.GET, port, "127.0.0.1", "/internal/migrations")
        .bearerTokenAuthentication(internal).send().await(10, TimeUnit.SECONDS);
    assertThat(inside.statusCode()).as("past authentication (this single instance has no internal routes)")
        .isEqualTo(404);
  }

  @Test
  void aMigrationsListAsksForNoMoreThanTheConfiguredRange() throws Exception {
    var r = get("/api/migrations?from=2020-01-01T00:00:00Z&to=2026-11-21T00:00:00Z", true);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.bodyAsJsonObject().getString("parameter")).isEqualTo("to");
    assertThat(r.bodyAsString()).contains("92 days");
  }

  @Test
  void aListThatTheDefaultRangeLeftEmptySaysSoAndWhenTheNewestMigrationBeforeItStarted() throws Exception {
    // a support bundle from 2019: the default range (the last 92 days) holds none of it
    stores.migrations.clear();
    for (int i = 1; i <= 3; i++) {
      Migration m = migration(i, "T4-16C", Initiator.USER, MigrationState.SUCCEEDED);
      Duration back = Duration.between(Instant.parse("2019-06-03T10:00:00Z"), T0);
      stores.migrations.add(new MigrationSummary(m.withTimes(m.startTime().minus(back), m.endTime().minus(back),
          m.updatedAt().minus(back)), false, new StunTime(2.0, StunTime.Source.VMWARE_LOG), 1024.0, null));
    }
    for (String list : List.of("/api/migrations", "/api/migrations?sort=-stun", "/api/migrations?vm=train-2",
        "/api/migrations?vm=" + stores.migrations.get(1).migration().vmId())) {
      var r = get(list, true);
      assertThat(r.bodyAsJsonArray()).as(list).isEmpty();
      assertThat(r.getHeader("X-Range")).as(list).isEqualTo(CLOCK.instant().plus(Duration.ofDays(1))
          .minus(Duration.ofDays(92)) + "/" + CLOCK.instant().plus(Duration.ofDays(1)));
      assertThat(r.getHeader("X-Newest-Before-Range")).as(list)
          .isEqualTo(list.contains("vm=") ? "2019-06-03T10:02:00Z" : "2019-06-03T10:03:00Z");
    }
    var given = get("/api/migrations?from=2026-11-01T00:00:00Z", true);
    assertThat(given.bodyAsJsonArray()).isEmpty();
    assertThat(given.getHeader("X-Newest-Before-Range")).as("a range the user gave is theirs").isNull();
    var found = get("/api/migrations?from=2019-06-01T00:00:00Z&to=2019-07-01T00:00:00Z", true);
    assertThat(found.bodyAsJsonArray()).hasSize(3);
  }

  @Test
  void everyAnswerTellsBrowsersNotToGuessItsType() throws Exception {
    for (var r : List.of(get("/api/migrations", true), get("/api/migrations", false), get("/nowhere", true),
        get("/health", false), get("/api/migrations?format=csv", true))) {
      assertThat(r.getHeader("X-Content-Type-Options")).as(r.statusCode() + " " + r.bodyAsString())
          .isEqualTo("nosniff");
    }
  }

  @Test
  void aCsvCellStartingWithATabOrCarriageReturnIsNotAFormulaEither() {
    assertThat(MigrationsEndpoint.cell("\t=cmd|' /C calc'!A0")).startsWith("'\t");
    assertThat(MigrationsEndpoint.cell("\r=1+1")).isEqualTo("\"'\r=1+1\"");
    assertThat(MigrationsEndpoint.cell(-3.5)).isEqualTo("-3.5");
  }

  @Test
  void theGuardSaysWhenItIsOffAndListsTheProtectedVmsNewestFirstWhenOn() throws Exception {
    JsonObject off = get("/api/guard", true).bodyAsJsonObject();
    assertThat(off.getBoolean("enabled")).isFalse();
    assertThat(off.getJsonArray("protectedVms")).isEmpty();

    GuardDecision protect = new GuardDecision("vm-a", GuardDecision.Action.PROTECT,
        List.of(MigrationAlert.Reason.GPU_UTILIZATION),
        new MigrationAlert.Load(95.0, 60L, 12288L, 75.0, null, LoadSource.GUEST),
        new StunForecast(24.0, 36.0, 2.0, 12.0, 0, StunForecast.Basis.VMWARE_REFERENCE), 30.0, T0, T0);
    stores.guarded.add(new GuardState("vm-a", T0, T0.plusSeconds(50), T0, T0.plusSeconds(50), protect));
    stores.guarded.add(new GuardState("vm-b", T0.plusSeconds(30), T0.plusSeconds(60), T0.plusSeconds(30),
        T0.plusSeconds(60), protect));
    ApiConfig config = new ApiConfig("127.0.0.1", 0, "127.0.0.1", TOKEN, true, 50, Duration.ofDays(92), null, null);
    int guarded = new ApiServer(vertx, config, stores, () -> true,
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), null, Duration.ofMinutes(30), CLOCK,
        ProcessorConfig.defaults().withGuard(GuardConfig.OFF.withEnabled(true))).start()
        .await(10, TimeUnit.SECONDS).actualPort();
    var r = client.request(HttpMethod.GET, guarded, "127.0.0.1", "/api/guard").bearerTokenAuthentication(TOKEN)
        .send().await(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject on = r.bodyAsJsonObject();
    assertThat(on.getBoolean("enabled")).isTrue();
    assertThat(on.getDouble("maxStunSeconds")).isEqualTo(30.0);
    assertThat(on.getJsonArray("protectedVms").stream().map(o -> ((JsonObject) o).getString("vmId")))
        .containsExactly("vm-b", "vm-a");
    assertThat(on.getJsonArray("protectedVms").getJsonObject(1).getJsonObject("decision")
        .getJsonObject("forecast").getDouble("p95Seconds")).isEqualTo(36.0);
    assertThat(on.getJsonArray("actions")).as("no collector has acted yet").isEmpty();

    // the audit trails of two VMs, as two instances hold them: one list, newest first
    EntityRef cluster = new EntityRef("ClusterComputeResource", "domain-c7", "gpu");
    GuardAction applied = new GuardAction("vm-a", "vc", "vm-1", "train-a", cluster, GuardAction.Kind.PROTECT,
        GuardAction.Result.APPLIED, DrsOverride.MANUAL, null, protect, "DRS set to manual", T0.plusSeconds(5));
    GuardAction released = new GuardAction("vm-a", "vc", "vm-1", "train-a", cluster, GuardAction.Kind.RELEASE,
        GuardAction.Result.APPLIED, null, DrsOverride.MANUAL, null, "released", T0.plusSeconds(700));
    GuardAction refused = new GuardAction("vm-b", "vc", "vm-2", "train-b", cluster, GuardAction.Kind.PROTECT,
        GuardAction.Result.REFUSED, null, null, protect, "no permission Host.Inventory.EditCluster",
        T0.plusSeconds(40));
    stores.trails.add(new GuardTrail("vm-b", List.of(refused)));
    stores.trails.add(new GuardTrail("vm-a", List.of(applied, released)));
    JsonObject trail = client.request(HttpMethod.GET, guarded, "127.0.0.1", "/api/guard")
        .bearerTokenAuthentication(TOKEN).send().await(10, TimeUnit.SECONDS).bodyAsJsonObject();
    assertThat(trail.getJsonArray("actions").stream().map(o -> ((JsonObject) o).getString("at")))
        .containsExactly(T0.plusSeconds(700).toString(), T0.plusSeconds(40).toString(), T0.plusSeconds(5).toString());
    assertThat(trail.getJsonArray("actions").getJsonObject(1).getString("result")).isEqualTo("REFUSED");
    assertThat(trail.getJsonArray("actions").getJsonObject(1).getString("why")).contains("Host.Inventory.EditCluster");

    stores.ready = false; // rebalancing: unavailable, not an empty guard
    assertThat(client.request(HttpMethod.GET, guarded, "127.0.0.1", "/api/guard").bearerTokenAuthentication(TOKEN)
        .send().await(10, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
  }

  @Test
  void malformedValuesOfEveryParameterOfEveryRouteGiveNever500AndNoSlowRequest() throws Exception {
    // every parameter of every route of the OpenAPI document, path parameters included
    Map<String, String> routes = new TreeMap<>();
    JsonObject openapi;
    try (var in = ApiServer.class.getResourceAsStream("/io/stunwatch/api/openapi.json")) {
      openapi = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
    for (String path : openapi.getJsonObject("paths").fieldNames()) {
      JsonArray params = openapi.getJsonObject("paths").getJsonObject(path).getJsonObject("get")
          .getJsonArray("parameters", new JsonArray());
      for (Object o : params) {
        JsonObject param = (JsonObject) o;
        String name = param.getString("name");
        String example = path.replaceAll("\\{[^}]+}", "x");
        routes.put(path + " " + name, "path".equals(param.getString("in"))
            ? path.replace("{" + name + "}", "\u0001").replaceAll("\\{[^}]+}", "x")
            : example + "?" + name + "=\u0001");
      }
    }
    assertThat(routes).hasSizeGreaterThanOrEqualTo(30);
    Random random = new Random(1121);
    List<String> fiveHundreds = new ArrayList<>();
    long slowest = 0;
    for (var e : routes.entrySet()) {
      for (int i = 0; i < 300; i++) {
        String v = malformed(random);
        long started = System.nanoTime();
        var r = get(e.getValue().replace("\u0001", v), true);
        long millis = (System.nanoTime() - started) / 1_000_000;
        slowest = Math.max(slowest, millis);
        if (r.statusCode() >= 500) {
          fiveHundreds.add(e.getKey() + "=" + v + " -> " + r.statusCode() + " " + r.bodyAsString());
        }
        if (r.statusCode() >= 400) {
          assertThat(r.bodyAsString()).doesNotContain("Exception").doesNotContain("\tat ");
        }
      }
    }
    assertThat(fiveHundreds).isEmpty();
    // a bound, not a benchmark: no value may make a request do work out of proportion (seven rows are served)
    assertThat(slowest).as("the slowest request, ms").isLessThan(2_000);
  }

  /** A malformed value, URL-encoded: junk, huge numbers, control characters, broken encodings, long strings. */
  static String malformed(Random r) {
    String[] seeds = {"-1", "0", "99999999999999999999", "1e309", "NaN", "%00", "%ff%fe", "'; DROP TABLE",
        "<script>", "../../etc/passwd", "2026-13-45T25:61:00Z", "true false", "null", "[]", "{}", "%E2%80%AE",
        "\\u0000", "..", "%25", "-9223372036854775808", "+1000000000-01-01T00:00:00Z", "-1000000000-01-01T00:00:00Z",
        "999999999999999", "bzoyMTQ3NDgzNjQ3", "azF8LXN0YXJ0fDkyMjMzNzIwMzY4NTQ3NzU4MDd8MHwwLjB8eA",
        "azF8c3R1bnwxfDF8TmFOfHg", "b246MTA", "9".repeat(4000)};
    int kind = r.nextInt(4);
    if (kind == 0) {
      String seed = seeds[r.nextInt(seeds.length)];
      // already-escaped seeds go as they are (a raw %00 is the point); the rest are encoded, as a client would
      return seed.contains("%") ? seed : URLEncoder.encode(seed, StandardCharsets.UTF_8);
    }
    StringBuilder b = new StringBuilder();
    int n = kind == 3 ? 300 + r.nextInt(200) : 1 + r.nextInt(20);
    for (int i = 0; i < n; i++) {
      int c = r.nextInt(128);
      b.append(Character.isLetterOrDigit(c) ? String.valueOf((char) c) : String.format("%%%02X", c));
    }
    return b.toString();
  }
}
