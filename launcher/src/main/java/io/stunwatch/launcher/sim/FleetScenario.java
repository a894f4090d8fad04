package io.stunwatch.launcher.sim;

import io.stunwatch.model.CounterReading;
import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.HostVgpuSample;
import io.stunwatch.model.Keys;
import io.stunwatch.model.RdmaCounterSample;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.ThroughputSample;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionBandwidth;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;

/**
 * A deterministic simulated GPU fleet: VMs with vGPU profiles from T4-4C to A100-40C running Horovod-like training,
 * bursty inference or nothing, with RDMA traffic and training throughput, and a vCenter that relocates them (by a
 * user or by DRS, some under load, some concurrently, some failing) with {@code vmware.log} stun figures that
 * follow a {@link StunLaw}: by default VMware's published ~2 s per GiB of framebuffer used (vSphere 7).
 *
 * <p>The same settings and seed give the same records in the same order, which the crash test and the benchmark
 * depend on. Records are produced in event-time order, one simulated second at a time.
 */
public final class FleetScenario {

  /** The simulated vCenter's instance UUID. */
  public static final String VCENTER = "5f1d5b8e-0000-4000-8000-00000000c0de";

  static final List<String> PROFILES = List.of("T4-4C", "T4-8C", "T4-16C", "V100-16C", "A100-20C", "A100-40C");

  /**
   * What to simulate.
   *
   * @param seed            random seed: same seed, same fleet, same records
   * @param vms             GPU VMs
   * @param hosts           ESXi hosts
   * @param start           the first second simulated
   * @param length          how long to simulate
   * @param migrationEvery  on average one migration starts this often
   */
  public record Settings(long seed, int vms, int hosts, Instant start, Duration length, Duration migrationEvery) {
    public Settings {
      if (vms < 1 || hosts < 2) {
        throw new IllegalArgumentException("need at least 1 VM and 2 hosts");
      }
    }
  }

  /** Receives the records. */
  @FunctionalInterface
  public interface Sink {
    <V> void send(Topic<String, V> topic, String key, V value, Instant at);
  }

  /** A VM's load pattern. */
  public enum Pattern { TRAINING, INFERENCE, IDLE }

  /** A simulated VM. */
  public record Vm(int index, String moref, String name, String id, VgpuProfile profile, Pattern pattern, double fbShare) {
  }

  /** A planned relocation. */
  public record Plan(Vm vm, long chain, Instant start, int seconds, int stunMillis, boolean drs, boolean fails,
      boolean logged, int fromHost, int toHost) {
    public Instant end() {
      return start.plusSeconds(seconds);
    }

    /** The id the processor gives this migration. */
    public String migrationId() {
      return Keys.migration(VCENTER, chain);
    }

    /**
     * This migration from {@code host}, where the VM is when it starts: an earlier one held back left it elsewhere
     * than planned. Its destination stays, unless that is {@code host}; then it goes where it was planned to leave.
     */
    Plan from(int host) {
      if (host == fromHost) {
        return this;
      }
      return new Plan(vm, chain, start, seconds, stunMillis, drs, fails, logged, host, toHost == host ? fromHost
          : toHost);
    }

    /** The stun: the last {@code stunMillis} before the end. */
    boolean stunned(Instant t) {
      return fails ? false : !t.isBefore(end().minusMillis(stunMillis)) && t.isBefore(end());
    }
  }

  private final Settings settings;
  private final List<Vm> vms = new ArrayList<>();
  private final List<Plan> plans = new ArrayList<>();
  private final int[] hostOf;
  private final long firstChain;
  /** How often each ESXi host reads its vGPUs ({@code nvidia-smi vgpu -q}), in seconds; 0 for never. */
  private final int hostViewEvery;
  /** How long a migration stuns its VM. */
  private final StunLaw law;

  public FleetScenario(Settings settings) {
    this(settings, 1000);
  }

  /**
   * A scenario whose migrations' chain ids start at {@code firstChain}: two scenarios of the same VMs (a history
   * and a live fleet) whose migrations must not share ids.
   */
  public FleetScenario(Settings settings, long firstChain) {
    this(settings, firstChain, Duration.ZERO);
  }

  /**
   * A scenario whose ESXi hosts also read their vGPUs every {@code hostView} ({@code nvidia-smi vgpu -q}): the
   * hypervisor's view of each VM beside its guest's, and each GPU's scheduler policy. Zero leaves it out, as the
   * benchmarks do, whose figures are of the guests' samples.
   */
  public FleetScenario(Settings settings, long firstChain, Duration hostView) {
    this(settings, firstChain, hostView, StunLaw.VSPHERE_7);
  }

  /** As {@link #FleetScenario(Settings, long, Duration)}, with stun times that follow {@code law}. */
  public FleetScenario(Settings settings, long firstChain, Duration hostView, StunLaw law) {
    this.settings = settings;
    this.law = law;
    this.firstChain = firstChain;
    this.hostViewEvery = (int) hostView.toSeconds();
    Random r = new Random(settings.seed());
    hostOf = new int[settings.vms()];
    for (int i = 0; i < settings.vms(); i++) {
      VgpuProfile p = VgpuProfile.parse(PROFILES.get(i % PROFILES.size())).orElseThrow();
      // Fleet surveys find GPUs busy a quarter of the time: about half the VMs train, a quarter serve, the rest idle.
      Pattern pattern = i % 4 < 2 ? Pattern.TRAINING : i % 4 == 2 ? Pattern.INFERENCE : Pattern.IDLE;
      double fb = pattern == Pattern.TRAINING ? 0.75 + 0.2 * r.nextDouble()
          : pattern == Pattern.INFERENCE ? 0.3 + 0.3 * r.nextDouble() : 0.05;
      vms.add(new Vm(i, "vm-" + (100 + i), String.format("gpu-vm-%02d", i), String.format(
          "4210%04x-0000-4000-8000-%012x", i, settings.seed() & 0xffffffffffffL), p, pattern, fb));
      hostOf[i] = i % settings.hosts();
    }
    plan(r);
  }

  private void plan(Random r) {
    long every = Math.max(1, settings.migrationEvery().toSeconds());
    long total = settings.length().toSeconds();
    long chain = firstChain;
    int[] host = hostOf.clone();
    Map<Integer, Instant> busyUntil = new HashMap<>(); // by VM index: the end of its last planned migration
    for (long s = every; s < total - 30; s += 1 + r.nextInt((int) (2 * every))) {
      Vm vm = vms.get(r.nextInt(vms.size()));
      Instant start = settings.start().plusSeconds(s);
      Instant busy = busyUntil.get(vm.index());
      if (busy != null && !start.isAfter(busy.plusSeconds(60))) {
        continue; // one migration of a VM at a time, and a minute of samples between them
      }
      double fbGiB = vm.profile().framebufferMiB() * vm.fbShare() / 1024.0;
      int stunMillis = law.stunMillis(fbGiB, r.nextDouble());
      int seconds = 8 + (int) Math.ceil(stunMillis / 1000.0) + r.nextInt(20);
      boolean fails = r.nextInt(12) == 0;
      int to = (host[vm.index()] + 1 + r.nextInt(settings.hosts() - 1)) % settings.hosts();
      plans.add(new Plan(vm, chain, start, seconds, stunMillis, r.nextBoolean(), fails, r.nextInt(5) != 0,
          host[vm.index()], to));
      if (!fails) {
        host[vm.index()] = to;
      }
      busyUntil.put(vm.index(), start.plusSeconds(seconds));
      chain += 10;
    }
  }

  /** The planned migrations, in start order. */
  public List<Plan> plans() {
    return List.copyOf(plans);
  }

  /** Sends every record of the scenario, in event-time order, every migration carried out. */
  public void run(Sink sink) {
    run(sink, FleetDrs.AUTOMATIC);
  }

  /**
   * Sends every record of the scenario, in event-time order; each DRS migration goes ahead only if {@code drs} lets
   * it when it starts. With {@link FleetDrs#AUTOMATIC} the records are those of {@link #run(Sink)}.
   */
  public void run(Sink sink, FleetDrs drs) {
    Instant t0 = settings.start();
    inventory(sink);
    // a migration's vCenter side is scheduled when it starts, from where its VM is then
    TreeMap<Instant, List<Runnable>> events = new TreeMap<>();
    Set<Long> heldBack = new HashSet<>();
    Random noise = new Random(settings.seed() * 31 + 7);
    long[] rdmaWords = new long[vms.size()];
    // Each VM's plans in start order, never overlapping: a cursor per VM finds the one under way in O(1), so a
    // month-long demo costs no more per second than a minute-long test.
    List<List<Plan>> byVm = new ArrayList<>();
    vms.forEach(v -> byVm.add(new ArrayList<>()));
    plans.forEach(p -> byVm.get(p.vm().index()).add(p));
    int[] cursor = new int[vms.size()];
    int[] on = hostOf.clone();
    for (long s = 0; s < settings.length().toSeconds(); s++) {
      Instant t = t0.plusSeconds(s);
      for (Vm vm : vms) {
        List<Plan> mine = byVm.get(vm.index());
        int i = vm.index();
        while (cursor[i] < mine.size() && !t.isBefore(mine.get(cursor[i]).end())) {
          Plan done = mine.get(cursor[i]);
          if (!done.fails() && !heldBack.contains(done.chain())) {
            on[i] = done.toHost();
          }
          cursor[i]++;
        }
        Plan moving = cursor[i] < mine.size() && !t.isBefore(mine.get(cursor[i]).start()) ? mine.get(cursor[i]) : null;
        if (moving != null && t.equals(moving.start())) {
          if (moving.drs() && !drs.movesOnItsOwn(vm)) {
            heldBack.add(moving.chain());
            drs.heldBack(moving, vm.pattern() == Pattern.TRAINING);
          } else {
            moving = moving.from(on[i]);
            mine.set(cursor[i], moving);
            schedule(events, moving, sink);
          }
        }
        if (moving != null && heldBack.contains(moving.chain())) {
          moving = null; // the VM runs on where it is
        }
        long fbUsed = Math.round(vm.profile().framebufferMiB() * vm.fbShare());
        boolean hostReads = hostViewEvery > 0 && s % hostViewEvery == 0;
        if (moving != null && moving.stunned(t)) {
          if (hostReads) {
            // the host goes on reading a stunned VM's vGPU, idle while it is frozen
            sendHostView(sink, vm, on[i], t, 0, fbUsed);
          }
          continue; // frozen: the guest takes no samples
        }
        // whole percents, as nvidia-smi reports them
        double util = Math.round(utilization(vm, s, noise));
        if (hostReads) {
          sendHostView(sink, vm, on[i], t, util, fbUsed);
        }
        if (agentless(vm)) {
          continue; // no worker in this guest: its hosts' readings are all there is
        }
        GpuSample g = new GpuSample(vm.id(), vm.name(), t, 0, "GPU-" + vm.id(), "GRID " + vm.profile().name(),
            "00000000:02:00.0", util, (double) Math.round(util * 0.6), fbUsed, vm.profile().framebufferMiB(), null, null, 1590L, "P0",
            vm.profile());
        sink.send(Topics.GPU_SAMPLES, vm.id(), g, t);
        if (vm.pattern() != Pattern.IDLE) {
          double gbps = vm.pattern() == Pattern.TRAINING ? 8 + 4 * noise.nextDouble() : 0.2 * noise.nextDouble();
          rdmaWords[vm.index()] += Math.round(gbps * 1e9 / 8 / 4);
          RdmaCounterSample rs = new RdmaCounterSample(vm.id(), vm.name(), t, "mlx5_0", 1, "Ethernet", Map.of(
              "port_xmit_data_64", CounterReading.valid(rdmaWords[vm.index()]),
              "port_rcv_data_64", CounterReading.valid(rdmaWords[vm.index()] / 2)), Map.of(), null);
          sink.send(Topics.RDMA_SAMPLES, vm.id(), rs, t);
        }
        if (vm.pattern() == Pattern.TRAINING) {
          // one decimal, as tf_cnn_benchmarks logs it
          double rate = Math.round(((moving != null ? 180 : 240) + 10 * noise.nextDouble()) * 10) / 10.0;
          sink.send(Topics.THROUGHPUT_SAMPLES, vm.id(), new ThroughputSample(vm.id(), vm.name(), t,
              "resnet50-hvd", ThroughputSample.ThroughputScope.STEP, rate, "images/sec"), t);
        }
      }
      List<Runnable> due = events.remove(t);
      if (due != null) {
        due.forEach(Runnable::run);
      }
    }
  }

  /**
   * Sends the inventory and the vCenter side of every planned migration (events, inventory moves, vmware.log
   * stuns) in event-time order, without any sample: months of migration history in minutes, for the API benchmark.
   */
  public void runMigrationsOnly(Sink sink) {
    inventoryAndSchedule(sink).values().forEach(due -> due.forEach(Runnable::run));
  }

  /** Sends the starting inventory; returns the vCenter side of every migration, by the second it is due. */
  private TreeMap<Instant, List<Runnable>> inventoryAndSchedule(Sink sink) {
    inventory(sink);
    TreeMap<Instant, List<Runnable>> events = new TreeMap<>();
    for (Plan p : plans) {
      schedule(events, p, sink);
    }
    return events;
  }

  private void inventory(Sink sink) {
    Instant t0 = settings.start();
    for (Vm vm : vms) {
      VmInventoryEntry e = inventory(vm, hostOf[vm.index()], t0);
      sink.send(Topics.VM_INVENTORY, e.key(), e, t0);
    }
  }

  /** The samples {@link #run} sends per second: each VM's GPU, RDMA unless idle, throughput when training. */
  public double samplesPerSecond() {
    return vms.stream().mapToInt(v -> 1 + (v.pattern() != Pattern.IDLE ? 1 : 0)
        + (v.pattern() == Pattern.TRAINING ? 1 : 0)).sum();
  }

  /** The simulated VMs. */
  public List<Vm> vms() {
    return List.copyOf(vms);
  }

  /** The vGPU schedulers of the hosts, in turn: the three policies NVIDIA's vGPU manager offers. */
  static final List<String> SCHEDULERS = List.of("Best Effort", "Equal Share", "Fixed Share");

  /**
   * Whether the VM has no worker in its guest, as at most sites: every fourth VM when the hosts read their vGPUs, so
   * that the host view is seen alone; none otherwise.
   */
  public boolean agentless(Vm vm) {
    return hostViewEvery > 0 && vm.index() % 4 == 3;
  }

  /** A VM's vGPU as its host's {@code nvidia-smi vgpu -q} shows it: on one of the host's four GPUs. */
  private static void sendHostView(Sink sink, Vm vm, int host, Instant t, double util, long fbUsed) {
    HostVgpuSample h = new HostVgpuSample(null, host(host).name(), t, String.format("00000000:%02X:00.0", GPU_BUSES[vm.index() % 4]),
        "NVIDIA " + vm.profile().gpuModel(), vm.name(), String.valueOf(3_251_634_000L + vm.index()),
        "GRID " + vm.profile().name(), vm.profile(), vm.profile().framebufferMiB(), fbUsed, util,
        (double) Math.round(util * 0.6), SCHEDULERS.get(host % SCHEDULERS.size()),
        String.valueOf(2_100_000 + vm.index()), null);
    sink.send(Topics.HOST_VGPU_SAMPLES, h.key(), h, t);
  }

  private static final int[] GPU_BUSES = {0x3B, 0x5E, 0x86, 0xAF};

  private static double utilization(Vm vm, long s, Random noise) {
    return switch (vm.pattern()) {
      // Horovod: compute near the top, a dip at each allreduce every 10 s
      case TRAINING -> s % 10 == 9 ? 55 + 10 * noise.nextDouble() : 88 + 10 * noise.nextDouble();
      case INFERENCE -> (s / 30) % 3 == 0 ? 40 + 30 * noise.nextDouble() : 2 + 6 * noise.nextDouble();
      case IDLE -> noise.nextDouble() * 2;
    };
  }

  private void schedule(TreeMap<Instant, List<Runnable>> events, Plan p, Sink sink) {
    EntityRef vmRef = new EntityRef("VirtualMachine", p.vm().moref(), p.vm().name());
    String user = p.drs() ? null : "VSPHERE.LOCAL\\mlops-admin";
    String descr = p.drs() ? "Drm.ExecuteVMotionLRO" : "VirtualMachine.relocate";
    String reason = p.drs() ? "TaskReasonSystem" : "TaskReasonUser";
    Instant s = p.start();
    Instant e = p.end();
    TaskSnapshot running = new TaskSnapshot("task-" + p.chain(), descr, vmRef, "running", false, s, s, null, null,
        null, p.chain(), reason, user);
    TaskSnapshot done = new TaskSnapshot("task-" + p.chain(), descr, vmRef, p.fails() ? "error" : "success", false,
        s, s, e, p.fails() ? "The vMotion failed because the destination host did not receive data" : null,
        p.fails() ? "GenericVmConfigFault" : null, p.chain(), reason, user);
    at(events, s, () -> send(sink, event(p, p.chain(), s, "TaskEvent", VcenterEventCategory.MIGRATION_TASK, user,
        null, null, running)));
    at(events, s, () -> send(sink, event(p, p.chain() + 1, s, "VmBeingHotMigratedEvent",
        VcenterEventCategory.MIGRATION_STARTED, user, host(p.fromHost()), host(p.toHost()), null)));
    at(events, e, () -> {
      send(sink, event(p, p.chain(), e, VcenterEvent.TASK_INFO, VcenterEventCategory.MIGRATION_TASK, user, null,
          null, done));
      if (p.fails()) {
        send(sink, event(p, p.chain() + 2, e, "VmFailedMigrateEvent", VcenterEventCategory.MIGRATION_FAILED, user,
            host(p.fromHost()), host(p.toHost()), null));
        if (p.logged() && p.chain() / 10 % 2 == 0) { // half the failures ESXi explains in the VM's log
          VmotionObservation v = FleetVmotions.switchoverTimeout(p, e);
          sink.send(Topics.VMOTION_OBSERVATIONS, v.key(), v, e);
        }
        return;
      }
      send(sink, event(p, p.chain() + 2, e, p.drs() ? "DrsVmMigratedEvent" : "VmMigratedEvent",
          VcenterEventCategory.MIGRATION_COMPLETED, user, host(p.fromHost()), host(p.toHost()), null));
      VmInventoryEntry moved = inventory(p.vm(), p.toHost(), e);
      sink.send(Topics.VM_INVENTORY, moved.key(), moved, e);
      if (p.logged()) {
        StunObservation o = new StunObservation(VCENTER, p.vm().moref(), p.vm().name(), String.valueOf(p.chain()),
            e, p.stunMillis() * 1000L, StunObservation.StunSource.CHECKPOINT_UNSTUN,
            "[gpu-ds] " + p.vm().name() + "/vmware.log", 1000 + (int) (p.chain() % 1000));
        sink.send(Topics.STUN_OBSERVATIONS, o.key(), o, e);
        VmotionObservation v = FleetVmotions.vmotion(p, e, List.of());
        sink.send(Topics.VMOTION_OBSERVATIONS, v.key(), v, e);
        VmotionBandwidth b = FleetVmotions.bandwidth(p, host(p.fromHost()).name(), v.stunStart());
        sink.send(Topics.VMOTION_BANDWIDTH, b.vmotionId(), b, e);
      }
    });
  }

  private static void at(TreeMap<Instant, List<Runnable>> events, Instant t, Runnable r) {
    events.computeIfAbsent(t.truncatedTo(ChronoUnit.SECONDS), k -> new ArrayList<>()).add(r);
  }

  private static void send(Sink sink, VcenterEvent e) {
    sink.send(Topics.VCENTER_EVENTS, e.vmKey(), e, e.createdTime());
  }

  private VcenterEvent event(Plan p, long key, Instant at, String type, VcenterEventCategory c, String user,
      EntityRef source, EntityRef dest, TaskSnapshot task) {
    // vim25's "host" of an event is where it happened: the source while migrating or failing, the destination once
    // migrated
    EntityRef host = c == VcenterEventCategory.MIGRATION_COMPLETED ? dest : source;
    String fault = c == VcenterEventCategory.MIGRATION_FAILED
        ? "The vMotion failed because the destination host did not receive data" : task == null ? null : task.error();
    return new VcenterEvent(VCENTER, key, p.chain(), at, type, null, c, user,
        new EntityRef("VirtualMachine", p.vm().moref(), p.vm().name()), host, source, dest,
        VcenterEvent.TASK_INFO.equals(type) ? null : cluster(), // a followed TaskInfo names no compute resource
        null, null,
        null, null, null, fault, task);
  }

  private VmInventoryEntry inventory(Vm vm, int host, Instant at) {
    return new VmInventoryEntry(VCENTER, vm.moref(), vm.name(), vm.id(), null, host(host), cluster(), "dc1",
        "[gpu-ds] " + vm.name() + "/" + vm.name() + ".vmx", 131072L,
        List.of("grid_" + vm.profile().name().toLowerCase(Locale.ROOT)), vm.profile(), at);
  }

  static EntityRef host(int h) {
    return new EntityRef("HostSystem", "host-" + (10 + h), String.format("esx%02d.lab.local", h + 1));
  }

  /** The simulated vCenter's one cluster. */
  public static EntityRef cluster() {
    return new EntityRef("ClusterComputeResource", "domain-c8", "gpu-cluster");
  }

  /** How many records {@link #run} sends, without sending them. */
  public long count() {
    long[] n = new long[1];
    run(new Sink() {
      @Override
      public <V> void send(Topic<String, V> topic, String key, V value, Instant at) {
        n[0]++;
      }
    });
    return n[0];
  }
}
