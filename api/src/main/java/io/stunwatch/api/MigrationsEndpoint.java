package io.stunwatch.api;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.FailureCause;
import io.stunwatch.model.Migration;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.VmIds;
import io.stunwatch.processor.view.AnnotatedMigration;
import io.stunwatch.processor.view.MigrationRow;
import io.stunwatch.processor.view.MigrationSummary;
import io.stunwatch.processor.view.VmOrderKeys;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
    FailureCause failureCause = p.enumeration("failureCause", FailureCause.class);
    // the last api.max-range up to a day ahead (a vCenter's clock may run ahead of this one's)
    TimeRange range = p.rangeUpTo(clock.instant().plus(Duration.ofDays(1)), config.maxRange());
    String sort = p.choice("sort", SORTS, "-start");
    int limit = p.limit(100, config.maxPageSize());
    String format = p.choice("format", Set.of("json", "csv"), "json");
    Cursor after = Cursor.parse(p.text("cursor"), sort);
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
    Predicate<MigrationRow> keep = filters.and(r -> r.compareStartTo(range.from()) >= 0
        && r.compareStartTo(range.to()) <= 0);
    rc.response().putHeader(RANGE_HEADER, range.from() + "/" + range.to());
    // Only the default range can hide what the user asked for without their knowing: a range they gave is theirs.
    boolean hinted = p.text("from") == null && after == null;
    boolean count = Boolean.TRUE.equals(p.bool("count"));
    if (vmId == null && !count && sort.endsWith("start")) {
      // In start order, a page is read from its end of the range (or from its cursor) on, a slice at a time, until
      // it is full: a walk over every page reads each row about once, not the whole range for every page.
      boolean desc = sort.startsWith("-");
      Instant from = range.from();
      Instant to = range.to();
      if (after != null) {
        Instant at = Instant.ofEpochSecond(after.second(), after.nano());
        from = desc ? from : max(from, at);
        to = desc ? min(to, at) : to;
      }
      List<MigrationRow> kept = new ArrayList<>();
      return slices(keep.and(r -> after == null || after.compareTo(r) < 0), desc, from, to, FIRST_SLICE, limit + 1,
          kept).map(whole -> {
            kept.sort(order(sort));
            List<MigrationRow> page = kept.subList(0, Math.min(limit, kept.size()));
            if (kept.size() > limit) {
              rc.response().putHeader("X-Next-Cursor", Cursor.of(page.get(page.size() - 1), sort).token());
            } else if (after == null) {
              rc.response().putHeader("X-Total-Count", String.valueOf(kept.size())); // the range was read whole
            }
            return page;
          }).compose(page -> !hinted || !page.isEmpty() ? Future.succeededFuture(page)
              : newestBefore(filters, range.from(), rc).map(page))
          .map(page -> "csv".equals(format) ? new ApiServer.CsvBody(csv(page))
              : new ApiServer.JsonBody(RowArrays.summaries(page)));
    }
    if (vmId != null && !count) {
      return vmPage(rc, vmId, keep, sort, after, range, limit)
          .compose(page -> !hinted || !page.isEmpty() ? Future.succeededFuture(page)
              : vmNewestBefore(vmId, filters, range.from(), rc).map(page))
          .map(page -> "csv".equals(format) ? new ApiServer.CsvBody(csv(page))
              : new ApiServer.JsonBody(RowArrays.summaries(page)));
    }
    Future<List<MigrationRow>> source = vmId != null ? stores.migrationsOfVm(vmId)
        : stores.migrations(range.from(), range.to());
    return source.map(all -> {
      List<MigrationRow> kept = new ArrayList<>(all.size());
      for (MigrationRow r : all) {
        if (keep.test(r)) {
          kept.add(r);
        }
      }
      kept.sort(order(sort));
      // the page starts after the cursor's row, found by its sort key: rows added or gone since do not shift it
      int first = after == null ? 0 : firstAfter(kept, after);
      int end = (int) Math.min((long) first + limit, kept.size());
      List<MigrationRow> page = kept.subList(first, end);
      if (end < kept.size()) {
        rc.response().putHeader("X-Next-Cursor", Cursor.of(page.get(page.size() - 1), sort).token());
      }
      rc.response().putHeader("X-Total-Count", String.valueOf(kept.size()));
      if (hinted && page.isEmpty() && vmId != null) {
        // a VM's rows are all at hand
        all.stream().filter(filters).filter(r -> r.compareStartTo(range.from()) < 0).map(MigrationRow::startTime)
            .max(Comparator.naturalOrder()).ifPresent(t -> rc.response().putHeader(NEWEST_BEFORE_HEADER, t.toString()));
      }
      return page;
    }).compose(page -> !hinted || !page.isEmpty() || vmId != null ? Future.succeededFuture(page)
        : newestBefore(filters, range.from(), rc).map(page))
        .map(page -> "csv".equals(format) ? new ApiServer.CsvBody(csv(page))
            : new ApiServer.JsonBody(RowArrays.summaries(page)));
  }

  /** The most rows one read of a VM's order index asks for: a page is read in chunks of up to this many. */
  static final int MAX_VM_CHUNK = 4096;

  /**
   * A page of one VM's list, in any sort: its order index is read from the cursor (in start order, from the range's
   * end when that comes first) a chunk at a time, each four times the last, until the page and one row more are
   * found, the range is passed (start order) or the VM's rows end. A walk over every page reads each row about once;
   * a VM with 1,000 migrations no longer costs 1,000 rows a page.
   */
  private Future<List<MigrationRow>> vmPage(RoutingContext rc, String vmId, Predicate<MigrationRow> keep,
      String sort, Cursor after, TimeRange range, int limit) {
    VmOrderKeys.Order order = VmOrderKeys.Order.ofSort(sort);
    boolean desc = sort.startsWith("-");
    String from = after == null ? null : after.position(order);
    Predicate<MigrationRow> beyond = r -> false;
    if (order == VmOrderKeys.Order.START) {
      Instant edge = desc ? range.to() : range.from();
      String edgePosition = VmOrderKeys.position(order, edge.getEpochSecond(), edge.getNano(), 0,
          desc ? "\uffff" : "");
      if (from == null || (desc ? edgePosition.compareTo(from) < 0 : edgePosition.compareTo(from) > 0)) {
        from = edgePosition;
      }
      beyond = desc ? r -> r.compareStartTo(range.from()) < 0 : r -> r.compareStartTo(range.to()) > 0;
    }
    List<MigrationRow> kept = new ArrayList<>();
    return chunks(vmId, order, desc, from, Math.min(limit + 1, MAX_VM_CHUNK), limit + 1, keep, beyond, kept)
        .map(whole -> {
          kept.sort(order(sort));
          List<MigrationRow> page = kept.subList(0, Math.min(limit, kept.size()));
          if (kept.size() > limit) {
            rc.response().putHeader("X-Next-Cursor", Cursor.of(page.get(page.size() - 1), sort).token());
          } else if (after == null) {
            rc.response().putHeader("X-Total-Count", String.valueOf(kept.size())); // the VM's range was read whole
          }
          return page;
        });
  }

  /**
   * Reads the VM's rows in {@code order} after {@code after}, {@code chunk} at a time (each next chunk four times
   * longer), adding those {@code keep} takes to {@code kept} until it holds {@code enough}, a row is {@code beyond}
   * the range, or the rows end; completes with whether they were read to their end.
   */
  private Future<Boolean> chunks(String vmId, VmOrderKeys.Order order, boolean desc, String after, int chunk,
      int enough, Predicate<MigrationRow> keep, Predicate<MigrationRow> beyond, List<MigrationRow> kept) {
    return stores.migrationsOfVm(vmId, order, desc, after, chunk).compose(rows -> {
      for (MigrationRow r : rows) {
        if (beyond.test(r)) {
          return Future.succeededFuture(true);
        }
        if (keep.test(r)) {
          kept.add(r);
          if (kept.size() >= enough) {
            return Future.succeededFuture(false);
          }
        }
      }
      if (rows.size() < chunk) {
        return Future.succeededFuture(true);
      }
      return chunks(vmId, order, desc, VmOrderKeys.position(order, rows.get(rows.size() - 1)),
          Math.min(chunk * 4, MAX_VM_CHUNK), enough, keep, beyond, kept);
    });
  }

  /** {@link #NEWEST_BEFORE_HEADER} for a VM's empty list: its newest row before {@code from} that the filters take. */
  private Future<Void> vmNewestBefore(String vmId, Predicate<MigrationRow> filters, Instant from,
      RoutingContext rc) {
    List<MigrationRow> older = new ArrayList<>();
    String before = VmOrderKeys.position(VmOrderKeys.Order.START, from.getEpochSecond(), from.getNano(), 0, "");
    return chunks(vmId, VmOrderKeys.Order.START, true, before, 16, 1, filters, r -> false, older).map(whole -> {
      older.stream().findFirst()
          .ifPresent(r -> rc.response().putHeader(NEWEST_BEFORE_HEADER, r.startTime().toString()));
      return null;
    });
  }

  /** The range a list was read over, {@code <from>/<to>} (an ISO 8601 interval): given, or the default. */
  static final String RANGE_HEADER = "X-Range";
  /**
   * On an empty list over the default range: the start of the newest migration before it that the other filters
   * take (a support bundle's migrations, months or years old), so that an empty answer never hides them unsaid.
   */
  static final String NEWEST_BEFORE_HEADER = "X-Newest-Before-Range";

  /** Sets {@link #NEWEST_BEFORE_HEADER} from the newest row before {@code from} that {@code filters} takes. */
  private Future<Void> newestBefore(Predicate<MigrationRow> filters, Instant from, RoutingContext rc) {
    List<MigrationRow> older = new ArrayList<>();
    return slices(filters, true, Instant.EPOCH, from.minusNanos(1), FIRST_SLICE, 1, older).map(whole -> {
      older.stream().map(MigrationRow::startTime).max(Comparator.naturalOrder())
          .ifPresent(t -> rc.response().putHeader(NEWEST_BEFORE_HEADER, t.toString()));
      return null;
    });
  }

  /**
   * The first slice of a start-ordered page read; each next one is four times as long, so a page reads at most about
   * four times its rows (more only where its rows are fewer than a minute's), and a day with no migration costs a
   * handful of reads.
   */
  static final Duration FIRST_SLICE = Duration.ofMinutes(1);

  /**
   * Reads {@code [from, to]} from its {@code desc ? to : from} end in slices (the first {@code slice} long, each next
   * four times longer), adding the rows {@code keep} takes to {@code kept}, until it holds {@code enough} or the
   * range is read; completes with whether the range was read whole.
   */
  private Future<Boolean> slices(Predicate<MigrationRow> keep, boolean desc, Instant from, Instant to,
      Duration slice, int enough, List<MigrationRow> kept) {
    if (from.isAfter(to)) {
      return Future.succeededFuture(true);
    }
    // Bounds on whole milliseconds, as the index keys starts: a row is in exactly one slice.
    Instant sliceFrom = desc ? max(from, to.minus(slice).truncatedTo(ChronoUnit.MILLIS)) : from;
    Instant sliceTo = desc ? to
        : min(to, from.plus(slice).truncatedTo(ChronoUnit.MILLIS).plusMillis(1).minusNanos(1));
    return stores.migrations(sliceFrom, sliceTo).compose(rows -> {
      for (MigrationRow r : rows) {
        if (keep.test(r)) {
          kept.add(r);
        }
      }
      boolean whole = desc ? !sliceFrom.isAfter(from) : !sliceTo.isBefore(to);
      if (whole || kept.size() >= enough) {
        return Future.succeededFuture(whole);
      }
      Instant restFrom = desc ? from : sliceTo.plusNanos(1);
      Instant restTo = desc ? sliceFrom.minusNanos(1) : to;
      Duration next = slice.multipliedBy(4);
      return slices(keep, desc, restFrom, restTo, next.compareTo(config.maxRange()) > 0 ? config.maxRange() : next,
          enough, kept);
    });
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
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

  /** The index of the first row of {@code sorted} that comes after {@code c} in its sort. */
  static int firstAfter(List<MigrationRow> sorted, Cursor c) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (c.compareTo(sorted.get(mid)) < 0) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * A keyset cursor: the sort it was made for and the last row's place in it (its start, or its stun or duration,
   * then its id). The next page is the rows after that place, however many came or went before it.
   */
  record Cursor(String sort, long second, int nano, double value, String id) {

    static Cursor of(MigrationRow r, String sort) {
      return new Cursor(sort, r.startEpochSecond(), r.startNano(), value(r, sort), r.id());
    }

    private static double value(MigrationRow r, String sort) {
      Double v = switch (sort.replace("-", "")) {
        case "stun" -> r.stunSeconds();
        case "duration" -> r.durationSeconds();
        default -> 0.0;
      };
      return v == null ? -1.0 : v;
    }

    /** The cursor's row's place in the VM order index of {@code order}, the order of its sort. */
    String position(VmOrderKeys.Order order) {
      return VmOrderKeys.position(order, second, nano, value, id);
    }

    /** How this cursor's row compares with {@code r} in the cursor's sort. */
    int compareTo(MigrationRow r) {
      int c = switch (sort.replace("-", "")) {
        case "stun", "duration" -> Double.compare(value, value(r, sort));
        default -> {
          int s = Long.compare(second, r.startEpochSecond());
          yield s != 0 ? s : Integer.compare(nano, r.startNano());
        }
      };
      if (c == 0) {
        c = id.compareTo(r.id());
      }
      return sort.startsWith("-") ? -c : c;
    }

    String token() {
      String s = "k1|" + sort + "|" + second + "|" + nano + "|" + value + "|" + id;
      return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The cursor of a token this API gave out for {@code sort}, or null for none. */
    static Cursor parse(String token, String sort) {
      if (token == null) {
        return null;
      }
      Cursor c;
      try {
        String[] f = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8).split("\\|", 6);
        if (f.length != 6 || !f[0].equals("k1") || !SORTS.contains(f[1]) || f[5].isEmpty()) {
          throw new IllegalArgumentException();
        }
        double value = Double.parseDouble(f[4]);
        if (!Double.isFinite(value)) {
          throw new IllegalArgumentException();
        }
        c = new Cursor(f[1], Long.parseLong(f[2]), Integer.parseInt(f[3]), value, f[5]);
        Instant.ofEpochSecond(c.second(), c.nano()); // a place in time this API could have given out
        if (c.nano() < 0 || c.nano() > 999_999_999) {
          throw new IllegalArgumentException();
        }
      } catch (IllegalArgumentException | DateTimeException e) {
        throw ApiException.badParameter("cursor", "is not a cursor this API gave out");
      }
      if (!c.sort().equals(sort)) {
        throw ApiException.badParameter("cursor", "was given for sort=" + c.sort() + "; ask with that sort");
      }
      return c;
    }
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
