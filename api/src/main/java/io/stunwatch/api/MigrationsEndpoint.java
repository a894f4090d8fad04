package io.stunwatch.api;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.FailureCause;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.VmIds;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.MigrationSummary;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code GET /api/migrations} (filters, sorting, cursor pagination, CSV), {@code GET /api/migrations/{id}} and
 * {@code GET /api/vms/{vm}/migrations}: the parameters in, the page out. The paging is {@link MigrationPages}'.
 */
final class MigrationsEndpoint {

  static final Set<String> SORTS = MigrationPages.SORTS;
  static final Set<String> RESULTS = Set.of("succeeded", "failed", "cancelled", "unknown", "in_progress");
  /** The range a list was read over, {@code <from>/<to>} (an ISO 8601 interval): given, or the default. */
  static final String RANGE_HEADER = "X-Range";
  /**
   * On an empty list over the default range: the start of the newest migration before it that the other filters
   * take (a support bundle's migrations, months or years old), so that an empty answer never hides them unsaid.
   */
  static final String NEWEST_BEFORE_HEADER = "X-Newest-Before-Range";

  private final StoreReader stores;
  private final MigrationPages pages;
  private final ApiConfig config;
  private final Clock clock;

  MigrationsEndpoint(StoreReader stores, ApiConfig config, Clock clock) {
    this.stores = stores;
    this.pages = new MigrationPages(stores, config.maxRange());
    this.config = config;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/migrations").handler(rc -> respond.json(rc, list(rc, null)));
    router.get("/api/migrations/:id").handler(rc -> {
      String id = new Params(rc).path("id");
      // a settled migration is its impact record; one still running (or settling) is its summary
      respond.json(rc, stores.migrationRecord(id).map(json -> new ApiServer.JsonBody(
          json.orElseThrow(() -> ApiException.notFound("migration " + id)))));
    });
    router.get("/api/vms/:vm/migrations").handler(rc -> respond.json(rc, list(rc, new Params(rc).path("vm"))));
  }

  /** The filtered, sorted page; a {@code Link}-free cursor: the next page's token is in {@code X-Next-Cursor}. */
  Future<ApiServer.Answer> list(RoutingContext rc, String pathVm) {
    Params p = new Params(rc);
    String vm = pathVm != null ? pathVm : p.text("vm");
    String host = p.text("host");
    String cluster = p.text("cluster");
    String profile = p.text("profile");
    String initiator = p.choice("initiator", Set.of("user", "drs", "unknown"), null);
    String result = p.choice("result", RESULTS, null);
    Boolean underLoad = p.bool("underLoad");
    FailureCause failureCause = p.enumeration("failureCause", FailureCause.class);
    // the last api.max-range up to a day ahead (a vCenter's clock may run ahead of this one's)
    TimeRange range = p.rangeUpTo(clock.instant().plus(Duration.ofDays(1)), config.maxRange());
    String sort = p.choice("sort", SORTS, "-start");
    int limit = p.limit(100, config.maxPageSize());
    String format = p.choice("format", Set.of("json", "csv"), "json");
    MigrationPages.Cursor after = MigrationPages.Cursor.parse(p.text("cursor"), sort);
    String vmId = vm != null && VmIds.isUuid(vm) ? VmIds.canonical(vm) : null;
    // A VM id reads that VM's index on the instance that owns it, whose rows are all that VM's; anything else reads
    // the time index of the range. The strings a row is asked for are read from its bytes on first use, so a
    // filter that is not given costs nothing.
    Predicate<MigrationRow> filters = r -> (vm == null || vmId != null
        || vm.equalsIgnoreCase(r.vmId()) || vm.equals(r.vmName()) || vm.equals(r.vmMoref()))
        && (host == null || matches(r.sourceHost(), host) || matches(r.destHost(), host))
        && (cluster == null || matches(r.sourceCluster(), cluster) || matches(r.destCluster(), cluster))
        && (profile == null || profile.equalsIgnoreCase(r.vgpuProfile()))
        && (initiator == null || initiator.equalsIgnoreCase(String.valueOf(r.initiator())))
        && (result == null || result.equalsIgnoreCase(String.valueOf(r.state())))
        && (underLoad == null || underLoad == r.underLoad())
        && (failureCause == null || r.state() == MigrationState.FAILED
            && failureCause == r.summary().failureCause());
    // Only the default range can hide what the user asked for without their knowing: a range they gave is theirs.
    boolean hinted = p.text("from") == null && after == null;
    boolean count = Boolean.TRUE.equals(p.bool("count"));
    return pages.read(new MigrationPages.Query(vmId, filters, range, sort, after, limit, count, hinted))
        .map(page -> answer(page, range, format));
  }

  /** The one response of every list: its headers, and its rows as JSON or CSV. */
  private static ApiServer.Answer answer(MigrationPages.Page page, TimeRange range, String format) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(RANGE_HEADER, range.from() + "/" + range.to());
    if (page.next() != null) {
      headers.put("X-Next-Cursor", page.next().token());
    }
    if (page.total() != null) {
      headers.put("X-Total-Count", String.valueOf(page.total()));
    }
    if (page.newestBefore() != null) {
      headers.put(NEWEST_BEFORE_HEADER, page.newestBefore().toString());
    }
    List<MigrationRow> rows = page.rows();
    return new ApiServer.Answer(headers, "csv".equals(format) ? new ApiServer.CsvBody(csv(rows))
        : new ApiServer.JsonBody(RenderedRows.summaries(rows)));
  }

  private static boolean matches(EntityRef e, String q) {
    return e != null && (q.equals(e.value()) || q.equalsIgnoreCase(e.name()));
  }

  /** The rows as CSV, every field read back from the row's summary (CSV is asked for rarely, JSON constantly). */
  static String csv(List<MigrationRow> rows) {
    StringBuilder b = new StringBuilder("id,vm_id,vm_name,profile,state,initiator,source_host,dest_host,start,end,"
        + "duration_s,stun_s,stun_source,under_load,fb_used_mib,throughput_dip_pct,load_source\n");
    for (MigrationRow r : rows) {
      MigrationSummary s = r.summary();
      Migration m = s.migration();
      b.append(String.join(",", cell(m.id()), cell(m.vmId()), cell(m.vmName()), cell(m.vgpuProfile()),
          cell(m.state()), cell(m.initiator()), cell(m.sourceHost() == null ? null : m.sourceHost().name()),
          cell(m.destHost() == null ? null : m.destHost().name()), cell(m.startTime()), cell(m.endTime()),
          cell(m.durationSeconds()), cell(s.stun() == null ? null : s.stun().seconds()),
          cell(s.stun() == null ? null : s.stun().source()), cell(s.underLoad()), cell(s.fbUsedMiB()),
          cell(s.throughputDipPct()), cell(s.loadSource()))).append('\n');
    }
    return b.toString();
  }

  /**
   * RFC 4180 quoting; a text starting with =, +, -, @, a tab or a carriage return is prefixed with {@code '}, so a
   * spreadsheet never runs it as a formula (OWASP's CSV injection list).
   */
  static String cell(Object v) {
    if (v == null) {
      return "";
    }
    String s = String.valueOf(v);
    if (!s.isEmpty() && "=+-@\t\r".indexOf(s.charAt(0)) >= 0 && !(v instanceof Number)) {
      s = "'" + s;
    }
    if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
      s = '"' + s.replace("\"", "\"\"") + '"';
    }
    return s;
  }
}
