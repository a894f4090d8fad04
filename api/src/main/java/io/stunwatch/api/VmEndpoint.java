package io.stunwatch.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.LoadSource;
import io.stunwatch.processor.readmodel.CurrentLoad;
import io.stunwatch.processor.readmodel.LoadKeys;
import io.stunwatch.processor.readmodel.StoreNames;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * {@code GET /api/vms/{vm}/load}: the latest samples and the 10 s or 1 min windows of a VM, with the guest's and the
 * ESXi host's views side by side.
 */
final class VmEndpoint {

  private final StoreReader stores;
  private final ApiConfig config;
  private final Clock clock;
  /** {@code process.window-retention}: how long each VM keeps its 10 s and 1 min windows behind its newest. */
  private final Duration windowRetention;

  VmEndpoint(StoreReader stores, ApiConfig config, Clock clock, Duration windowRetention) {
    this.stores = stores;
    this.config = config;
    this.clock = clock;
    this.windowRetention = windowRetention;
  }

  void addRoutes(Router router, ApiServer.Responder respond) {
    router.get("/api/vms/:vm/load").handler(rc -> {
      Params p = new Params(rc);
      String vm = p.path("vm");
      String size = p.choice("window", Set.of("10s", "1m", "1h"), "1m");
      Instant now = clock.instant();
      TimeRange range = p.range(now.minus(Duration.ofHours(1)), now, config.maxRange());
      respond.json(rc, LoadViews.of(stores, vm).compose(views -> {
        CurrentLoad c = views.load().orElseThrow(() -> ApiException.notFound("load of VM " + vm));
        LoadSource source = views.chosen().orElseThrow();
        List<View> side = new ArrayList<>();
        views.guest().ifPresent(g -> side.add(View.of(LoadSource.GUEST, g)));
        views.host().ifPresent(h -> side.add(View.of(LoadSource.HOST, h)));
        Instant keptFrom = keptFrom(size, c.latest());
        return stores.loadWindows(LoadKeys.of(vm, source), size, range.from(), range.to()).map(w ->
            new Load(c.vmId(), c.vmName(), c.host(), c.inInventory(), source, c.latest(), c.fbUsedMiB(),
                c.vgpuProfile() == null ? null : c.vgpuProfile().name(), c.byGpu().values(), size, keptFrom, w,
                side));
      }));
    });
  }

  /**
   * The earliest start of the windows of {@code size} the VM keeps, given its newest sample at {@code latest}: the
   * 10 s and 1 min windows {@code process.window-retention} behind its newest window, the 1 h windows eight days.
   */
  Instant keptFrom(String size, Instant latest) {
    if (latest == null) {
      return null;
    }
    long width = switch (size) {
      case "1h" -> 3_600_000L;
      case "1m" -> 60_000L;
      default -> 10_000L;
    };
    long newest = latest.toEpochMilli() - Math.floorMod(latest.toEpochMilli(), width);
    Duration keep = "1h".equals(size) ? StoreNames.VM_LOAD_1H_RETENTION : windowRetention;
    return Instant.ofEpochMilli(newest).minus(keep);
  }

  /**
   * The answer: the VM's latest sample of each GPU and its windows, in the view {@code source} names (the guest's when
   * it has readings, else the ESXi host's), and each view it has, side by side. Unknown figures are written as null.
   * {@code windowsKeptFrom}: the VM keeps no window of this size that starts before it, so a range reaching further
   * back has no windows there, which says nothing of its load then.
   */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record Load(String vmId, String vmName, String host, boolean inInventory, LoadSource source, Instant latest,
      Long fbUsedMiB, String vgpuProfile, Collection<GpuSample> gpus, String window, Instant windowsKeptFrom,
      List<StoreReader.LoadWindow> windows, List<View> views) {
  }

  /** One view's latest figures. */
  @JsonInclude(JsonInclude.Include.ALWAYS)
  record View(LoadSource source, Instant latest, Double gpuUtilizationAvgPct, Long fbUsedMiB, Long fbTotalMiB,
      int gpus) {

    static View of(LoadSource source, CurrentLoad c) {
      return new View(source, c.latest(), c.gpuUtilizationAvgPct(), c.fbUsedMiB(), c.fbTotalMiB(), c.byGpu().size());
    }
  }
}
