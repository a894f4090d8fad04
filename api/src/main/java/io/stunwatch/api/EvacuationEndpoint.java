package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.VmInventoryEntry;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * {@code GET /api/hosts/{host}/evacuation}: what putting a host into maintenance mode would do to its GPU VMs. Every
 * VM the inventory places on the host now, with its load, whether it is under load, its stun forecast and expected
 * migration time, in a suggested order: idle VMs first, smallest stun first; busy ones last; a busy VM whose forecast
 * stun (p95) is over {@code api.plan.max-stun} deferred. Each row says why it is where it is.
 */
final class EvacuationEndpoint {

  private final Planner planner;
  private final Duration maxStun;
  private final Duration switchoverLimit;
  private final Clock clock;

  EvacuationEndpoint(Planner planner, Duration maxStun, Duration switchoverLimit, Clock clock) {
    this.switchoverLimit = switchoverLimit;
    this.planner = planner;
    this.maxStun = maxStun;
    this.clock = clock;
  }

  /** Where a VM goes in the plan. */
  enum Action {
    /** Idle: move it first. */
    MOVE,
    /** Under load, or its load unknown, with a stun within the limit: move it after the idle ones. */
    MOVE_LAST,
    /** Under load with a forecast stun over the limit: wait for a quieter time, or pause its job first. */
    DEFER,
    /**
     * Its forecast stun (p95) is over the switchover limit: ESXi would fail the move and leave it where it is. Raise
     * its {@code vmotion.maxSwitchoverSeconds}, free framebuffer, or power it off to move it.
     */
    WOULD_FAIL
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/hosts/:host/evacuation").handler(rc -> {
      Params p = new Params(rc);
      String host = p.path("host");
      respond.json(rc, planner.site().compose(site -> {
        List<VmInventoryEntry> on = site.vms().stream().filter(v -> v.host() != null
                && (host.equals(v.host().name()) || host.equals(v.host().value())))
            .sorted(Comparator.comparing(v -> v.name() == null ? v.moref() : v.name())).toList();
        if (on.isEmpty() && site.host(host) == null) {
          throw ApiException.notFound("host " + host + " in the inventory");
        }
        return Planner.each(on, vm -> row(site, vm, host)).map(rows -> plan(host, rows));
      }));
    });
  }

  private Future<Row> row(Planner.Site site, VmInventoryEntry vm, String host) {
    String vmId = vm.biosUuid();
    Future<Planner.LoadNow> load = vmId == null ? Future.succeededFuture(Planner.LoadNow.UNKNOWN)
        : planner.loadNow(vmId);
    return load.compose(l -> {
      Planner.Forecast f = planner.forecast(site, vm, l, host, null);
      Future<Planner.DurationEstimate> d = vmId == null
          ? Future.succeededFuture(new Planner.DurationEstimate(null, "UNKNOWN", 0)) : planner.duration(vmId, vm, f);
      return d.map(duration -> {
        StunForecast fc = f.forecast();
        Action action;
        String reason;
        if (Planner.wouldFail(fc, switchoverLimit)) {
          action = Action.WOULD_FAIL;
          reason = Planner.wouldFailBecause(fc, switchoverLimit);
        } else if (l.underLoad() == null) {
          action = Action.MOVE_LAST;
          reason = l.unknownBecause(clock.instant(), planner.busy().window()) + ": its load is unknown";
        } else if (!l.underLoad()) {
          action = Action.MOVE;
          reason = "idle" + (fc == null ? "" : String.format(Locale.ROOT, ": %.1f s stun forecast", fc.p50Seconds()));
        } else if (fc != null && fc.p95Seconds() > maxStun.toSeconds()) {
          action = Action.DEFER;
          reason = String.format(Locale.ROOT, "under load (%s) and its stun could reach %.0f s (p95), over the %d s "
              + "limit: move it when it is quieter, or pause its job", String.join(", ", l.busyBecause()),
              fc.p95Seconds(), maxStun.toSeconds());
        } else {
          action = Action.MOVE_LAST;
          reason = "under load (" + String.join(", ", l.busyBecause()) + ")" + (fc == null ? "" : String.format(
              Locale.ROOT, ": %.1f s stun forecast, within the %d s limit", fc.p50Seconds(), maxStun.toSeconds()));
        }
        return new Row(0, action, reason, vmId, vm.name(), f.inputs().vgpuProfile(), l.fbUsedMiB(),
            l.gpuUtilizationPct(), l.underLoad(), l.sampledAt(), l.source(), fc, duration);
      });
    });
  }

  private Plan plan(String host, List<Row> rows) {
    List<Row> sorted = rows.stream().sorted(Comparator.comparing(Row::action)
        .thenComparing(r -> r.forecast() == null ? Double.MAX_VALUE : r.forecast().p50Seconds())
        .thenComparing(r -> r.vmName() == null ? "" : r.vmName())).toList();
    List<Row> ordered = new ArrayList<>();
    double p50 = 0;
    double p95 = 0;
    double duration = 0;
    int unknownStun = 0;
    int unknownDuration = 0;
    for (Row r : sorted) {
      ordered.add(r.withOrder(ordered.size() + 1));
      if (r.forecast() == null) {
        unknownStun++;
      } else {
        p50 += r.forecast().p50Seconds();
        p95 += r.forecast().p95Seconds();
      }
      if (r.duration().p50Seconds() == null) {
        unknownDuration++;
      } else {
        duration += r.duration().p50Seconds();
      }
    }
    long deferred = sorted.stream().filter(r -> r.action() == Action.DEFER).count();
    long wouldFail = sorted.stream().filter(r -> r.action() == Action.WOULD_FAIL).count();
    // a sum of none is unknown, not 0 s
    boolean anyStun = unknownStun < sorted.size();
    boolean anyDuration = unknownDuration < sorted.size();
    return new Plan(host, clock.instant(), maxStun.toSeconds(), switchoverLimit.toSeconds(), ordered,
        new Totals(sorted.size(), deferred, wouldFail, anyStun ? p50 : null, anyStun ? p95 : null, unknownStun,
            anyDuration ? duration : null, unknownDuration));
  }

  /** The answer. */
  record Plan(String host, Instant at, long maxStunSeconds, long switchoverLimitSeconds, List<Row> vms,
      Totals totals) {
  }

  /**
   * One VM of the plan.
   *
   * @param order the suggested position, from 1
   * @param action where it goes
   * @param reason why, in words
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Row(int order, Action action, String reason, String vmId, String vmName, String vgpuProfile, Long fbUsedMiB,
      Double gpuUtilizationPct, Boolean underLoad, Instant newestReadingAt, LoadSource loadSource,
      StunForecast forecast, Planner.DurationEstimate duration) {

    Row withOrder(int n) {
      return new Row(n, action, reason, vmId, vmName, vgpuProfile, fbUsedMiB, gpuUtilizationPct, underLoad,
          newestReadingAt, loadSource, forecast, duration);
    }
  }

  /**
   * The whole evacuation, one VM after another: stun and migration time summed over the VMs whose figures are known;
   * null when no VM's is.
   *
   * @param wouldFail       VMs whose move would fail at the switchover limit
   * @param unknownStun     VMs without a stun forecast (framebuffer use unknown), left out of the stun sums
   * @param unknownDuration VMs without a migration time, left out of its sum
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Totals(int vms, long deferred, long wouldFail, Double stunP50Seconds, Double stunP95Seconds, int unknownStun,
      Double durationSeconds, int unknownDuration) {
  }
}
