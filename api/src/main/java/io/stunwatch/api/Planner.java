package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.LoadSource;
import io.stunwatch.model.MigrationState;
import io.stunwatch.model.StunForecast;
import io.stunwatch.model.StunModelEntry;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.ForecastInputs;
import io.stunwatch.processor.readmodel.Forecasts;
import io.stunwatch.processor.readmodel.LoadAggregate;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.MigrationRow;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What moving a VM now would do, for the planning endpoints ({@link EvacuationEndpoint}, {@link MigrateCheckEndpoint}
 * and the stun forecast): the VM's load now and whether it is under load by the processor's alert thresholds, its
 * stun forecast ({@link Forecasts}) with the inputs it used, and its expected migration time.
 */
final class Planner {

  private final StoreReader stores;
  private final Busy busy;
  private final Clock clock;

  Planner(StoreReader stores, Busy busy, Clock clock) {
    this.stores = stores;
    this.busy = busy;
    this.clock = clock;
  }

  /**
   * When a VM counts as under load: the thresholds of the processor's migration-under-load alert
   * ({@code process.alert.*}), so that "under load now" means what a raised alert means.
   *
   * @param gpuPct    average GPU utilization over {@code window}, percent
   * @param fbUsedPct framebuffer used, percent of the VM's
   * @param window    the look-back of the average
   */
  record Busy(double gpuPct, double fbUsedPct, Duration window) {

    static Busy of(ProcessorConfig c) {
      return new Busy(c.alertGpuPct(), c.alertFbUsedPct(), c.alertWindow());
    }

    static final Busy DEFAULTS = of(ProcessorConfig.defaults());
  }

  /** The inventory and model, read once per request. */
  record Site(Map<String, StunModelEntry> model, List<VmInventoryEntry> vms, List<HostInventoryEntry> hosts)
      implements ForecastInputs.Hosts {

    /** A host named {@code name} (or with that moref) in any vCenter, or null. */
    HostInventoryEntry host(String name) {
      return hostNamed(null, name);
    }

    /**
     * The host named {@code name} (or with that moref) of vCenter {@code vcenterUuid} (any vCenter when null), or
     * null: host names are unique within a vCenter only.
     */
    HostInventoryEntry hostNamed(String vcenterUuid, String name) {
      if (name == null) {
        return null;
      }
      return hosts.stream().filter(h -> vcenterUuid == null || vcenterUuid.equals(h.vcenterUuid()))
          .filter(h -> name.equals(h.name())).findFirst()
          .orElse(hosts.stream().filter(h -> vcenterUuid == null || vcenterUuid.equals(h.vcenterUuid()))
              .filter(h -> name.equals(h.moref())).findFirst().orElse(null));
    }

    @Override
    public HostInventoryEntry host(String vcenterUuid, String moref) {
      return hosts.stream().filter(h -> h.vcenterUuid().equals(vcenterUuid) && h.moref().equals(moref)).findFirst()
          .orElse(null);
    }

    @Override
    public String vcenterVersion(String vcenterUuid) {
      return hosts.stream().filter(h -> h.vcenterUuid().equals(vcenterUuid)).map(HostInventoryEntry::vcenterVersion)
          .filter(v -> v != null).findFirst().orElse(null);
    }

    /** The inventory entry of the VM with id {@code vmId}, or null. */
    VmInventoryEntry vm(String vmId) {
      return vms.stream().filter(v -> vmId.equals(v.biosUuid())).findFirst().orElse(null);
    }
  }

  /** What "under load now" means. */
  Busy busy() {
    return busy;
  }

  Future<Site> site() {
    var model = stores.model();
    var vms = stores.vmInventory();
    var hosts = stores.hostInventory();
    return Future.all(model, vms, hosts).map(x -> new Site(
        model.result().stream().collect(Collectors.toMap(StunModelEntry::key, e -> e, (a, b) -> a)),
        vms.result(), hosts.result()));
  }

  /**
   * The VM's load now, in the view the processor would choose.
   *
   * @param gpuUtilizationPct average GPU utilization over the busy window, percent; null when unknown
   * @param fbUsedMiB         framebuffer used now, MiB; null when unknown
   * @param fbUsedPct         the same, percent of the VM's framebuffer
   * @param source            which view: the guest's or the ESXi host's
   * @param sampledAt         the newest reading; null when the VM has none in the busy window
   * @param underLoad         by the alert's thresholds; null when unknown (no readings in the window)
   * @param busyBecause       which thresholds it crossed: {@code GPU_UTILIZATION}, {@code FB_USED}
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record LoadNow(Double gpuUtilizationPct, Long fbUsedMiB, Double fbUsedPct, String vgpuProfile, LoadSource source,
      Instant sampledAt, Boolean underLoad, List<String> busyBecause) {

    static final LoadNow UNKNOWN = new LoadNow(null, null, null, null, null, null, null, List.of());

    /**
     * Readings too old to judge the load now by: only when the newest was taken, and the profile (which a reading
     * that old still names rightly). A site whose readings lag (catching up on a backlog, a collector stopped)
     * then says how old they are, not only that the load is unknown.
     */
    static LoadNow stale(CurrentLoad c, LoadSource source) {
      return new LoadNow(null, null, null, c.vgpuProfile() == null ? null : c.vgpuProfile().name(), source,
          c.latest(), null, List.of());
    }

    /** Why the load is unknown, in words, at {@code now} with the busy window {@code window}. */
    String unknownBecause(Instant now, Duration window) {
      if (sampledAt == null) {
        return "no GPU readings of it in the last " + human(window);
      }
      return "its newest GPU reading is " + human(Duration.between(sampledAt, now)) + " old (" + sampledAt
          + "), older than the " + human(window) + " its load is judged on: the site's readings lag, or its collector "
          + "stopped";
    }

    /** The latest readings of {@code c}, however old, with no verdict on load. */
    static LoadNow latest(CurrentLoad c, LoadSource source) {
      Long used = c.fbUsedMiB();
      Long total = c.fbTotalMiB();
      return new LoadNow(c.gpuUtilizationAvgPct(), used, used == null || total == null || total == 0 ? null
          : 100.0 * used / total, c.vgpuProfile() == null ? null : c.vgpuProfile().name(), source, c.latest(), null,
          List.of());
    }
  }

  /** The VM's load now; {@link LoadNow#UNKNOWN} without readings within the busy window. */
  Future<LoadNow> loadNow(String vmId) {
    Instant now = clock.instant();
    Instant from = now.minus(busy.window());
    return LoadViews.of(stores, vmId).compose(views -> {
      Optional<CurrentLoad> load = views.load();
      if (load.isEmpty() || load.get().latest() == null) {
        return Future.succeededFuture(LoadNow.UNKNOWN);
      }
      if (load.get().latest().isBefore(from)) {
        return Future.succeededFuture(LoadNow.stale(load.get(), views.chosen().orElse(null)));
      }
      CurrentLoad c = load.get();
      LoadSource source = views.chosen().orElseThrow();
      return stores.loadWindows(LoadKeys.of(vmId, source), "10s", from, now).map(windows -> {
        double sum = 0;
        int n = 0;
        for (StoreReader.LoadWindow w : windows) {
          LoadAggregate a = w.load();
          sum += a.gpuUtilSum();
          n += a.gpuUtilCount();
        }
        Double util = n == 0 ? c.gpuUtilizationAvgPct() : Double.valueOf(sum / n);
        Long used = c.fbUsedMiB();
        Long total = c.fbTotalMiB();
        Double fbPct = used == null || total == null || total == 0 ? null : 100.0 * used / total;
        List<String> because = new ArrayList<>();
        if (util != null && util >= busy.gpuPct()) {
          because.add("GPU_UTILIZATION");
        }
        if (fbPct != null && fbPct >= busy.fbUsedPct()) {
          because.add("FB_USED");
        }
        Boolean under = !because.isEmpty() ? Boolean.TRUE : util == null && fbPct == null ? null : Boolean.FALSE;
        return new LoadNow(util, used, fbPct, c.vgpuProfile() == null ? null : c.vgpuProfile().name(), source,
            c.latest(), under, because);
      });
    });
  }

  /**
   * What the forecast was made from.
   *
   * @param vgpuProfile    the VM's profile (from its readings, else the inventory)
   * @param fbUsedMiB      the framebuffer used it was made for
   * @param fbBucket       its bucket
   * @param sourceHost     the host the VM runs on
   * @param destHost       the destination asked about, or null
   * @param hostPair       {@code source->dest}, when the destination was given
   * @param linkMbps       the slower vMotion uplink of the two hosts (of the source alone without a destination)
   * @param vcenterVersion the vCenter's version, which VMware's figure is chosen by
   * @param sampledAt      the reading the framebuffer figure comes from
   * @param source         which view of the VM's load gave it
   * @param measuredBandwidthMBps the median precopy bandwidth the host pair reached in its past vMotions (the source
   *                       host's vmkernel.log), MB/s; null without a destination or without such vMotions
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Inputs(String vgpuProfile, Long fbUsedMiB, String fbBucket, String sourceHost, String destHost,
      String hostPair, Long linkMbps, String vcenterVersion, Instant sampledAt, LoadSource source,
      Double measuredBandwidthMBps) {
  }

  /** The forecast of moving a VM now, with its inputs; a null forecast when its framebuffer use is unknown. */
  record Forecast(Inputs inputs, StunForecast forecast) {
  }

  /** The forecast of moving the VM whose inventory entry is {@code vm} (or null) with load {@code load} to {@code to}. */
  Forecast forecast(Site site, VmInventoryEntry vm, LoadNow load, String host, String to) {
    String profile = load.vgpuProfile() != null ? load.vgpuProfile()
        : vm != null && vm.vgpuProfile() != null ? vm.vgpuProfile().name() : null;
    // the VM's own vCenter: a host name may stand for a host of each of several vCenters
    // a VM of the inventory: its own host and vCenter; else the named host, in whichever vCenter has it
    HostInventoryEntry named = vm != null && vm.host() != null ? null
        : site.hostNamed(vm == null ? null : vm.vcenterUuid(), host);
    String vcenter = vm != null ? vm.vcenterUuid() : named == null ? null : named.vcenterUuid();
    EntityRef source = vm != null && vm.host() != null ? vm.host() : ref(named);
    EntityRef dest = to == null ? null : ref(site.hostNamed(vcenter, to));
    if (to != null && dest == null) {
      dest = new EntityRef("HostSystem", to, to); // not in the inventory: a pair by name, no link speed
    }
    String from = source == null ? host : name(source.name(), source.value());
    Forecasts.Query q = ForecastInputs.query(profile, load.fbUsedMiB() == null ? 0 : load.fbUsedMiB() / 1024.0,
        vcenter, source, dest, site);
    StunModelEntry pair = q.hostPair() == null ? null
        : site.model().get(Forecasts.key(StunModelEntry.Group.HOST_PAIR, q.hostPair()));
    Inputs inputs = new Inputs(profile, load.fbUsedMiB(), load.fbUsedMiB() == null ? null
        : Forecasts.bucket(load.fbUsedMiB()), from, to, q.hostPair(), q.linkMbps(), q.vcenterVersion(),
        load.sampledAt(), load.source(), pair == null ? null : pair.p50BandwidthMBps());
    if (load.fbUsedMiB() == null) {
      return new Forecast(inputs, null);
    }
    return new Forecast(inputs, Forecasts.forecast(q, site.model()::get));
  }

  private static EntityRef ref(HostInventoryEntry h) {
    return h == null ? null : new EntityRef("HostSystem", h.moref(), h.name());
  }

  /**
   * How long moving the VM is expected to take.
   *
   * @param p50Seconds   the expected time, seconds; null when unknown
   * @param basis        {@code VM_HISTORY} (the median of its own past successful migrations),
   *                     {@code MEMORY_OVER_MEASURED_BANDWIDTH} (its memory at the bandwidth the host pair's precopies
   *                     reached, plus the stun), {@code MEMORY_OVER_LINK} (its memory at the vMotion link's line rate
   *                     plus the stun: a floor, as pages dirtied during the copy are sent again), or {@code UNKNOWN}
   * @param observations how many past migrations it rests on
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record DurationEstimate(Double p50Seconds, String basis, int observations) {
  }

  /**
   * Whether moving a VM with forecast {@code fc} would fail: its stun's p95 is over the switchover limit, after which
   * ESXi fails the vMotion and leaves the VM on its source.
   */
  static boolean wouldFail(StunForecast fc, Duration switchoverLimit) {
    return fc != null && fc.p95Seconds() > switchoverLimit.toSeconds();
  }

  /** Why {@link #wouldFail} says so, naming the limit. */
  static String wouldFailBecause(StunForecast fc, Duration switchoverLimit) {
    return String.format(Locale.ROOT, "would fail: its stun could reach %.0f s (p95), over the switchover limit of "
        + "%d s (vmotion.maxSwitchoverSeconds; api.plan.switchover-limit), after which ESXi fails the move and "
        + "leaves the VM where it is", fc.p95Seconds(), switchoverLimit.toSeconds());
  }

  /**
   * The migration time of the VM with id {@code vmId}, from its own history, else from its memory and the bandwidth
   * its host pair measured, else the link's.
   */
  Future<DurationEstimate> duration(String vmId, VmInventoryEntry vm, Forecast f) {
    return stores.migrationsOfVm(vmId).map(rows -> {
      double[] done = rows.stream().filter(r -> r.summary().migration().state() == MigrationState.SUCCEEDED)
          .map(MigrationRow::durationSeconds).filter(d -> d != null).mapToDouble(Double::doubleValue).toArray();
      if (done.length > 0) {
        return new DurationEstimate(Forecasts.median(done), "VM_HISTORY", done.length);
      }
      Double measured = f.inputs().measuredBandwidthMBps();
      if (vm != null && vm.memoryMiB() != null && measured != null && measured > 0 && f.forecast() != null) {
        // ESXi's "MB/s" taken as MiB/s: were it 10^6 bytes, the estimate would be 5 % short, within its spread
        return new DurationEstimate(vm.memoryMiB() / measured + f.forecast().p50Seconds(),
            "MEMORY_OVER_MEASURED_BANDWIDTH", 0);
      }
      Long link = f.inputs().linkMbps();
      if (vm != null && vm.memoryMiB() != null && link != null && link > 0 && f.forecast() != null) {
        double copy = vm.memoryMiB() * 8.388608 / link; // MiB to Mbit, over Mbit/s
        return new DurationEstimate(copy + f.forecast().p50Seconds(), "MEMORY_OVER_LINK", 0);
      }
      return new DurationEstimate(null, "UNKNOWN", 0);
    });
  }

  /** Every future of {@code in}, mapped, as one future of a list in the same order. */
  static <T, R> Future<List<R>> each(List<T> in, Function<T, Future<R>> f) {
    List<Future<R>> all = in.stream().map(f).toList();
    return Future.all(all).map(x -> all.stream().map(Future::result).toList());
  }

  private static String name(String name, String moref) {
    return name != null ? name : moref;
  }

  /** A duration as an admin reads it: "45 s", "4 min", "3 h", "2 d" (rounded down). */
  static String human(Duration d) {
    long s = d.toSeconds();
    if (s < 60 || (s < 120 && s % 60 != 0)) {
      return s + " s";
    }
    long m = s / 60;
    if (m < 120) {
      return m + " min";
    }
    return m / 60 < 48 ? m / 60 + " h" : m / 60 / 24 + " d";
  }
}
