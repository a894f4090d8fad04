package io.stunwatch.launcher.sim;

import io.stunwatch.model.LogMessage;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import java.time.Instant;
import java.util.List;

/**
 * What the simulated hosts log of a planned migration's vMotion: its phases in vmware.log, its bandwidth in
 * vmkernel.log.
 */
final class FleetVmotions {

  private FleetVmotions() {
  }

  /**
   * The vMotion as the VM's log tells it: the precopy from the start, 80 ms to stop the vCPUs, the stun, and the
   * resume at the end; the messages of a failure.
   */
  static VmotionObservation vmotion(FleetScenario.Plan p, Instant e, List<LogMessage> failure) {
    Instant stunned = e.minusMillis(p.stunMillis());
    Instant stunStart = stunned.minusMillis(80);
    boolean ok = failure.isEmpty();
    return new VmotionObservation(FleetScenario.VCENTER, p.vm().moref(), p.vm().name(), String.valueOf(p.chain()), e,
        p.start(), ok ? stunned.plusMillis(20) : null, stunStart, stunned, ok ? e : null, ok ? p.stunMillis() * 1000L : null,
        ok ? null : 100.0, failure, "[gpu-ds] " + p.vm().name() + "/vmware.log", 0);
  }

  /** A failed move's source log: the switchover took longer than the VM's limit, and ESXi said so. */
  static VmotionObservation switchoverTimeout(FleetScenario.Plan p, Instant e) {
    return vmotion(p, e, List.of(new LogMessage("msg.checkpoint.migration.maxSwitchoverTimeExceeded",
        "The migration has exceeded the maximum switchover time of 100 second(s). ESX has preemptively failed the "
        + "migration to allow the VM to continue running on the source.")));
  }

  /**
   * The source host's precopy stop: the 25 Gbit/s vMotion links' 3,125 MB/s, less a share that varies by move.
   *
   * @param host    the source host's name
   * @param stopped when the precopy stopped
   */
  static VmotionBandwidth bandwidth(FleetScenario.Plan p, String host, Instant stopped) {
    double mbps = Math.round((2300 + p.chain() % 600) * 1000.0) / 1000.0;
    return new VmotionBandwidth(String.valueOf(p.chain()), host, stopped, mbps, 512L + p.chain() % 4096, 0.5,
        "vmkernel.log", 0);
  }
}
