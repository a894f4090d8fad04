package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.DatacenterEventArgument;
import com.vmware.vim25.DatastoreEventArgument;
import com.vmware.vim25.EnteringMaintenanceModeEvent;
import com.vmware.vim25.Event;
import com.vmware.vim25.EventFilterSpec;
import com.vmware.vim25.EventFilterSpecByEntity;
import com.vmware.vim25.EventFilterSpecRecursionOption;
import com.vmware.vim25.HostConnectSpec;
import com.vmware.vim25.HostEventArgument;
import com.vmware.vim25.TaskEvent;
import com.vmware.vim25.TaskInfo;
import com.vmware.vim25.TaskInfoState;
import com.vmware.vim25.VirtualMachineRelocateSpec;
import com.vmware.vim25.VmEventArgument;
import com.vmware.vim25.VmMigratedEvent;
import com.vmware.vim25.VmPoweredOnEvent;
import com.vmware.vim25.mo.ClusterComputeResource;
import com.vmware.vim25.mo.Datacenter;
import com.vmware.vim25.mo.Datastore;
import com.vmware.vim25.mo.HostSystem;
import com.vmware.vim25.mo.InventoryNavigator;
import com.vmware.vim25.mo.ManagedEntity;
import com.vmware.vim25.mo.ServiceInstance;
import com.vmware.vim25.mo.Task;
import com.vmware.vim25.mo.VirtualMachine;
import com.vmware.vim25.ws.CustomSSLTrustContextCreator;
import io.stunwatch.testsupport.Vcsim;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;

/**
 * What a vCenter admin does to a running vcsim in the ITs: relocates VMs (posting the events vcsim does not post
 * itself) and writes the files ESXi would write into a VM's directory.
 */
public final class VcsimAdmin {

  private final Vcsim vcsim;
  private final ServiceInstance si;

  public VcsimAdmin(Vcsim vcsim) throws Exception {
    this.vcsim = vcsim;
    // yavijava caches the first trust manager's context process-wide: reset it, as the connector does
    synchronized (CustomSSLTrustContextCreator.class) {
      CustomSSLTrustContextCreator.setContextAlreadyCreated(false);
      this.si = new ServiceInstance(vcsim.sdk().toURL(), vcsim.username(), vcsim.password(),
          VcenterTrust.pinned(vcsim.sha256()), 30_000, 60_000);
    }
  }

  public ServiceInstance serviceInstance() {
    return si;
  }

  /** The simulator's VMs, at least four. */
  public List<VirtualMachine> vms() throws Exception {
    List<VirtualMachine> out = new ArrayList<>();
    for (ManagedEntity e : new InventoryNavigator(si.getRootFolder()).searchManagedEntities("VirtualMachine")) {
      out.add((VirtualMachine) e);
    }
    assertThat(out).hasSizeGreaterThanOrEqualTo(4);
    return out;
  }

  /** Relocates the VM to another host, then posts the VmMigratedEvent vcsim does not post itself; its key. */
  public int relocateAndPost(VirtualMachine vm) throws Exception {
    HostSystem from = hostOf(vm);
    HostSystem to = null;
    for (ManagedEntity h : new InventoryNavigator(si.getRootFolder()).searchManagedEntities("HostSystem")) {
      if (!h.getMOR().getVal().equals(from.getMOR().getVal())) {
        to = (HostSystem) h;
        break;
      }
    }
    return relocateAndPost(vm, to);
  }

  /** The host the VM runs on. */
  public HostSystem hostOf(VirtualMachine vm) throws Exception {
    return new HostSystem(si.getServerConnection(), vm.getRuntime().getHost());
  }

  /** The host of that name. */
  public HostSystem host(String name) throws Exception {
    for (ManagedEntity h : new InventoryNavigator(si.getRootFolder()).searchManagedEntities("HostSystem")) {
      if (h.getName().equals(name)) {
        return (HostSystem) h;
      }
    }
    throw new AssertionError("vcsim has no host " + name);
  }

  /** Adds a host of that name to the first cluster, as an admin adds a new ESXi host to vCenter. */
  public HostSystem addHost(String name) throws Exception {
    ClusterComputeResource cluster = (ClusterComputeResource) new InventoryNavigator(si.getRootFolder())
        .searchManagedEntities("ClusterComputeResource")[0];
    HostConnectSpec spec = new HostConnectSpec();
    spec.setHostName(name);
    spec.setUserName("root");
    spec.setPassword("unused-by-vcsim");
    spec.setForce(true);
    Task task = cluster.addHost_Task(spec, true, null, null);
    assertThat(task.waitForTask()).isEqualTo(Task.SUCCESS);
    return host(name);
  }

  /** Removes a host without VMs from vCenter. */
  public void removeHost(String name) throws Exception {
    Task task = host(name).destroy_Task();
    assertThat(task.waitForTask()).isEqualTo(Task.SUCCESS);
  }

  /** Relocates the VM to {@code to}, then posts the VmMigratedEvent vcsim does not post itself; its key. */
  public int relocateAndPost(VirtualMachine vm, HostSystem to) throws Exception {
    HostSystem from = hostOf(vm);
    VirtualMachineRelocateSpec spec = new VirtualMachineRelocateSpec();
    spec.setHost(to.getMOR());
    Task task = vm.relocateVM_Task(spec);
    // vCenter posts a TaskEvent holding the TaskInfo as it was at creation; vcsim posts none, so the test does,
    // and the collector must follow the real task from there to its final state.
    TaskInfo snapshot = task.getTaskInfo();
    snapshot.setState(TaskInfoState.running);
    snapshot.setCompleteTime(null);
    TaskEvent announce = new TaskEvent();
    announce.setInfo(snapshot);
    announce.setVm(vmArg(vm));
    announce.setUserName(vcsim.username());
    announce.setCreatedTime(Calendar.getInstance());
    si.getEventManager().postEvent(announce, null);
    assertThat(task.waitForTask()).isEqualTo(Task.SUCCESS);
    assertThat(task.getTaskInfo().getState()).isEqualTo(TaskInfoState.success);

    Datacenter dc = (Datacenter) new InventoryNavigator(si.getRootFolder()).searchManagedEntities("Datacenter")[0];
    Datastore ds = vm.getDatastores()[0];
    VmMigratedEvent e = new VmMigratedEvent();
    e.setVm(vmArg(vm));
    e.setHost(hostArg(to));
    e.setSourceHost(hostArg(from));
    e.setDs(dsArg(ds));
    e.setSourceDatastore(dsArg(ds));
    DatacenterEventArgument dca = new DatacenterEventArgument();
    dca.setName(dc.getName());
    dca.setDatacenter(dc.getMOR());
    e.setDatacenter(dca);
    e.setUserName(vcsim.username());
    e.setCreatedTime(Calendar.getInstance());
    si.getEventManager().postEvent(e, null);
    // PostEvent returns nothing: the newest VmMigratedEvent of this VM is ours
    return newestEventKey(vm);
  }

  /** Posts an EnteringMaintenanceModeEvent of the host, as vCenter does when an admin puts it in maintenance mode. */
  public void postEnteringMaintenance(HostSystem h) throws Exception {
    EnteringMaintenanceModeEvent e = new EnteringMaintenanceModeEvent();
    e.setHost(hostArg(h));
    e.setUserName(vcsim.username());
    e.setCreatedTime(Calendar.getInstance());
    si.getEventManager().postEvent(e, null);
  }

  /** Posts a VmPoweredOnEvent of the VM, as a host does on a power-on; its key. */
  public int postPowerOn(VirtualMachine vm) throws Exception {
    VmPoweredOnEvent e = new VmPoweredOnEvent();
    e.setVm(vmArg(vm));
    e.setHost(hostArg(new HostSystem(si.getServerConnection(), vm.getRuntime().getHost())));
    e.setUserName(vcsim.username());
    e.setCreatedTime(Calendar.getInstance());
    si.getEventManager().postEvent(e, null);
    return newestEventKey(vm, VmPoweredOnEvent.class);
  }

  private int newestEventKey(VirtualMachine vm) throws Exception {
    return newestEventKey(vm, VmMigratedEvent.class);
  }

  private int newestEventKey(VirtualMachine vm, Class<? extends Event> type) throws Exception {
    EventFilterSpec spec = new EventFilterSpec();
    EventFilterSpecByEntity byEntity = new EventFilterSpecByEntity();
    byEntity.setEntity(vm.getMOR());
    byEntity.setRecursion(EventFilterSpecRecursionOption.self);
    spec.setEntity(byEntity);
    int newest = -1;
    for (Event ev : si.getEventManager().queryEvents(spec)) {
      if (type.isInstance(ev)) {
        newest = Math.max(newest, ev.getKey());
      }
    }
    assertThat(newest).as("posted " + type.getSimpleName() + " of " + vm.getName()).isPositive();
    return newest;
  }

  /** Writes a file into the VM's directory, where vcsim's datastore keeps it, as ESXi writes vmware.log. */
  public Path writeVmFile(VirtualMachine vm, String name, byte[] content) throws Exception {
    Datastore ds = vm.getDatastores()[0];
    String url = ds.getInfo().getUrl(); // vcsim keeps each datastore in a local directory
    String vmx = vm.getConfig().getFiles().getVmPathName(); // "[LocalDS_0] DC0_H0_VM0/DC0_H0_VM0.vmx"
    String dir = vmx.substring(vmx.indexOf(']') + 1).trim();
    dir = dir.substring(0, dir.lastIndexOf('/'));
    Path file = Path.of(URI.create(url.startsWith("file:") ? url : "file://" + url).getPath(), dir, name);
    Files.createDirectories(file.getParent());
    Files.write(file, content);
    return file;
  }

  /** The VM's directory as the collector names its files: {@code [datastore] dir/}. */
  static String vmDir(VirtualMachine vm) throws Exception {
    String vmx = vm.getConfig().getFiles().getVmPathName();
    return vmx.substring(0, vmx.lastIndexOf('/') + 1);
  }

  private static VmEventArgument vmArg(VirtualMachine vm) {
    VmEventArgument a = new VmEventArgument();
    a.setName(vm.getName());
    a.setVm(vm.getMOR());
    return a;
  }

  private static HostEventArgument hostArg(HostSystem h) {
    HostEventArgument a = new HostEventArgument();
    a.setName(h.getName());
    a.setHost(h.getMOR());
    return a;
  }

  private static DatastoreEventArgument dsArg(Datastore ds) {
    DatastoreEventArgument a = new DatastoreEventArgument();
    a.setName(ds.getName());
    a.setDatastore(ds.getMOR());
    return a;
  }
}
