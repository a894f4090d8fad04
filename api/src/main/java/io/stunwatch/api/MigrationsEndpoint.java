package io.stunwatch.api;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Migration;
import io.stunwatch.model.VmIds;
import io.stunwatch.processor.AnnotatedMigration;
import io.stunwatch.processor.MigrationRow;
import io.stunwatch.processor.MigrationSummary;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@code GET /api/migrations} (filters, sorting, cursor pagination, CSV), {@code GET /api/migrations/{id}} and
 * {@code GET /api/vms/{vm}/migrations}.
 */
final class MigrationsEndpoint {

  /** The longest range a migrations list, and the internal route that serves its parts, may ask for. */
  static final Duration MAX_RANGE = Duration.ofDays(36_600);

  static final Set<String> SORTS = Set.of("start", "-start", "stun", "-stun", "duration", "-duration");
  static final Set<String> RESULTS = Set.of("succeeded", "failed", "cancelled", "unknown", "in_progress");

  private final StoreReader stores;
  private final ApiConfig config;
  private final Clock clock;

  MigrationsEndpoint(StoreReader stores, ApiConfig config, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.clock = clock;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/migrations").handler(rc -> respond.json(rc, list(rc, null)));
    router.get("/api/migrations/:id").handler(rc -> {
      String id = new Params(rc).path("id");
      // a settled migration is its impact record; one still running (or settling) is its summary
      respond.json(rc, stores.impact(id).compose(i -> i.isPresent() ? Future.succeededFuture(i.get())
          : stores.migration(id).map(m -> m.orElseThrow(() -> ApiException.notFound("migration " + id)))));
    });
    router.get("/api/vms/:vm/migrations").handler(rc -> respond.json(rc, list(rc, new Params(rc).path("vm"))));
  }

  /** The filtered, sorted page; a {@code Link}-free cursor: the next page's token is in {@code X-Next-Cursor}. */
  Future<Object> list(RoutingContext rc, String pathVm) {
    Params p = new Params(rc);
    String vm = pathVm != null ? pathVm : p.text("vm");
    String host = p.text("host");
    String cluster = p.text("cluster");
    String profile = p.text("profile");
    String initiator = p.choice("initiator", Set.of("user", "drs", "unknown"), null);
    String result = p.choice("result", RESULTS, null);
    Boolean underLoad = p.bool("underLoad");
    Instant[] range = p.range(Instant.EPOCH, clock.instant().plusSeconds(86_400 * 366L), MAX_RANGE);
    String sort = p.choice("sort", SORTS, "-start");
    int limit = p.limit(100, config.maxPageSize());
    String format = p.choice("format", Set.of("json", "csv"), "json");
    int offset = cursor(p.text("cursor"));
    String vmId = vm != null && VmIds.isUuid(vm) ? VmIds.canonical(vm) : null;

    // A VM id reads that VM's index on the instance that owns it, whose rows are all that VM's; anything else reads
    // the time index of the range. The strings a row is asked for are read from its bytes on first use, so a
    // filter that is not given costs nothing.
    Predicate<MigrationRow> keep = r -> (vm == null || vmId != null
        || vm.equalsIgnoreCase(r.vmId()) || vm.equals(r.vmName()) || vm.equals(r.vmMoref()))
        && (host == null || matches(r.sourceHost(), host) || matches(r.destHost(), host))
        && (cluster == null || matches(r.sourceCluster(), cluster) || matches(r.destCluster(), cluster))
        && (profile == null || profile.equalsIgnoreCase(r.vgpuProfile()))
        && (initiator == null || initiator.equalsIgnoreCase(String.valueOf(r.initiator())))
        && (result == null || result.equalsIgnoreCase(String.valueOf(r.state())))
        && (underLoad == null || underLoad == r.underLoad())
        && r.compareStartTo(range[0]) >= 0 && r.compareStartTo(range[1]) <= 0;
    Future<List<MigrationRow>> source = vmId != null ? stores.migrationsOfVm(vmId)
        : stores.migrations(range[0], range[1]);
    return source.map(all -> {
      List<MigrationRow> kept = new ArrayList<>(all.size());
      for (MigrationRow r : all) {
        if (keep.test(r)) {
          kept.add(r);
        }
      }
      kept.sort(order(sort));
      if (offset > 0 && offset >= kept.size()) {
        // a cursor this API gave out points inside the results it was given with
        throw ApiException.badParameter("cursor", "is past the end of the " + kept.size() + " results");
      }
      long end = Math.min((long) offset + limit, kept.size());
      List<MigrationRow> page = kept.subList(offset, (int) end);
      if (end < kept.size()) {
        rc.response().putHeader("X-Next-Cursor", token((int) end));
      }
      rc.response().putHeader("X-Total-Count", String.valueOf(kept.size()));
      return "csv".equals(format) ? new ApiServer.CsvBody(csv(page)) : new ApiServer.JsonBody(RowArrays.summaries(page));
    });
  }

  private static boolean matches(EntityRef e, String q) {
    return e != null && (q.equals(e.value()) || q.equalsIgnoreCase(e.name()));
  }

  private static Comparator<MigrationRow> order(String sort) {
    Comparator<MigrationRow> c = switch (sort.replace("-", "")) {
      case "stun" -> Comparator.<MigrationRow>comparingDouble(r -> r.stunSeconds() == null ? -1.0 : r.stunSeconds())
          .thenComparing(MigrationRow::id);
      case "duration" -> Comparator.<MigrationRow>comparingDouble(r -> r.durationSeconds() == null ? -1.0
          : r.durationSeconds()).thenComparing(MigrationRow::id);
      default -> AnnotatedMigration.BY_START::compare;
    };
    return sort.startsWith("-") ? c.reversed() : c;
  }

  static String token(int offset) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(("o:" + offset).getBytes(StandardCharsets.UTF_8));
  }

  static int cursor(String token) {
    if (token == null) {
      return 0;
    }
    try {
      String s = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (!s.startsWith("o:")) {
        throw new IllegalArgumentException();
      }
      int n = Integer.parseInt(s.substring(2));
      if (n < 0) {
        throw new IllegalArgumentException();
      }
      return n;
    } catch (IllegalArgumentException e) {
      throw ApiException.badParameter("cursor", "is not a cursor this API gave out");
    }
  }

  /** The rows as CSV, every field read back from the row's summary (CSV is asked for rarely, JSON constantly). */
  static String csv(List<MigrationRow> rows) {
    StringBuilder b = new StringBuilder("id,vm_id,vm_name,profile,state,initiator,source_host,dest_host,start,end,"
        + "duration_s,stun_s,stun_source,under_load,fb_used_mib,throughput_dip_pct\n");
    for (MigrationRow r : rows) {
      MigrationSummary s = r.summary();
      Migration m = s.migration();
      b.append(String.join(",", cell(m.id()), cell(m.vmId()), cell(m.vmName()), cell(m.vgpuProfile()),
          cell(m.state()), cell(m.initiator()), cell(m.sourceHost() == null ? null : m.sourceHost().name()),
          cell(m.destHost() == null ? null : m.destHost().name()), cell(m.startTime()), cell(m.endTime()),
          cell(m.durationSeconds()), cell(s.stun() == null ? null : s.stun().seconds()),
          cell(s.stun() == null ? null : s.stun().source()), cell(s.underLoad()), cell(s.fbUsedMiB()),
          cell(s.throughputDipPct()))).append('\n');
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
