package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code GET /api/vms/{vm}/migrate-check[?to=HOST]}: is it safe to migrate this VM now? No when it is under load now
 * (the alert's thresholds), when its forecast stun (p95) is over {@code api.plan.max-stun}, or when its load is
 * unknown (no readings: Stunwatch cannot vouch for it). Each "no" gives its reasons, and the next hour that has been
 * quieter: the VM's GPU utilization by hour of day (UTC) over the last seven days ({@link StoreNames#VM_LOAD_1H}), the
 * first of the coming 24 hours whose average is under the alert's threshold. A DRS script or an event-driven
 * function calls it before it moves a VM.
 */
final class MigrateCheckEndpoint {

  /** How far back the hour-of-day profile reads. */
  static final Duration PROFILE_DAYS = Duration.ofDays(7);

  private final StoreReader stores;
  private final Planner planner;
  private final Planner.Busy busy;
  private final Duration maxStun;
  private final Duration switchoverLimit;
  private final Clock clock;

  MigrateCheckEndpoint(StoreReader stores, Planner planner, Duration maxStun, Duration switchoverLimit,
      Clock clock) {
    this.switchoverLimit = switchoverLimit;
    this.stores = stores;
    this.planner = planner;
    this.busy = planner.busy();
    this.maxStun = maxStun;
    this.clock = clock;
  }

  /** Why a move is not safe now. */
  enum Reason {
    /** Over a load threshold of the migration-under-load alert. */
    UNDER_LOAD,
    /** The forecast stun's p95 is over {@code api.plan.max-stun}. */
    STUN_OVER_LIMIT,
    /** No readings in the alert window: the load is unknown, not low. */
    LOAD_UNKNOWN,
    /** The forecast stun's p95 is over the switchover limit: ESXi would fail the move. */
    WOULD_FAIL
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/vms/:vm/migrate-check").handler(rc -> {
      Params p = new Params(rc);
      String vmId = p.path("vm");
      String to = p.text("to");
      respond.json(rc, planner.site().compose(site -> {
        VmInventoryEntry vm = site.vm(vmId);
        return planner.loadNow(vmId).compose(load -> {
          if (vm == null && load.sampledAt() == null) {
            throw ApiException.notFound("VM " + vmId + " in the inventory or the load stores");
          }
          if (to != null && site.hostNamed(vm == null ? null : vm.vcenterUuid(), to) == null) {
            throw ApiException.badParameter("to", "names no host of the inventory: " + to);
          }
          Planner.Forecast f = planner.forecast(site, vm, load, null, to);
          return hourly(vmId, load).map(profile -> answer(vmId, vm, load, f, profile));
        });
      }));
    });
  }

  private Future<List<Hour>> hourly(String vmId, Planner.LoadNow load) {
    Instant now = clock.instant();
    String key = LoadKeys.of(vmId, load.source() == null ? LoadSource.GUEST : load.source());
    return stores.loadWindows(key, "1h", now.minus(PROFILE_DAYS), now).map(windows -> {
      double[] sum = new double[24];
      long[] n = new long[24];
      List<Set<Long>> days = new ArrayList<>();
      for (int h = 0; h < 24; h++) {
        days.add(new HashSet<>());
      }
      for (StoreReader.LoadWindow w : windows) {
        LoadAggregate a = w.load();
        if (a.gpuUtilCount() == 0) {
          continue;
        }
        int h = w.start().atZone(ZoneOffset.UTC).getHour();
        sum[h] += a.gpuUtilSum();
        n[h] += a.gpuUtilCount();
        days.get(h).add(w.start().getEpochSecond() / 86_400);
      }
      List<Hour> out = new ArrayList<>();
      for (int h = 0; h < 24; h++) {
        out.add(new Hour(h, n[h] == 0 ? null : sum[h] / n[h], days.get(h).size()));
      }
      return out;
    });
  }

  private Check answer(String vmId, VmInventoryEntry vm, Planner.LoadNow load, Planner.Forecast f,
      List<Hour> profile) {
    List<Why> why = new ArrayList<>();
    if (load.underLoad() == null) {
      why.add(new Why(Reason.LOAD_UNKNOWN, load.unknownBecause(clock.instant(), busy.window())
          + ": its load is unknown, not low"));
    } else if (load.underLoad()) {
      why.add(new Why(Reason.UNDER_LOAD, String.format(Locale.ROOT, "GPU %s %% over the last %d s (threshold %.0f %%), "
              + "framebuffer %s %% used (threshold %.0f %%)", fmt(load.gpuUtilizationPct()), busy.window().toSeconds(),
          busy.gpuPct(), fmt(load.fbUsedPct()), busy.fbUsedPct())));
    }
    if (f.forecast() != null && f.forecast().p95Seconds() > maxStun.toSeconds()) {
      why.add(new Why(Reason.STUN_OVER_LIMIT, String.format(Locale.ROOT,
          "forecast stun %.1f s (p50), %.1f s (p95), over the %d s limit (api.plan.max-stun)",
          f.forecast().p50Seconds(), f.forecast().p95Seconds(), maxStun.toSeconds())));
    }
    if (Planner.wouldFail(f.forecast(), switchoverLimit)) {
      why.add(new Why(Reason.WOULD_FAIL, Planner.wouldFailBecause(f.forecast(), switchoverLimit)));
    }
    Instant next = clock.instant().truncatedTo(ChronoUnit.HOURS);
    Window quieter = null;
    for (int k = 1; k <= 24 && quieter == null; k++) {
      Instant start = next.plus(Duration.ofHours(k));
      Hour h = profile.get(start.atZone(ZoneOffset.UTC).getHour());
      if (h.gpuUtilizationPct() != null && h.gpuUtilizationPct() < busy.gpuPct()) {
        quieter = new Window(start, start.plus(Duration.ofHours(1)), h.gpuUtilizationPct(), h.days());
      }
    }
    return new Check(vmId, vm == null ? null : vm.name(), f.inputs().sourceHost(), why.isEmpty(), why, load,
        f.inputs(), f.forecast(), maxStun.toSeconds(), Planner.wouldFail(f.forecast(), switchoverLimit),
        switchoverLimit.toSeconds(), quieter, profile);
  }

  private static String fmt(Double v) {
    return v == null ? "unknown" : String.format(Locale.ROOT, "%.0f", v);
  }

  /**
   * The answer.
   *
   * @param safe              true when nothing in {@code reasons} stands against a move now
   * @param nextQuieterWindow the next hour whose average GPU utilization over the last 7 days was under the alert's
   *                          threshold; null when no hour of the profile was
   * @param byHourOfDay       the profile: GPU utilization by UTC hour of day, averaged over the last 7 days
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Check(String vmId, String vmName, String host, boolean safe, List<Why> reasons, Planner.LoadNow load,
      Planner.Inputs inputs, StunForecast forecast, long maxStunSeconds, boolean wouldFail,
      long switchoverLimitSeconds, Window nextQuieterWindow,
      List<Hour> byHourOfDay) {
  }

  /** One reason against a move now. */
  record Why(Reason code, String detail) {
  }

  /**
   * One hour of the day in the profile.
   *
   * @param hour              UTC hour, 0 to 23
   * @param gpuUtilizationPct average GPU utilization in that hour over the last 7 days; null with no readings
   * @param days              how many of those days had readings in that hour
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Hour(int hour, Double gpuUtilizationPct, int days) {
  }

  /** A quieter hour to come: when, and what the last 7 days say of it. */
  record Window(Instant start, Instant end, double expectedGpuUtilizationPct, int days) {
  }
}
