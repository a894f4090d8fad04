package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Keys;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.VmotionObservation;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds what one part of a vCenter poll publishes, apart from the transaction that writes it
 * ({@link VcenterCollector}): its new events keyed by VM, the inventory changes, the stuns and vMotions of the
 * migrated VMs' {@code vmware.log}, and the checkpoint after them. It keeps what a poll compares with the last one:
 * the inventory as published ({@link InventoryDiff}, made permanent by {@link #committed} and taken back by
 * {@link #resume} after a failed transaction) and when the next inventory refresh is due.
 */
final class PollBatches {

  private static final Logger LOG = LoggerFactory.getLogger(PollBatches.class);

  /**
   * How long before a migration's completion its stun can be: the switchover comes at the end of a vMotion, and
   * this covers a migration of hours. Older stuns in the log belong to earlier migrations.
   */
  static final Duration STUN_LOOKBEHIND = Duration.ofHours(2);

  /**
   * The records of one transaction.
   *
   * @param records    what the transaction writes, the checkpoint last
   * @param checkpoint the checkpoint it commits
   * @param events     the vCenter events (and task changes) among the records
   */
  record Batch(List<ProducerRecord<byte[], byte[]>> records, VcenterCheckpoint checkpoint, int events) {
  }

  private final VcenterConfig config;
  private final Clock clock;
  private final String url;
  private final VimEventMapper mapper = new VimEventMapper();
  private final TaskFollower tasks;
  private final StunLogFetcher stunLogs;
  private final LogLimiter problemLog = new LogLimiter(10);
  private final Counter unmappable;
  private final Counter checkpointTrimmed;
  /** The vCenter instance whose inventory {@link #vms} and {@link #hosts} hold, kept across reconnects. */
  private String inventoryOf;
  private final InventoryDiff<VmInventoryEntry> vms = new InventoryDiff<>(VmInventoryEntry::key,
      (before, now) -> before.equals(now.withObservedAt(before.observedAt())));
  private final InventoryDiff<HostInventoryEntry> hosts = new InventoryDiff<>(HostInventoryEntry::key,
      (before, now) -> before.equals(now.withObservedAt(before.observedAt())));
  private Instant nextInventory = Instant.MIN;

  PollBatches(VcenterConfig config, Clock clock, String url, Counter unmappable, Counter logLinesSkipped,
      Counter checkpointTrimmed) {
    this.config = config;
    this.clock = clock;
    this.url = url;
    this.unmappable = unmappable;
    this.checkpointTrimmed = checkpointTrimmed;
    this.tasks = new TaskFollower(mapper, this::problem);
    this.stunLogs = new StunLogFetcher(config.logTailBytes(), clock, logLinesSkipped::increment, this::problem);
  }

  /**
   * A session with vCenter instance {@code uuid} begins: the same one after a failure is compared with what was
   * committed, so that nothing removed meanwhile is lost; another starts from nothing. The inventory is read at once.
   */
  void resume(String uuid) {
    if (uuid.equals(inventoryOf)) {
      vms.rollback();
      hosts.rollback();
    } else {
      vms.clear();
      hosts.clear();
      inventoryOf = uuid;
    }
    nextInventory = Instant.MIN;
  }

  /** The last batch built was committed: its inventory is what later polls compare with. */
  void committed() {
    vms.commit();
    hosts.commit();
  }

  /** The VMs of the inventory as last read, by VM id. */
  Map<String, VmInventoryEntry> vmsById() {
    Map<String, VmInventoryEntry> byId = new HashMap<>();
    for (VmInventoryEntry vm : vms.values()) {
      if (vm.biosUuid() != null) {
        byId.put(vm.biosUuid(), vm);
      }
    }
    return byId;
  }

  /**
   * The batch of one part of a poll's events, read after {@code checkpoint} (null before the first), or empty when
   * nothing is new and the checkpoint is fresh; the last part also follows the pending tasks.
   *
   * @param guard the DRS guard, told of hosts entering maintenance; null when it does not run
   */
  Optional<Batch> build(VcenterConnection c, String vcenterUuid, VcenterCheckpoint checkpoint, DrsGuard guard,
      Instant now, Instant firstStart, List<JsonNode> raw, boolean lastPart) throws IOException {
    EventCursor cursor = EventCursor.from(checkpoint, config.eventOverlap());
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    Map<String, Instant> lastStun = new HashMap<>(checkpoint == null ? Map.of() : checkpoint.lastStunByVm());
    Map<String, VcenterCheckpoint.PendingTask> pending = new LinkedHashMap<>();
    if (checkpoint != null) {
      checkpoint.pendingTasks().forEach(t -> pending.put(t.taskKey(), t));
    }
    List<VcenterEvent> completed = new ArrayList<>();
    List<VcenterEvent> mapped = new ArrayList<>();
    int events = 0;
    for (JsonNode node : raw) {
      long key = node.path("key").asLong();
      Instant created = Instant.parse(node.path("createdTime").asText());
      // Before the cursor's check: a collector that starts again reads the overlap window's maintenance events once
      // more, so that a host it had seen entering maintenance stays so.
      if (guard != null) {
        mapper.maintenance(node).ifPresent(guard::maintenance);
      }
      if (!cursor.accept(key, created)) {
        continue; // published before
      }
      try {
        Optional<VcenterEvent> e = mapper.map(node, vcenterUuid, null);
        if (e.isPresent()) {
          mapped.add(e.get());
          events++;
          if (TaskFollower.isCompletion(e.get())) {
            completed.add(e.get());
          }
          VcenterEvent ev = e.get();
          if (ev.task() != null && !TaskFollower.isFinal(ev.task().state()) && ev.vm() != null) {
            pending.putIfAbsent(ev.task().key(), new VcenterCheckpoint.PendingTask(ev.task().key(), ev.eventKey(),
                ev.chainId(), ev.vm().value(), ev.vm().name(), ev.task().state()));
          }
        }
      } catch (VimEventMapper.MappingException ex) {
        unmappable.increment();
        String suffix = problemLog.admit();
        if (suffix != null) {
          LOG.warn("vCenter {} event key {}: skipped: {}{}", url, key, ex.getMessage(), suffix);
        }
      }
    }
    if (lastPart) {
      events += tasks.follow(c, vcenterUuid, pending, mapped, completed);
    }
    // A VM the inventory does not know yet (created since the last refresh) is looked up before its events are
    // keyed: keyed by VM id they meet the VM's samples, and the processor need not hold them for its inventory.
    boolean unknownVm = mapped.stream().anyMatch(e -> e.vm() != null && !vms.contains(e.vmKey()));
    boolean inventoryDue = !now.isBefore(nextInventory) || !completed.isEmpty() || unknownVm;
    if (inventoryDue) {
      refreshInventory(c, now, out);
      nextInventory = now.plus(config.inventoryInterval());
    }
    for (VcenterEvent e : mapped) {
      out.add(record(Topics.VCENTER_EVENTS, kafkaKey(e.vmKey()), e, e.createdTime()));
    }
    for (VcenterEvent e : completed) {
      fetchStuns(c, vcenterUuid, e, lastStun, out);
    }
    // A first start that has seen no event yet stands at the start of its window.
    Instant position = cursor.last() != null ? cursor.last() : firstStart;
    CheckpointBounds.prune(lastStun, position);
    List<VcenterCheckpoint.RecentEvent> recent = cursor.recent();
    // a collector with the guard off keeps what the last one with it saw, for when it is on again
    List<VcenterCheckpoint.Maintenance> maintenance = guard != null ? guard.hostsInMaintenance()
        : checkpoint == null ? List.of() : checkpoint.hostsInMaintenance();
    boolean moved = checkpoint == null
        || !position.equals(checkpoint.lastCreatedTime())
        || !recent.equals(checkpoint.recentEvents())
        || !lastStun.equals(checkpoint.lastStunByVm())
        || !List.copyOf(pending.values()).equals(checkpoint.pendingTasks())
        || !maintenance.equals(checkpoint.hostsInMaintenance());
    boolean heartbeat = checkpoint == null || !now.isBefore(checkpoint.savedAt().plus(config.heartbeatInterval()));
    if (out.isEmpty() && !moved && !heartbeat) {
      return Optional.empty(); // nothing new, and the last checkpoint is fresh: no empty transaction
    }
    // Saved at least every heartbeat: its age tells a quiet vCenter (young) from a stopped collector (old).
    // the guard's protections go on unchanged: only its own pass changes them
    CheckpointBounds.Bounded bounded = CheckpointBounds.bound(new VcenterCheckpoint(vcenterUuid, position,
        cursor.keysAtLast(), now, lastStun, List.copyOf(pending.values()), recent,
        checkpoint == null ? List.of() : checkpoint.protections(),
        guard == null ? null : guard.decisionsReadAt(), maintenance));
    VcenterCheckpoint next = bounded.checkpoint();
    if (bounded.droppedRecent() + bounded.droppedPending() > 0) {
      checkpointTrimmed.increment(bounded.droppedRecent() + bounded.droppedPending());
      LOG.warn("vCenter {}: the checkpoint would pass Kafka's record limit; kept the newest {} of {} events of the "
          + "overlap window (an older one read again is published again) and the newest {} of {} running tasks "
          + "(an older one's end is seen from its VmMigratedEvent only)", url,
          next.recentEvents().size(), next.recentEvents().size() + bounded.droppedRecent(),
          next.pendingTasks().size(), next.pendingTasks().size() + bounded.droppedPending());
    }
    out.add(record(Topics.VCENTER_CHECKPOINTS, vcenterUuid, next, now));
    return Optional.of(new Batch(out, next, events));
  }

  private void refreshInventory(VcenterConnection c, Instant now, List<ProducerRecord<byte[], byte[]>> out)
      throws IOException {
    for (InventoryDiff.Change<VmInventoryEntry> ch : vms.next(c.vms(now))) {
      out.add(record(Topics.VM_INVENTORY, ch.key(), ch.value(), now)); // a removed VM: a tombstone
    }
    for (InventoryDiff.Change<HostInventoryEntry> ch : hosts.next(c.hosts(now))) {
      out.add(record(Topics.HOST_INVENTORY, ch.key(), ch.value(), now));
    }
  }

  /**
   * Adds the stuns of the migrated VM's vmware.log ({@link StunLogFetcher}) not published before: those after the
   * last one published for the VM and at most {@link #STUN_LOOKBEHIND} before the completion, which is where this
   * migration's stun can be.
   */
  private void fetchStuns(VcenterConnection c, String vcenterUuid, VcenterEvent e,
      Map<String, Instant> lastStun, List<ProducerRecord<byte[], byte[]>> out) {
    if (e.vm() == null) {
      return;
    }
    VmInventoryEntry vm = vms.get(e.vmKey());
    if (vm == null || vm.vmPathName() == null || vm.datacenter() == null) {
      problem("no inventory (vmx path, datacenter) for " + e.vmKey() + ": cannot read its vmware.log");
      return;
    }
    Instant floor = e.createdTime().minus(STUN_LOOKBEHIND);
    Instant published = lastStun.get(vm.moref());
    StunLogFetcher.Found found = stunLogs.newStuns(c, vm,
        published != null && published.isAfter(floor) ? published : floor);
    for (VmwareLogParser.Stun s : found.stuns()) {
      StunObservation o = s.observation(vcenterUuid, vm.moref(), vm.name(), found.file());
      out.add(record(Topics.STUN_OBSERVATIONS, Keys.byVm(vm.biosUuid(), o.key()), o, o.timestamp()));
      lastStun.merge(vm.moref(), s.timestamp(), (x, y) -> x.isAfter(y) ? x : y);
    }
    for (StunLogFetcher.FoundVmotion v : found.vmotions()) {
      VmotionObservation o = v.vmotion().observation(vcenterUuid, vm.moref(), vm.name(), v.file());
      out.add(record(Topics.VMOTION_OBSERVATIONS, Keys.byVm(vm.biosUuid(), o.key()), o, o.timestamp()));
    }
  }

  /** The Kafka key of a record about the VM {@code vmKey}: its VM id when the inventory knows it. */
  private String kafkaKey(String vmKey) {
    VmInventoryEntry vm = vms.get(vmKey);
    return Keys.byVm(vm == null ? null : vm.biosUuid(), vmKey);
  }

  void problem(String message) {
    String suffix = problemLog.admit();
    if (suffix != null) {
      LOG.warn("vCenter {}: {}{}", url, message, suffix);
    }
  }

  /**
   * A record stamped with event time, except that a time in the future (a skewed host clock, a bad log line) is
   * stamped now: the broker rejects records too far ahead, and one such record would fail every retry of the whole
   * transaction. The value keeps the original time.
   */
  <V> ProducerRecord<byte[], byte[]> record(Topic<String, V> topic, String key, V value, Instant at) {
    Instant now = clock.instant();
    Instant stamp = at.isAfter(now) ? now : at;
    return new ProducerRecord<>(topic.name(), null, stamp.toEpochMilli(), topic.encodeKey(key),
        topic.encodeValue(value));
  }
}
