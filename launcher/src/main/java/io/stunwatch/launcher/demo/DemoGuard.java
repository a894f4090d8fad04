package io.stunwatch.launcher.demo;

import io.micrometer.core.instrument.MeterRegistry;
import io.stunwatch.collectors.vcenter.DrsGuard;
import io.stunwatch.collectors.vcenter.GuardApplyConfig;
import io.stunwatch.launcher.sim.FleetScenario;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.VcenterCheckpoint.Protection;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedProducer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRS guard of the demo's vCenter, as {@code collect vcenter} runs it in {@code guard.mode=enforce}: the
 * processor's decisions read from {@code stunwatch.guard-decisions} and applied by {@link DrsGuard} to the simulated
 * cluster's overrides ({@link SimulatedDrs}), each action published to {@code stunwatch.guard-actions}. A pass every
 * {@link #PASS_EVERY} of real time, on its own thread, as a collector polls.
 */
final class DemoGuard implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(DemoGuard.class);
  /** How often it reads the decisions and applies them (real time). */
  static final Duration PASS_EVERY = Duration.ofSeconds(1);
  /**
   * How much real time a decision may take from its reading to the guard: the processor's commit and a pass, with a
   * busy machine's slack. In simulated time it is {@code speed} times as long. A laptop or CI runner busy with other
   * work can leave the demo's processor many seconds behind while it plays the history at 60 times real time; past
   * this age the guard drops every decision as too old, and the demo shows protections that its vCenter never acts on.
   */
  static final Duration REAL_LATENCY = Duration.ofSeconds(60);

  private final DrsGuard guard;
  private final SimulatedDrs drs;
  private final Map<String, VmInventoryEntry> vms;
  private final TypedProducer producer;
  private final Thread thread;
  private volatile boolean running = true;
  /** What the guard holds; only the guard's thread reads and writes it. */
  private List<Protection> protections = List.of();

  private DemoGuard(DrsGuard guard, SimulatedDrs drs, Map<String, VmInventoryEntry> vms, TypedProducer producer) {
    this.guard = guard;
    this.drs = drs;
    this.vms = vms;
    this.producer = producer;
    this.thread = new Thread(this::run, "stunwatch-demo-drs-guard");
    this.thread.setDaemon(true);
  }

  /**
   * Starts applying the decisions.
   *
   * @param vms   the simulated vCenter's VMs by VM id, as its inventory says now
   * @param speed the simulated clock's speed: a decision's real latency is that many times longer in simulated time,
   *              so the age past which a decision is too old to act on ({@code guard.max-decision-age}, 2 min) grows
   *              by as much
   */
  static DemoGuard start(String bootstrap, SimulatedClock clock, double speed, SimulatedDrs drs,
      Map<String, VmInventoryEntry> vms, MeterRegistry registry) {
    Map<String, Object> kafka = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    Duration maxAge = GuardApplyConfig.MAX_AGE.defaultValue()
        .plusMillis((long) (REAL_LATENCY.toMillis() * Math.max(1, speed)));
    GuardApplyConfig config = new GuardApplyConfig(true, GuardApplyConfig.Mode.ENFORCE,
        GuardApplyConfig.MAX_HOLD.defaultValue(), maxAge);
    DrsGuard guard = DrsGuard.open(config, clock, FleetScenario.VCENTER, "the demo's vCenter", "demo", kafka,
        registry);
    DemoGuard g = new DemoGuard(guard, drs, vms, TypedProducer.create(kafka));
    g.thread.start();
    return g;
  }

  private void run() {
    while (running) {
      try {
        protections = guard.pass(drs, vms::get, protections, this::commit);
      } catch (Exception e) {
        LOG.warn("The demo's DRS guard failed a pass; the next one tries again: {}", e.toString());
      }
      LockSupport.parkNanos(PASS_EVERY.toNanos());
    }
  }

  /** The audit records, published as the vCenter collector does; the protections are kept in memory. */
  private void commit(List<GuardAction> actions, List<Protection> now) {
    for (GuardAction a : actions) {
      producer.send(Topics.GUARD_ACTIONS, a.vmId(), a, a.at());
    }
    producer.flush();
    protections = now;
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    LockSupport.unpark(thread);
    thread.join(Duration.ofSeconds(10).toMillis());
    guard.close();
    producer.close();
  }
}
