package io.stunwatch.collectors.vcenter;

import io.stunwatch.model.DrsOverride;
import com.fasterxml.jackson.databind.JsonNode;
import com.vmware.vim25.ArrayUpdateOperation;
import com.vmware.vim25.ClusterConfigInfoEx;
import com.vmware.vim25.ClusterConfigSpecEx;
import com.vmware.vim25.ClusterDrsVmConfigInfo;
import com.vmware.vim25.ClusterDrsVmConfigSpec;
import com.vmware.vim25.DrsBehavior;
import com.vmware.vim25.Event;
import com.vmware.vim25.EventFilterSpec;
import com.vmware.vim25.EventFilterSpecByTime;
import com.vmware.vim25.ManagedObjectNotFound;
import com.vmware.vim25.LocalizedMethodFault;
import com.vmware.vim25.ManagedObjectReference;
import com.vmware.vim25.NoPermission;
import com.vmware.vim25.RuntimeFault;
import com.vmware.vim25.TaskInfo;
import com.vmware.vim25.VirtualDevice;
import com.vmware.vim25.VirtualMachineConfigInfo;
import com.vmware.vim25.VirtualPCIPassthroughVmiopBackingInfo;
import com.vmware.vim25.mo.ClusterComputeResource;
import com.vmware.vim25.mo.ComputeResource;
import com.vmware.vim25.mo.Datacenter;
import com.vmware.vim25.mo.EventHistoryCollector;
import com.vmware.vim25.mo.Folder;
import com.vmware.vim25.mo.HostSystem;
import com.vmware.vim25.mo.InventoryNavigator;
import com.vmware.vim25.mo.ManagedEntity;
import com.vmware.vim25.mo.ServiceInstance;
import com.vmware.vim25.mo.Task;
import com.vmware.vim25.mo.VirtualMachine;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URL;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.Comparator;
import java.util.GregorianCalendar;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TimeZone;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.X509TrustManager;

/**
 * One logged-in session of {@link YavijavaVcenterConnector}: the vim25 reads and writes a collector makes, each
 * answered as the JSON and records the collector maps, and the datastore files read over the same session's cookie.
 */
final class YavijavaVcenterConnection implements VcenterConnection {

  private static final int PAGE = 1000;

  private final URL sdkUrl;
  private final X509TrustManager trust;
  private final ServiceInstance si;
  private final String instanceUuid;

  /** Datacenter name to its inventory path ({@code Folder/Sub/DC}), as the datastore interface's dcPath wants. */
  private final Map<String, String> dcPaths = new ConcurrentHashMap<>();

  YavijavaVcenterConnection(ServiceInstance si, URL sdkUrl, X509TrustManager trust) {
    this.si = si;
    this.sdkUrl = sdkUrl;
    this.trust = trust;
    this.instanceUuid = si.getAboutInfo().getInstanceUuid();
  }

  /**
   * Every datacenter's inventory path, walked top-down from the root folder: a datacenter may sit in folders, and
   * the datastore interface finds it only by its full path. A {@code /} in a name is escaped as {@code %2f}.
   */
  private Map<String, String> datacenterPaths() throws IOException {
    Map<String, String> out = new HashMap<>();
    ArrayDeque<Map.Entry<Folder, String>> todo = new ArrayDeque<>();
    todo.add(Map.entry(si.getRootFolder(), ""));
    while (!todo.isEmpty()) {
      var next = todo.poll();
      ManagedEntity[] children = next.getKey().getChildEntity();
      for (ManagedEntity child : children == null ? new ManagedEntity[0] : children) {
        String path = next.getValue() + child.getName().replace("%", "%25").replace("/", "%2f");
        if (child instanceof Datacenter) {
          out.putIfAbsent(child.getName(), path);
        } else if (child instanceof Folder f) {
          todo.add(Map.entry(f, path + "/"));
        }
      }
    }
    return out;
  }

  @Override
  public String instanceUuid() {
    return instanceUuid;
  }

  @Override
  public List<JsonNode> eventsSince(Instant since) throws IOException {
    EventHistoryCollector collector = si.getEventManager().createCollectorForEvents(eventFilter(since));
    List<Event> events = new ArrayList<>();
    try {
      // The biggest page, then back to the oldest event of the time window: a new collector's view starts at its
      // latest page (on vcsim, the ten newest events of any type), and ReadNextEvents reads forward from there.
      collector.setCollectorPageSize(PAGE);
      collector.rewindCollector();
      Event[] page;
      while ((page = collector.readNextEvents(PAGE)) != null && page.length > 0) {
        for (Event e : page) {
          if (!e.getCreatedTime().toInstant().isBefore(since)) {
            events.add(e);
          }
        }
      }
    } finally {
      try {
        collector.destroyCollector();
      } catch (IOException | RuntimeException e) {
        // the session may be gone; the collector goes with it
      }
    }
    events.sort(Comparator.comparing((Event e) -> e.getCreatedTime().toInstant()).thenComparingInt(Event::getKey));
    return events.stream().map(VimObjects::toViJson).toList();
  }

  /** The host's vMotion link speed, Mbit/s; null when unknown (see {@link VmotionLinkSpeed}). */
  private Long vmotionSpeed(HostSystem h) {
    try {
      Object nics = h.getPropertyByPath("config.virtualNicManagerInfo");
      Object network = h.getPropertyByPath("config.network");
      return nics == null || network == null ? null
          : VmotionLinkSpeed.mbps(VimObjects.toViJson(nics), VimObjects.toViJson(network));
    } catch (RuntimeException e) {
      return null; // a host not connected has no config: its speed is unknown, the rest of it still counts
    }
  }

  /** Host moref to its cluster, built top-down: vcsim's parent references confuse yavijava's getParent(). */
  private Map<String, EntityRef> clustersByHost() throws IOException {
    Map<String, EntityRef> byHost = new HashMap<>();
    for (String type : List.of("ClusterComputeResource", "ComputeResource")) {
      for (ManagedEntity me : new InventoryNavigator(si.getRootFolder()).searchManagedEntities(type)) {
        ComputeResource cr = (ComputeResource) me;
        EntityRef ref = new EntityRef(cr.getMOR().getType(), cr.getMOR().getVal(), cr.getName());
        for (HostSystem h : cr.getHosts()) {
          byHost.putIfAbsent(h.getMOR().getVal(), ref);
        }
      }
    }
    return byHost;
  }

  @Override
  public Optional<JsonNode> taskInfo(String taskKey) throws IOException {
    ManagedObjectReference ref = new ManagedObjectReference();
    ref.setType("Task");
    ref.setVal(taskKey);
    try {
      TaskInfo info = new Task(si.getServerConnection(), ref).getTaskInfo();
      return Optional.ofNullable(info).map(VimObjects::toViJson);
    } catch (RuntimeException e) {
      // yavijava surfaces ManagedObjectNotFound of a property read as a runtime exception: the task is gone
      if (notFound(e)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public List<VmInventoryEntry> vms(Instant observedAt) throws IOException {
    Map<String, EntityRef> clusters = clustersByHost();
    Map<String, String> hostNames = new HashMap<>();
    List<VmInventoryEntry> out = new ArrayList<>();
    Map<String, String> paths = datacenterPaths();
    dcPaths.putAll(paths);
    for (ManagedEntity dcEntity : new InventoryNavigator(si.getRootFolder()).searchManagedEntities("Datacenter")) {
      Datacenter dc = (Datacenter) dcEntity;
      for (ManagedEntity me : new InventoryNavigator(dc).searchManagedEntities("VirtualMachine")) {
        VirtualMachine vm = (VirtualMachine) me;
        try {
          VirtualMachineConfigInfo config = vm.getConfig();
          if (config == null) {
            continue; // being created or orphaned: no config to report yet
          }
          List<String> backings = new ArrayList<>();
          if (config.getHardware() != null && config.getHardware().getDevice() != null) {
            for (VirtualDevice d : config.getHardware().getDevice()) {
              if (d.getBacking() instanceof VirtualPCIPassthroughVmiopBackingInfo b && b.getVgpu() != null) {
                backings.add(b.getVgpu());
              }
            }
          }
          ManagedObjectReference hostRef = vm.getRuntime() == null ? null : vm.getRuntime().getHost();
          EntityRef host = null;
          if (hostRef != null) {
            // a host removed while this VM is read: the VM is there, its host's name unknown
            String name = hostNames.computeIfAbsent(hostRef.getVal(), v -> {
              try {
                return new HostSystem(si.getServerConnection(), hostRef).getName();
              } catch (RuntimeException e) {
                if (notFound(e)) {
                  return null;
                }
                throw e;
              }
            });
            host = new EntityRef("HostSystem", hostRef.getVal(), name);
          }
          out.add(new VmInventoryEntry(instanceUuid, vm.getMOR().getVal(), vm.getName(),
              config.getUuid(), config.getInstanceUuid(), host,
              hostRef == null ? null : clusters.get(hostRef.getVal()), dc.getName(),
              config.getFiles() == null ? null : config.getFiles().getVmPathName(),
              config.getHardware() == null ? null : (long) config.getHardware().getMemoryMB(),
              backings, backings.isEmpty() ? null : VgpuProfile.parse(backings.get(0)).orElse(null), observedAt,
              vm.getGuest() == null ? null : vm.getGuest().getHostName()));
        } catch (RuntimeException e) {
          if (!notFound(e)) {
            throw e;
          }
          // removed from vCenter while this read went through the inventory: it is gone, as the next read says
        }
      }
    }
    return out;
  }

  @Override
  public List<HostInventoryEntry> hosts(Instant observedAt) throws IOException {
    Map<String, EntityRef> clusters = clustersByHost();
    List<HostInventoryEntry> out = new ArrayList<>();
    for (ManagedEntity me : new InventoryNavigator(si.getRootFolder()).searchManagedEntities("HostSystem")) {
      HostSystem h = (HostSystem) me;
      try {
        List<HostInventoryEntry.HostGpu> gpus = new ArrayList<>();
        if (h.getHardware() != null && h.getHardware().getPciDevice() != null) {
          for (var pci : h.getHardware().getPciDevice()) {
            // NVIDIA (0x10de) display (0x0300) or 3D (0x0302) controllers
            if (pci.getVendorId() == (short) 0x10de && (pci.getClassId() == 0x0300 || pci.getClassId() == 0x0302)) {
              gpus.add(new HostInventoryEntry.HostGpu(pci.getId(), pci.getDeviceName(), pci.getVendorName(), null));
            }
          }
        }
        var summary = h.getSummary();
        String esxi = summary == null || summary.getConfig() == null || summary.getConfig().getProduct() == null
            ? null : summary.getConfig().getProduct().getVersion();
        out.add(new HostInventoryEntry(instanceUuid, h.getMOR().getVal(), h.getName(),
            clusters.get(h.getMOR().getVal()), gpus, vmotionSpeed(h), observedAt, esxi,
            si.getAboutInfo().getVersion()));
      } catch (RuntimeException e) {
        if (!notFound(e)) {
          throw e;
        }
        // removed from vCenter while this read went through the hosts (each property is a call of its own): gone,
        // not a reason to log in again
      }
    }
    return out;
  }

  /** Whether a property read failed because its object is no longer in vCenter (yavijava wraps the fault). */
  private static boolean notFound(RuntimeException e) {
    return String.valueOf(e.getMessage()).contains("ManagedObjectNotFound")
        || e.getCause() instanceof ManagedObjectNotFound;
  }

  @Override
  public Map<String, DrsOverride> drsOverrides(String clusterMoref) throws IOException {
    ClusterComputeResource cluster = cluster(clusterMoref);
    Map<String, DrsOverride> out = new HashMap<>();
    try {
      if (cluster.getConfigurationEx() instanceof ClusterConfigInfoEx c && c.getDrsVmConfig() != null) {
        for (ClusterDrsVmConfigInfo info : c.getDrsVmConfig()) {
          out.put(info.getKey().getVal(), new DrsOverride(info.getBehavior() == null ? null
              : DrsOverride.Behavior.ofVim(info.getBehavior().toString()), info.getEnabled()));
        }
      }
    } catch (RuntimeException e) {
      throw new IOException("cannot read the DRS overrides of " + clusterMoref + ": "
          + YavijavaVcenterConnector.rootMessage(e), e);
    }
    return out;
  }

  @Override
  public void setDrsOverride(String clusterMoref, String vmMoref, DrsOverride from, DrsOverride to)
      throws IOException {
    ClusterComputeResource cluster = cluster(clusterMoref);
    ManagedObjectReference vm = new ManagedObjectReference();
    vm.setType("VirtualMachine");
    vm.setVal(vmMoref);
    ClusterDrsVmConfigSpec spec = new ClusterDrsVmConfigSpec();
    if (to == null) {
      spec.setOperation(ArrayUpdateOperation.remove);
      spec.setRemoveKey(vm);
    } else {
      ClusterDrsVmConfigInfo info = new ClusterDrsVmConfigInfo();
      info.setKey(vm);
      info.setEnabled(to.enabled());
      info.setBehavior(to.behavior() == null ? null : DrsBehavior.valueOf(to.behavior().vimName()));
      spec.setOperation(from == null ? ArrayUpdateOperation.add : ArrayUpdateOperation.edit);
      spec.setInfo(info);
    }
    ClusterConfigSpecEx change = new ClusterConfigSpecEx();
    change.setDrsVmConfigSpec(new ClusterDrsVmConfigSpec[] {spec});
    String what = (to == null ? "removing" : from == null ? "adding" : "editing") + " the DRS override of "
        + vmMoref + " in " + clusterMoref;
    try {
      // modify=true: only what the spec names changes (false would reset every setting the spec leaves out)
      Task task = cluster.reconfigureComputeResource_Task(change, true);
      if (!Task.SUCCESS.equals(task.waitForTask())) {
        TaskInfo info = task.getTaskInfo();
        LocalizedMethodFault fault = info == null ? null : info.getError();
        throw new VcenterRefusedException(fault == null || fault.getFault() == null ? null
            : fault.getFault().getClass().getSimpleName(), what + ": " + (fault == null ? "the task failed"
            : fault.getLocalizedMessage()));
      }
    } catch (NoPermission e) {
      throw new VcenterRefusedException("NoPermission", what + ": no permission " + e.getPrivilegeId()
          + " on " + clusterMoref);
    } catch (RuntimeFault e) {
      throw new VcenterRefusedException(e.getClass().getSimpleName(),
          what + ": " + YavijavaVcenterConnector.rootMessage(e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(what + ": interrupted", e);
    } catch (java.rmi.RemoteException | RuntimeException e) {
      throw new IOException(what + ": " + YavijavaVcenterConnector.rootMessage(e), e);
    }
  }

  /** The cluster {@code moref}; vCenter does not check a reference until it is used, so its name is read. */
  private ClusterComputeResource cluster(String moref) throws IOException {
    ManagedObjectReference ref = new ManagedObjectReference();
    ref.setType("ClusterComputeResource");
    ref.setVal(moref);
    ClusterComputeResource cluster = new ClusterComputeResource(si.getServerConnection(), ref);
    try {
      cluster.getName();
    } catch (RuntimeException e) {
      if (notFound(e)) {
        throw new FileNotFoundException("no cluster " + moref + " in " + sdkUrl);
      }
      throw new IOException("cannot read cluster " + moref + ": " + YavijavaVcenterConnector.rootMessage(e), e);
    }
    return cluster;
  }

  @Override
  public Tail datastoreTail(String datacenter, String datastore, String path, long maxBytes) throws IOException {
    return files().tail(datacenterPath(datacenter), datastore, path, maxBytes);
  }

  @Override
  public List<String> datastoreDirectory(String datacenter, String datastore, String dir) throws IOException {
    return files().directory(datacenterPath(datacenter), datastore, dir);
  }

  private DatastoreHttp files() {
    return new DatastoreHttp(sdkUrl, trust, si.getServerConnection().getSessionStr());
  }

  /** The inventory path of the datacenter named {@code name}: {@code name} itself when at the top. */
  String datacenterPath(String name) throws IOException {
    if (!dcPaths.containsKey(name)) {
      dcPaths.putAll(datacenterPaths()); // a new session reads files before its first inventory
    }
    return dcPaths.getOrDefault(name, name);
  }

  @Override
  public void close() {
    try {
      si.getServerConnection().logout();
    } catch (RuntimeException e) {
      // already gone
    }
  }

  /** The filter of {@code eventsSince}: the migration-relevant types, created at or after {@code since}. */
  static EventFilterSpec eventFilter(Instant since) {
    EventFilterSpec spec = new EventFilterSpec();
    EventFilterSpecByTime time = new EventFilterSpecByTime();
    time.setBeginTime(calendar(since));
    spec.setTime(time);
    spec.setEventTypeId(MigrationEventTypes.EVENT_TYPE_IDS.toArray(String[]::new));
    return spec;
  }

  private static Calendar calendar(Instant t) {
    GregorianCalendar c = new GregorianCalendar(TimeZone.getTimeZone("UTC"));
    c.setTimeInMillis(t.toEpochMilli());
    return c;
  }
}
