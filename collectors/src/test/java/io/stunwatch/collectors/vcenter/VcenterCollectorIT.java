package io.stunwatch.collectors.vcenter;

import static org.assertj.core.api.Assertions.assertThat;

import com.vmware.vim25.DatacenterEventArgument;
import com.vmware.vim25.DatastoreEventArgument;
import com.vmware.vim25.HostEventArgument;
import com.vmware.vim25.TaskEvent;
import com.vmware.vim25.TaskInfo;
import com.vmware.vim25.TaskInfoState;
import com.vmware.vim25.UserSession;
import com.vmware.vim25.VirtualMachineRelocateSpec;
import com.vmware.vim25.VmEventArgument;
import com.vmware.vim25.VmMigratedEvent;
import com.vmware.vim25.mo.Datacenter;
import com.vmware.vim25.mo.Datastore;
import com.vmware.vim25.mo.HostSystem;
import com.vmware.vim25.mo.InventoryNavigator;
import com.vmware.vim25.mo.ManagedEntity;
import com.vmware.vim25.mo.ServiceInstance;
import com.vmware.vim25.mo.Task;
import com.vmware.vim25.mo.VirtualMachine;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedRecord;
import io.stunwatch.testsupport.Await;
import io.stunwatch.testsupport.KafkaBrokerExtension;
import io.stunwatch.testsupport.TopicContents;
import io.stunwatch.testsupport.Vcsim;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The vCenter collector against the real vCenter simulator (TLS, pinned thumbprint) and a real broker: VMs are
 * relocated with RelocateVM_Task and their migration events posted with PostEvent, as vcsim posts none itself.
 */
class VcenterCollectorIT {

  @RegisterExtension
  static final KafkaBrokerExtension KAFKA = KafkaBrokerExtension.perClass();

  static Vcsim vcsim;
  static ServiceInstance admin;

  @BeforeAll
  static void start() throws Exception {
    vcsim = Vcsim.start(true);
    admin = new ServiceInstance(vcsim.sdk().toURL(), vcsim.username(), vcsim.password(),
        VcenterTrust.pinned(vcsim.sha256()), 30_000, 60_000);
  }

  @AfterAll
  static void stop() {
    if (vcsim != null) {
      vcsim.close();
    }
  }

  private VcenterCollector collector() throws Exception {
    VcenterConfig config = new VcenterConfig(List.of(vcsim.sdk().toURL()), vcsim.username(), vcsim.password(),
        Map.of("127.0.0.1", vcsim.sha256()), null, false, Duration.ofMillis(200), Duration.ofSeconds(2),
        Duration.ofHours(1));
    URI sdk = vcsim.sdk();
    VcenterCollector c = new VcenterCollector(new YavijavaVcenterConnector(sdk.toURL(), vcsim.username(),
        vcsim.password().toCharArray(), config.trustFor(sdk.toURL())), config,
        Map.of("bootstrap.servers", KAFKA.bootstrapServers()), Clock.systemUTC());
    c.start();
    return c;
  }

  @Test
  void migrationsArePublishedExactlyOnceAcrossRestartsAndSessionLossWithTheirVmwareLogStun() throws Exception {
    List<VirtualMachine> vms = vms();
    List<Integer> posted = new ArrayList<>();
    // 2099: a log time far in the future (a skewed host clock) must not block publishing
    plantVmwareLog(vms.get(0), "2099-01-01T00:00:05.000Z| vcpu-0| I125: Checkpoint_Unstun: vm stopped for 2750000 us");

    try (VcenterCollector first = collector()) {
      posted.add(relocateAndPost(vms.get(0)));
      posted.add(relocateAndPost(vms.get(1)));
      awaitPublished(posted);
      Await.until(Duration.ofSeconds(30), () -> stuns().size() >= 1, "the planted vmware.log stun");
    }

    // Posted while no collector runs: must be picked up from the checkpoint, nothing older repeated.
    posted.add(relocateAndPost(vms.get(2)));
    try (VcenterCollector second = collector()) {
      awaitPublished(posted);
      // Drop every session but the admin's: the collector must log in again and resume.
      String adminKey = admin.getSessionManager().getCurrentSession().getKey();
      List<String> others = new ArrayList<>();
      for (UserSession s : admin.getSessionManager().getSessionList()) {
        if (!s.getKey().equals(adminKey)) {
          others.add(s.getKey());
        }
      }
      admin.getSessionManager().terminateSession(others.toArray(String[]::new));
      posted.add(relocateAndPost(vms.get(3)));
      awaitPublished(posted);
      assertThat(second.reconnects()).as("logged in again after the session was terminated").isPositive();
    }

    Map<String, Integer> counts = new HashMap<>();
    for (VcenterEvent e : events()) {
      counts.merge(e.dedupeId(), 1, Integer::sum);
    }
    assertThat(counts).as("every event exactly once").allSatisfy((id, n) -> assertThat(n).as(id).isEqualTo(1));
    // every RelocateVM_Task was followed from its TaskEvent to its final TaskInfo
    List<VcenterEvent> taskInfos = events().stream().filter(e -> VcenterEvent.TASK_INFO.equals(e.eventType()))
        .filter(e -> "success".equals(e.task().state())).toList();
    assertThat(taskInfos).as("final TaskInfo per relocation").hasSizeGreaterThanOrEqualTo(4)
        .allSatisfy(e -> {
          assertThat(e.task().completeTime()).isNotNull();
          assertThat(e.task().descriptionId()).isIn(MigrationEventTypes.MIGRATION_TASKS);
        });
    List<StunObservation> stuns = stuns();
    assertThat(stuns).singleElement().satisfies(s -> {
      assertThat(s.stunMicros()).isEqualTo(2_750_000L);
      assertThat(s.vmMoref()).isEqualTo(vms.get(0).getMOR().getVal());
      assertThat(s.logFile()).endsWith("vmware.log");
    });
    assertThat(read(Topics.VM_INVENTORY).stream().filter(r -> r.value() != null).map(r -> r.value().moref()))
        .contains(vms.get(0).getMOR().getVal());
    // Keyed by VM id (SMBIOS UUID), as the VMs' samples are: no repartition hop to meet them, no inventory to wait for
    Map<String, String> ids = new HashMap<>();
    for (VirtualMachine vm : vms) {
      ids.put(vm.getMOR().getVal(), vm.getConfig().getUuid().toLowerCase(java.util.Locale.ROOT));
    }
    assertThat(read(Topics.VCENTER_EVENTS)).filteredOn(r -> r.value().vm() != null)
        .allSatisfy(r -> assertThat(r.key()).isEqualTo(ids.get(r.value().vm().value())));
    assertThat(read(Topics.STUN_OBSERVATIONS)).singleElement()
        .satisfies(r -> assertThat(r.key()).isEqualTo(ids.get(vms.get(0).getMOR().getVal())));
  }

  private void awaitPublished(List<Integer> keys) {
    Await.until(Duration.ofSeconds(60), () -> events().stream().map(e -> (int) e.eventKey()).toList()
        .containsAll(keys), "events " + keys + " published", () -> events().stream().map(VcenterEvent::eventKey)
        .toList());
  }

  /** Relocates the VM to another host, then posts the VmMigratedEvent vcsim does not post itself; its key. */
  private int relocateAndPost(VirtualMachine vm) throws Exception {
    HostSystem from = new HostSystem(admin.getServerConnection(), vm.getRuntime().getHost());
    HostSystem to = null;
    for (ManagedEntity h : new InventoryNavigator(admin.getRootFolder()).searchManagedEntities("HostSystem")) {
      if (!h.getMOR().getVal().equals(from.getMOR().getVal())) {
        to = (HostSystem) h;
        break;
      }
    }
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
    announce.setCreatedTime(java.util.Calendar.getInstance());
    admin.getEventManager().postEvent(announce, null);
    assertThat(task.waitForTask()).isEqualTo(Task.SUCCESS);
    assertThat(task.getTaskInfo().getState()).isEqualTo(TaskInfoState.success);

    Datacenter dc = (Datacenter) new InventoryNavigator(admin.getRootFolder()).searchManagedEntities("Datacenter")[0];
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
    e.setCreatedTime(java.util.Calendar.getInstance());
    admin.getEventManager().postEvent(e, null);
    // PostEvent returns nothing: the newest VmMigratedEvent of this VM is ours
    return newestEventKey(vm);
  }

  private int newestEventKey(VirtualMachine vm) throws Exception {
    com.vmware.vim25.EventFilterSpec spec = new com.vmware.vim25.EventFilterSpec();
    com.vmware.vim25.EventFilterSpecByEntity byEntity = new com.vmware.vim25.EventFilterSpecByEntity();
    byEntity.setEntity(vm.getMOR());
    byEntity.setRecursion(com.vmware.vim25.EventFilterSpecRecursionOption.self);
    spec.setEntity(byEntity);
    int newest = -1;
    for (com.vmware.vim25.Event ev : admin.getEventManager().queryEvents(spec)) {
      if (ev instanceof VmMigratedEvent) {
        newest = Math.max(newest, ev.getKey());
      }
    }
    assertThat(newest).as("posted VmMigratedEvent of " + vm.getName()).isPositive();
    return newest;
  }

  private void plantVmwareLog(VirtualMachine vm, String content) throws Exception {
    Datastore ds = vm.getDatastores()[0];
    String url = ds.getInfo().getUrl(); // vcsim keeps each datastore in a local directory
    String vmx = vm.getConfig().getFiles().getVmPathName(); // "[LocalDS_0] DC0_H0_VM0/DC0_H0_VM0.vmx"
    String dir = vmx.substring(vmx.indexOf(']') + 1).trim();
    dir = dir.substring(0, dir.lastIndexOf('/'));
    Path log = Path.of(URI.create(url.startsWith("file:") ? url : "file://" + url).getPath(), dir, "vmware.log");
    Files.createDirectories(log.getParent());
    Files.writeString(log, content + "\n");
  }

  private List<VirtualMachine> vms() throws Exception {
    List<VirtualMachine> out = new ArrayList<>();
    for (ManagedEntity e : new InventoryNavigator(admin.getRootFolder()).searchManagedEntities("VirtualMachine")) {
      out.add((VirtualMachine) e);
    }
    assertThat(out).hasSizeGreaterThanOrEqualTo(4);
    return out;
  }

  private List<VcenterEvent> events() {
    return read(Topics.VCENTER_EVENTS).stream().map(TypedRecord::value).toList();
  }

  private List<StunObservation> stuns() {
    return read(Topics.STUN_OBSERVATIONS).stream().map(TypedRecord::value).toList();
  }

  private <V> List<TypedRecord<String, V>> read(Topic<String, V> topic) {
    return TopicContents.readAll(KAFKA.bootstrapServers(), topic);
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
