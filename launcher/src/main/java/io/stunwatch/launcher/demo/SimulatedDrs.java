package io.stunwatch.launcher.demo;

import io.stunwatch.collectors.vcenter.DrsOverrideControl;
import io.stunwatch.launcher.sim.FleetDrs;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.DrsOverride;
import java.io.FileNotFoundException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRS of the demo's simulated vCenter: its one cluster's per-VM overrides ({@code ConfigurationEx.drsVmConfig}),
 * which the DRS guard sets as it would in a vCenter, and which the fleet's DRS honours: a VM with an override that is
 * not fully automated, or with DRS off, is not moved on its own. The cluster itself is fully automated.
 *
 * <p>What DRS did not do is in no record, as in a vCenter, where it stays a recommendation: it is counted here.
 *
 * <p>Thread-safe: the guard changes the overrides while the fleet's thread reads them.
 */
final class SimulatedDrs implements DrsOverrideControl, FleetDrs {

  private static final Logger LOG = LoggerFactory.getLogger(SimulatedDrs.class);

  private final String cluster = FleetScenario.cluster().value();
  /** By VM moref. */
  private final Map<String, DrsOverride> overrides = new ConcurrentHashMap<>();
  private final AtomicInteger heldBack = new AtomicInteger();
  private final AtomicInteger heldBackUnderLoad = new AtomicInteger();
  /** The ids the processor would have given the migrations held back. */
  private final Set<String> heldBackIds = ConcurrentHashMap.newKeySet();

  @Override
  public Map<String, DrsOverride> drsOverrides(String clusterMoref) throws FileNotFoundException {
    check(clusterMoref);
    return Map.copyOf(overrides);
  }

  @Override
  public void setDrsOverride(String clusterMoref, String vmMoref, DrsOverride from, DrsOverride to)
      throws FileNotFoundException {
    check(clusterMoref);
    if (to == null) {
      overrides.remove(vmMoref);
    } else {
      overrides.put(vmMoref, to);
    }
  }

  private void check(String clusterMoref) throws FileNotFoundException {
    if (!cluster.equals(clusterMoref)) {
      throw new FileNotFoundException("the demo's vCenter has no cluster " + clusterMoref);
    }
  }

  @Override
  public boolean movesOnItsOwn(FleetScenario.Vm vm) {
    DrsOverride o = overrides.get(vm.moref());
    return o == null || (!Boolean.FALSE.equals(o.enabled())
        && (o.behavior() == null || o.behavior() == DrsOverride.Behavior.FULLY_AUTOMATED));
  }

  @Override
  public void heldBack(FleetScenario.Plan plan, boolean underLoad) {
    heldBackIds.add(plan.migrationId());
    heldBack.incrementAndGet();
    if (underLoad) {
      heldBackUnderLoad.incrementAndGet();
    }
    LOG.info("DRS did not move {} at {}: its override is {}{}", plan.vm().name(), plan.start(),
        overrides.get(plan.vm().moref()), underLoad ? ", and it is under load" : "");
  }

  /** The planned migrations DRS did not make, by the id the processor would have given them. */
  Set<String> heldBackIds() {
    return Set.copyOf(heldBackIds);
  }

  /** DRS migrations not made for a VM's override. */
  int heldBack() {
    return heldBack.get();
  }

  /** Those of a VM under load then. */
  int heldBackUnderLoad() {
    return heldBackUnderLoad.get();
  }
}
