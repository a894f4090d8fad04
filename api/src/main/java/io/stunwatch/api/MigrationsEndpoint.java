package io.stunwatch.api;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.Migration;
import io.stunwatch.model.VmIds;
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

  static final Set<String> SORTS = Set.of("start", "-start", "stun", "-stun", "duration", "-duration");
  static final Set<String> RESULTS = Set.of("succeeded", "failed", "cancelled", "unknown", "in_progress");

  private final StoreReader stores;
  private final ApiConfig config;
  private final JsonFragments<MigrationSummary> rows;
  private final Clock clock;

  /** @param rows the rows' JSON by summary instance */
  MigrationsEndpoint(StoreReader stores, ApiConfig config, JsonFragments<MigrationSummary> rows, Clock clock) {
    this.stores = stores;
    this.config = config;
    this.rows = rows;
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
    Instant[] range = p.range(Instant.EPOCH, clock.instant().plusSeconds(86_400 * 366L), Duration.ofDays(36_600));
    String sort = p.choice("sort", SORTS, "-start");
    int limit = p.limit(100, config.maxPageSize());
    String format = p.choice("format", Set.of("json", "csv"), "json");
    int offset = cursor(p.text("cursor"));
    // Stored VM ids are canonical: comparing the canonical form exactly is the common hit, and it spares a
    // case-insensitive comparison per row, which profiled as a fifth of a VM's list.
    String vmId = vm != null && VmIds.isUuid(vm) ? VmIds.canonical(vm) : null;

    Predicate<MigrationSummary> keep = s -> {
      Migration m = s.migration();
      return (vm == null || (vmId != null && vmId.equals(m.vmId())) || vm.equalsIgnoreCase(m.vmId())
          || vm.equals(m.vmName()) || vm.equals(m.vmMoref()))
          && (host == null || matches(m.sourceHost(), host) || matches(m.destHost(), host))
          && (cluster == null || matches(m.sourceCluster(), cluster) || matches(m.destCluster(), cluster))
          && (profile == null || profile.equalsIgnoreCase(m.vgpuProfile()))
          && (initiator == null || initiator.equalsIgnoreCase(String.valueOf(m.initiator())))
          && (result == null || result.equalsIgnoreCase(m.state().name()))
          && (underLoad == null || underLoad == s.underLoad())
          && m.startTime() != null && !m.startTime().isBefore(range[0]) && !m.startTime().isAfter(range[1]);
    };
    // A VM id reads that VM's index on the instance that owns it; anything else reads the time index of the range.
    Future<List<MigrationSummary>> source = vmId != null ? stores.migrationsOfVm(vmId)
        : stores.migrations(range[0], range[1]);
    return source.map(all -> {
      List<MigrationSummary> kept = new ArrayList<>(all.stream().filter(keep).toList());
      kept.sort(order(sort));
      List<MigrationSummary> page = kept.subList(Math.min(offset, kept.size()),
          Math.min(offset + limit, kept.size()));
      if (offset + limit < kept.size()) {
        rc.response().putHeader("X-Next-Cursor", token(offset + limit));
      }
      rc.response().putHeader("X-Total-Count", String.valueOf(kept.size()));
      return "csv".equals(format) ? new ApiServer.CsvBody(csv(page)) : new ApiServer.JsonBody(rows.array(page));
    });
  }

  private static boolean matches(EntityRef e, String q) {
    return e != null && (q.equals(e.value()) || q.equalsIgnoreCase(e.name()));
  }

  private static Comparator<MigrationSummary> order(String sort) {
    Comparator<MigrationSummary> c = switch (sort.replace("-", "")) {
      case "stun" -> Comparator.comparing(s -> s.stun() == null || s.stun().seconds() == null ? -1.0
          : s.stun().seconds());
      case "duration" -> Comparator.comparing(s -> s.migration().durationSeconds() == null ? -1.0
          : s.migration().durationSeconds());
      default -> Comparator.comparing(s -> s.migration().startTime());
    };
    c = c.thenComparing(s -> s.migration().id());
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

  static String csv(List<MigrationSummary> rows) {
    StringBuilder b = new StringBuilder("id,vm_id,vm_name,profile,state,initiator,source_host,dest_host,start,end,"
        + "duration_s,stun_s,stun_source,under_load,fb_used_mib,throughput_dip_pct\n");
    for (MigrationSummary s : rows) {
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

  /** RFC 4180 quoting; a leading =, +, - or @ is prefixed so a spreadsheet never runs it as a formula. */
  static String cell(Object v) {
    if (v == null) {
      return "";
    }
    String s = String.valueOf(v);
    if (!s.isEmpty() && "=+-@".indexOf(s.charAt(0)) >= 0 && !(v instanceof Number)) {
      s = "'" + s;
    }
    if (s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")) {
      s = '"' + s.replace("\"", "\"\"") + '"';
    }
    return s;
  }
}
