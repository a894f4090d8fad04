package io.stunwatch.api;

import io.stunwatch.processor.readmodel.AnnotatedMigration;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.stunwatch.processor.readmodel.VmOrderKeys;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
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
import java.util.function.Supplier;

/**
 * Pages of the migrations list, read through a {@link StoreReader}: the paging behind
 * {@code GET /api/migrations} and {@code GET /api/vms/{vm}/migrations}, which keep to HTTP. A page in start order
 * is read from its end of the range (or its cursor) on, a slice at a time; a VM's page from its order index, a chunk
 * at a time; anything else (a count, another sort over the time index) reads the range whole and sorts it. The
 * cursor is a keyset: the last row's place in the sort, so rows that come or go before it do not shift a page.
 */
final class MigrationPages {

  static final Set<String> SORTS = Set.of("start", "-start", "stun", "-stun", "duration", "-duration");

  private final StoreReader stores;
  private final Duration maxRange;

  MigrationPages(StoreReader stores, Duration maxRange) {
    this.stores = stores;
    this.maxRange = maxRange;
  }

  /**
   * What a page asks.
   *
   * @param vmId    the VM's id, when the list is one VM's: its order index is read, on the instance that owns it
   * @param filters what a row must be, besides its start in {@code range}
   * @param sort    one of {@link #SORTS}
   * @param after   the cursor of the last page, or null
   * @param count   whether the total is wanted (the range is then read whole)
   * @param hinted  whether an empty page is to name the newest row before the range (the range is the default)
   */
  record Query(String vmId, Predicate<MigrationRow> filters, TimeRange range, String sort, Cursor after, int limit,
      boolean count, boolean hinted) {

    Predicate<MigrationRow> keep() {
      return filters.and(r -> r.compareStartTo(range.from()) >= 0 && r.compareStartTo(range.to()) <= 0);
    }
  }

  /**
   * A page.
   *
   * @param rows         its rows, in the query's sort
   * @param next         the cursor of the next page, or null when this is the last
   * @param total        the rows of the whole list, when it was read whole; else null
   * @param newestBefore on an empty hinted page, the start of the newest row before the range that the filters
   *                     take; else null
   */
  record Page(List<MigrationRow> rows, Cursor next, Integer total, Instant newestBefore) {

    Page withNewestBefore(Instant t) {
      return new Page(rows, next, total, t);
    }
  }

  /** The page {@code q} asks for. */
  Future<Page> read(Query q) {
    Instant from = q.range().from();
    if (q.vmId() == null && !q.count() && q.sort().endsWith("start")) {
      return startPage(q).compose(p -> hinted(q, p, () -> newestBefore(q.filters(), from)));
    }
    if (q.vmId() != null && !q.count()) {
      return vmPage(q).compose(p -> hinted(q, p, () -> vmNewestBefore(q.vmId(), q.filters(), from)));
    }
    // a VM's rows read whole are all at hand: the page names the newest before the range itself
    return wholePage(q).compose(p -> q.vmId() != null ? Future.succeededFuture(p)
        : hinted(q, p, () -> newestBefore(q.filters(), from)));
  }

  /** {@code p}, with the newest row before the range when it is an empty page of the default range. */
  private static Future<Page> hinted(Query q, Page p, Supplier<Future<Instant>> newest) {
    return !q.hinted() || !p.rows().isEmpty() ? Future.succeededFuture(p) : newest.get().map(p::withNewestBefore);
  }

  /**
   * In start order, a page is read from its end of the range (or from its cursor) on, a slice at a time, until it
   * is full: a walk over every page reads each row about once, not the whole range for every page.
   */
  private Future<Page> startPage(Query q) {
    boolean desc = q.sort().startsWith("-");
    Instant from = q.range().from();
    Instant to = q.range().to();
    Cursor after = q.after();
    if (after != null) {
      Instant at = Instant.ofEpochSecond(after.second(), after.nano());
      from = desc ? from : max(from, at);
      to = desc ? min(to, at) : to;
    }
    List<MigrationRow> kept = new ArrayList<>();
    return slices(q.keep().and(r -> after == null || after.compareTo(r) < 0), desc, from, to, FIRST_SLICE,
        q.limit() + 1, kept).map(whole -> pageOf(kept, q, after == null));
  }

  /** The first {@code limit} of {@code kept} in the query's sort; with the total when the range was read whole. */
  private static Page pageOf(List<MigrationRow> kept, Query q, boolean readWhole) {
    kept.sort(order(q.sort()));
    List<MigrationRow> rows = kept.subList(0, Math.min(q.limit(), kept.size()));
    boolean more = kept.size() > q.limit();
    return new Page(rows, more ? Cursor.of(rows.get(rows.size() - 1), q.sort()) : null,
        !more && readWhole ? kept.size() : null, null);
  }

  /** A count, or a sort other than by start over the time index: the range read whole, sorted, then paged. */
  private Future<Page> wholePage(Query q) {
    Future<List<MigrationRow>> source = q.vmId() != null ? stores.migrationsOfVm(q.vmId())
        : stores.migrations(q.range().from(), q.range().to());
    Predicate<MigrationRow> keep = q.keep();
    return source.map(all -> {
      List<MigrationRow> kept = new ArrayList<>(all.size());
      for (MigrationRow r : all) {
        if (keep.test(r)) {
          kept.add(r);
        }
      }
      kept.sort(order(q.sort()));
      // the page starts after the cursor's row, found by its sort key: rows added or gone since do not shift it
      int first = q.after() == null ? 0 : firstAfter(kept, q.after());
      int end = (int) Math.min((long) first + q.limit(), kept.size());
      List<MigrationRow> rows = kept.subList(first, end);
      Cursor next = end < kept.size() ? Cursor.of(rows.get(rows.size() - 1), q.sort()) : null;
      Instant newest = null;
      if (q.hinted() && rows.isEmpty() && q.vmId() != null) {
        // a VM's rows are all at hand
        newest = all.stream().filter(q.filters()).filter(r -> r.compareStartTo(q.range().from()) < 0)
            .map(MigrationRow::startTime).max(Comparator.naturalOrder()).orElse(null);
      }
      return new Page(rows, next, kept.size(), newest);
    });
  }

  /** The most rows one read of a VM's order index asks for: a page is read in chunks of up to this many. */
  static final int MAX_VM_CHUNK = 4096;

  /**
   * A page of one VM's list, in any sort: its order index is read from the cursor (in start order, from the range's
   * end when that comes first) a chunk at a time, each four times the last, until the page and one row more are
   * found, the range is passed (start order) or the VM's rows end. A walk over every page reads each row about once;
   * a VM with 1,000 migrations no longer costs 1,000 rows a page.
   */
  private Future<Page> vmPage(Query q) {
    String vmId = q.vmId();
    String sort = q.sort();
    Cursor after = q.after();
    TimeRange range = q.range();
    int limit = q.limit();
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
    return chunks(vmId, order, desc, from, Math.min(limit + 1, MAX_VM_CHUNK), limit + 1, q.keep(), beyond, kept)
        .map(whole -> pageOf(kept, q, after == null));
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

  /** For a VM's empty page: its newest row before {@code from} that the filters take, or null. */
  private Future<Instant> vmNewestBefore(String vmId, Predicate<MigrationRow> filters, Instant from) {
    List<MigrationRow> older = new ArrayList<>();
    String before = VmOrderKeys.position(VmOrderKeys.Order.START, from.getEpochSecond(), from.getNano(), 0, "");
    return chunks(vmId, VmOrderKeys.Order.START, true, before, 16, 1, filters, r -> false, older)
        .map(whole -> older.stream().findFirst().map(MigrationRow::startTime).orElse(null));
  }

  /** For an empty page: the start of the newest row before {@code from} that {@code filters} takes, or null. */
  private Future<Instant> newestBefore(Predicate<MigrationRow> filters, Instant from) {
    List<MigrationRow> older = new ArrayList<>();
    return slices(filters, true, Instant.EPOCH, from.minusNanos(1), FIRST_SLICE, 1, older)
        .map(whole -> older.stream().map(MigrationRow::startTime).max(Comparator.naturalOrder()).orElse(null));
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
      return slices(keep, desc, restFrom, restTo, next.compareTo(maxRange) > 0 ? maxRange : next,
          enough, kept);
    });
  }

  private static Instant max(Instant a, Instant b) {
    return a.isAfter(b) ? a : b;
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  static Comparator<MigrationRow> order(String sort) {
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
}
