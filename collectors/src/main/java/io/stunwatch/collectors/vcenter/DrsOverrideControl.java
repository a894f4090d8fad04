package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.DrsOverride;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Map;

/**
 * The per-VM DRS overrides of a vCenter's clusters: what the DRS guard reads and changes ({@link DrsGuard}). A
 * {@link VcenterConnection} is one; the demo's simulated cluster is another.
 */
public interface DrsOverrideControl {

  /**
   * The per-VM DRS overrides of cluster {@code clusterMoref} ({@code ConfigurationEx.drsVmConfig}), by VM moref.
   *
   * @throws FileNotFoundException when vCenter has no such cluster
   */
  Map<String, DrsOverride> drsOverrides(String clusterMoref) throws IOException;

  /**
   * Sets ({@code to} not null) or removes ({@code to} null) VM {@code vmMoref}'s DRS override in cluster
   * {@code clusterMoref} ({@code ReconfigureComputeResource_Task} with a {@code drsVmConfigSpec}), and waits for the
   * task. {@code from} is the override the VM has now, null for none: an add when it has none, an edit otherwise.
   * The change is incremental: every other VM's override stays as it is.
   *
   * @throws VcenterRefusedException when vCenter refuses the change (a missing privilege, an override that is not as
   *                                 {@code from} says), naming its fault
   */
  void setDrsOverride(String clusterMoref, String vmMoref, DrsOverride from, DrsOverride to) throws IOException;
}
