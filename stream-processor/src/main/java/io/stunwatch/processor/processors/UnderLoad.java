package io.stunwatch.processor.processors;

import io.stunwatch.model.MigrationAlert;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.readmodel.VmSamples;
import java.util.ArrayList;
import java.util.List;

/**
 * "Under load", as the migration alert and the DRS guard both judge it: the thresholds ({@code process.alert.*}) a
 * VM's load over the alert window crosses. One definition, so that the guard protects exactly the VMs whose
 * migration would raise the alert.
 */
final class UnderLoad {

  private UnderLoad() {
  }

  /** Whether {@code load} has any figure: a VM with no samples in the window has an unknown load, not a low one. */
  static boolean known(VmSamples.Load load) {
    return load.seconds() > 0 || load.fbUsedMiB() != null || load.rdmaBitsPerSec() != null;
  }

  /** The thresholds {@code load} crosses; empty when it crosses none or is unknown. */
  static List<MigrationAlert.Reason> reasons(VmSamples.Load load, ProcessorConfig config) {
    List<MigrationAlert.Reason> reasons = new ArrayList<>();
    if (load.gpuUtilizationAvgPct() != null && load.gpuUtilizationAvgPct() >= config.alertGpuPct()) {
      reasons.add(MigrationAlert.Reason.GPU_UTILIZATION);
    }
    if (load.fbUsedPct() != null && load.fbUsedPct() >= config.alertFbUsedPct()) {
      reasons.add(MigrationAlert.Reason.FB_USED);
    }
    if (load.rdmaBitsPerSec() != null && load.rdmaBitsPerSec() >= config.alertRdmaGbps() * 1e9) {
      reasons.add(MigrationAlert.Reason.RDMA_RATE);
    }
    return reasons;
  }

  /** The figures of {@code load}, read from {@code history}, as an alert and a guard decision show them. */
  static MigrationAlert.Load figures(VmSamples.Load load, VmSamples history, ProcessorConfig config) {
    return new MigrationAlert.Load(load.gpuUtilizationAvgPct(), config.alertWindow().toSeconds(), load.fbUsedMiB(),
        load.fbUsedPct(), load.rdmaBitsPerSec(), load.seconds() == 0 && load.fbUsedMiB() == null ? null
        : history.gpuSource());
  }
}
