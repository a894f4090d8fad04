package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.stunwatch.collectors.worker.Backoff;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.Keys;
import io.stunwatch.model.StunObservation;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one vCenter: its migration events and tasks, its inventory and the stun times in migrated VMs'
 * {@code vmware.log}, published exactly once.
 *
 * <p>Each poll publishes its events, inventory changes, stun observations and the new checkpoint in ONE Kafka
 * transaction ({@code transactional.id = stunwatch-vcenter-<instanceUuid>}), so a crash at any point leaves either
 * all of a poll or none of it, and a restart resumes from the committed checkpoint: no gap, no duplicate. Events are
 * ordered by (createdTime, key), because vCenter's int32 key can wrap. A lost session, a restarted vCenter or a
 * network error closes the session; the collector logs in again with backoff and resumes.
 */
public final class VcenterCollector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(VcenterCollector.class);
  private static final Pattern VMX_PATH = Pattern.compile("^\\[([^]]+)]\\s*(.*)$");

  private final VcenterConnector connector;
  private final VcenterConfig config;
  private final Map<String, Object> kafkaProperties;
  private final Clock clock;
  private final VimEventMapper mapper = new VimEventMapper();
  private final VmwareLogParser logParser = new VmwareLogParser();
  private final LogLimiter problemLog;
  private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
  private final Thread thread;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong unmappable = new AtomicLong();
  private volatile boolean running;
  private volatile VcenterCheckpoint checkpoint;

  private Producer<byte[], byte[]> producer;
  private String vcenterUuid;
  private final Map<String, VmInventoryEntry> vms = new HashMap<>();
  private final Map<String, HostInventoryEntry> hosts = new HashMap<>();
  private Instant nextInventory = Instant.MIN;

  public VcenterCollector(VcenterConnector connector, VcenterConfig config, Map<String, Object> kafkaProperties,
      Clock clock) {
    this.connector = connector;
    this.config = config;
    this.kafkaProperties = kafkaProperties;
    this.clock = clock;
    this.problemLog = new LogLimiter(10, clock);
    this.thread = new Thread(this::run, "stunwatch-vcenter-" + connector.url());
    this.thread.setDaemon(true);
  }

  public void start() {
    running = true;
    thread.start();
  }

  /** Events published so far. */
  public long publishedEvents() {
    return published.get();
  }

  /** Sessions re-established after a failure. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Events that could not be mapped (logged, skipped, checkpoint advanced). */
  public long unmappableEvents() {
    return unmappable.get();
  }

  /** The last committed checkpoint, or null before the first. */
  public VcenterCheckpoint checkpoint() {
    return checkpoint;
  }

  private void run() {
    boolean first = true;
    while (running) {
      if (!first) {
        reconnects.incrementAndGet();
        Duration d = backoff.nextDelay();
        if (!sleep(d)) {
          return;
        }
      }
      first = false;
      if (config.insecure()) {
        LOG.warn("TLS certificate verification is OFF for {} (vcenter.insecure=true): anyone on the network path can "
            + "read the vCenter credentials", connector.url());
      }
      try (VcenterConnection c = connector.connect()) {
        LOG.info("Logged in to {} (instance {})", connector.url(), c.instanceUuid());
        prepare(c.instanceUuid());
        while (running) {
          poll(c);
          backoff.reset();
          if (!sleep(config.pollInterval())) {
            return;
          }
        }
      } catch (ProducerFencedException e) {
        LOG.error("Another collector instance took over {} (Kafka fenced this one); stopping", connector.url());
        running = false;
      } catch (IOException | RuntimeException e) {
        if (running) {
          String why = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
          LOG.warn("vCenter {}: {}; reconnecting", connector.url(), why.replace('\n', ' '));
        }
        resetProducerOnFailure();
      }
    }
  }

  /** First contact with this vCenter instance: its transactional producer and its committed checkpoint. */
  private void prepare(String uuid) {
    if (uuid.equals(vcenterUuid) && producer != null) {
      return;
    }
    closeProducer();
    vcenterUuid = uuid;
    Map<String, Object> p = new HashMap<>(kafkaProperties);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "stunwatch-vcenter-" + uuid);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    producer = new KafkaProducer<>(p);
    producer.initTransactions(); // fences any older instance with the same id and aborts its open transaction
    checkpoint = new CheckpointStore(kafkaProperties).load(uuid, Duration.ofSeconds(60)).orElse(null);
    vms.clear();
    hosts.clear();
    nextInventory = Instant.MIN;
    LOG.info("vCenter {}: resuming {}", connector.url(), checkpoint == null
        ? "from " + config.startLookback() + " ago (no checkpoint yet)"
        : "after " + checkpoint.lastCreatedTime() + " " + checkpoint.keysAtLastCreated());
  }

  /** One poll: read new events, refresh inventory when due, fetch stun times, publish all in one transaction. */
  void poll(VcenterConnection c) throws IOException {
    Instant now = clock.instant();
    Instant since = checkpoint == null ? now.minus(config.startLookback()) : checkpoint.lastCreatedTime();
    List<JsonNode> raw = c.eventsSince(since);
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    Instant last = checkpoint == null ? null : checkpoint.lastCreatedTime();
    Set<Long> keysAtLast = checkpoint == null ? new HashSet<>() : new HashSet<>(checkpoint.keysAtLastCreated());
    Map<String, Instant> lastStun = new HashMap<>(checkpoint == null ? Map.of() : checkpoint.lastStunByVm());
    Map<String, VcenterCheckpoint.PendingTask> pending = new java.util.LinkedHashMap<>();
    if (checkpoint != null) {
      checkpoint.pendingTasks().forEach(t -> pending.put(t.taskKey(), t));
    }
    List<VcenterEvent> completed = new ArrayList<>();
    List<VcenterEvent> mapped = new ArrayList<>();
    int events = 0;
    for (JsonNode node : raw) {
      long key = node.path("key").asLong();
      Instant created = Instant.parse(node.path("createdTime").asText());
      if (last != null && (created.isBefore(last) || created.equals(last) && keysAtLast.contains(key))) {
        continue; // published before this poll
      }
      if (last == null || created.isAfter(last)) {
        last = created;
        keysAtLast.clear();
      }
      keysAtLast.add(key);
      try {
        Optional<VcenterEvent> e = mapper.map(node, vcenterUuid, null);
        if (e.isPresent()) {
          mapped.add(e.get());
          events++;
          if (isCompletion(e.get())) {
            completed.add(e.get());
          }
          VcenterEvent ev = e.get();
          if (ev.task() != null && !isFinal(ev.task().state()) && ev.vm() != null) {
            pending.putIfAbsent(ev.task().key(), new VcenterCheckpoint.PendingTask(ev.task().key(), ev.eventKey(),
                ev.chainId(), ev.vm().value(), ev.vm().name(), ev.task().state()));
          }
        }
      } catch (VimEventMapper.MappingException ex) {
        unmappable.incrementAndGet();
        String suffix = problemLog.admit();
        if (suffix != null) {
          LOG.warn("vCenter {} event key {}: skipped: {}{}", connector.url(), key, ex.getMessage(), suffix);
        }
      }
    }
    events += followTasks(c, pending, mapped, completed);
    // A VM the inventory does not know yet (created since the last refresh) is looked up before its events are
    // keyed: keyed by VM id they meet the VM's samples, and the processor need not hold them for its inventory.
    boolean unknownVm = mapped.stream().anyMatch(e -> e.vm() != null && !vms.containsKey(e.vmKey()));
    boolean inventoryDue = !now.isBefore(nextInventory) || !completed.isEmpty() || unknownVm;
    if (inventoryDue) {
      refreshInventory(c, now, out);
      nextInventory = now.plus(config.inventoryInterval());
    }
    for (VcenterEvent e : mapped) {
      out.add(record(Topics.VCENTER_EVENTS, kafkaKey(e.vmKey()), e, e.createdTime()));
    }
    for (VcenterEvent e : completed) {
      fetchStuns(c, e, lastStun, out);
    }
    boolean moved = checkpoint == null ? last != null
        : !last.equals(checkpoint.lastCreatedTime()) || !keysAtLast.equals(Set.copyOf(checkpoint.keysAtLastCreated()))
            || !lastStun.equals(checkpoint.lastStunByVm())
            || !List.copyOf(pending.values()).equals(checkpoint.pendingTasks());
    if (out.isEmpty() && !moved) {
      return; // nothing new: no empty transaction
    }
    VcenterCheckpoint next = last == null ? checkpoint
        : new VcenterCheckpoint(vcenterUuid, last, List.copyOf(keysAtLast), now, lastStun,
            List.copyOf(pending.values()));
    if (next != null) {
      out.add(record(Topics.VCENTER_CHECKPOINTS, vcenterUuid, next, now));
    }
    producer.beginTransaction();
    try {
      for (ProducerRecord<byte[], byte[]> r : out) {
        producer.send(r);
      }
      producer.commitTransaction();
    } catch (RuntimeException e) {
      abortQuietly();
      throw e;
    }
    checkpoint = next;
    published.addAndGet(events);
  }

  /**
   * Reads the TaskInfo of each followed task and adds a {@link VcenterEvent#TASK_INFO} event for each state change;
   * a final task stops being followed, and one vCenter no longer knows is dropped.
   *
   * @return how many task events were added
   */
  private int followTasks(VcenterConnection c, Map<String, VcenterCheckpoint.PendingTask> pending,
      List<VcenterEvent> out, List<VcenterEvent> completed) throws IOException {
    int added = 0;
    for (VcenterCheckpoint.PendingTask t : List.copyOf(pending.values())) {
      Optional<JsonNode> info = c.taskInfo(t.taskKey());
      if (info.isEmpty()) {
        pending.remove(t.taskKey());
        problem("task " + t.taskKey() + " of " + t.vmMoref() + " is gone before it was seen to finish");
        continue;
      }
      String state = info.get().path("state").asText();
      if (state.equals(t.lastState())) {
        continue;
      }
      try {
        VcenterEvent e = mapper.taskChange(info.get(), vcenterUuid, t.eventKey(), t.chainId(),
            new io.stunwatch.model.EntityRef("VirtualMachine", t.vmMoref(), t.vmName()));
        out.add(e);
        added++;
        if (isCompletion(e)) {
          completed.add(e);
        }
      } catch (VimEventMapper.MappingException ex) {
        problem("task " + t.taskKey() + ": " + ex.getMessage());
      }
      if (isFinal(state)) {
        pending.remove(t.taskKey());
      } else {
        pending.put(t.taskKey(), new VcenterCheckpoint.PendingTask(t.taskKey(), t.eventKey(), t.chainId(),
            t.vmMoref(), t.vmName(), state));
      }
    }
    return added;
  }

  private static boolean isFinal(String state) {
    return "success".equals(state) || "error".equals(state);
  }

  private static boolean isCompletion(VcenterEvent e) {
    return e.category() == VcenterEventCategory.MIGRATION_COMPLETED
        || e.category() == VcenterEventCategory.MIGRATION_TASK && e.task() != null
        && "success".equals(e.task().state());
  }

  private void refreshInventory(VcenterConnection c, Instant now, List<ProducerRecord<byte[], byte[]>> out)
      throws IOException {
    Map<String, VmInventoryEntry> seenVms = new HashMap<>();
    for (VmInventoryEntry vm : c.vms(now)) {
      seenVms.put(vm.key(), vm);
      VmInventoryEntry before = vms.get(vm.key());
      if (before == null || !sameVm(before, vm)) {
        out.add(record(Topics.VM_INVENTORY, vm.key(), vm, now));
      }
    }
    for (String gone : vms.keySet()) {
      if (!seenVms.containsKey(gone)) {
        out.add(record(Topics.VM_INVENTORY, gone, null, now)); // removed VM: tombstone
      }
    }
    vms.clear();
    vms.putAll(seenVms);
    Map<String, HostInventoryEntry> seenHosts = new HashMap<>();
    for (HostInventoryEntry h : c.hosts(now)) {
      seenHosts.put(h.key(), h);
      HostInventoryEntry before = hosts.get(h.key());
      if (before == null || !before.equals(new HostInventoryEntry(h.vcenterUuid(), h.moref(), h.name(), h.cluster(),
          h.gpus(), h.vmotionNicSpeedMbps(), before.observedAt()))) {
        out.add(record(Topics.HOST_INVENTORY, h.key(), h, now));
      }
    }
    for (String gone : hosts.keySet()) {
      if (!seenHosts.containsKey(gone)) {
        out.add(record(Topics.HOST_INVENTORY, gone, null, now));
      }
    }
    hosts.clear();
    hosts.putAll(seenHosts);
  }

  private static boolean sameVm(VmInventoryEntry a, VmInventoryEntry b) {
    return a.equals(new VmInventoryEntry(b.vcenterUuid(), b.moref(), b.name(), b.biosUuid(), b.instanceUuid(),
        b.host(), b.cluster(), b.datacenter(), b.vmPathName(), b.memoryMiB(), b.vgpuBackings(), b.vgpuProfile(),
        a.observedAt()));
  }

  /** Reads the migrated VM's vmware.log and adds the stuns not published before. */
  private void fetchStuns(VcenterConnection c, VcenterEvent e, Map<String, Instant> lastStun,
      List<ProducerRecord<byte[], byte[]>> out) {
    if (e.vm() == null) {
      return;
    }
    VmInventoryEntry vm = vms.get(e.vmKey());
    if (vm == null || vm.vmPathName() == null || vm.datacenter() == null) {
      problem("no inventory (vmx path, datacenter) for " + e.vmKey() + ": cannot read its vmware.log");
      return;
    }
    Matcher m = VMX_PATH.matcher(vm.vmPathName());
    if (!m.matches()) {
      problem("vmx path of " + e.vmKey() + " is not '[datastore] dir/file.vmx': " + vm.vmPathName());
      return;
    }
    String datastore = m.group(1);
    String dir = m.group(2).contains("/") ? m.group(2).substring(0, m.group(2).lastIndexOf('/') + 1) : "";
    String logPath = dir + "vmware.log";
    String logFile = "[" + datastore + "] " + logPath;
    byte[] log;
    try {
      log = c.datastoreFile(vm.datacenter(), datastore, logPath);
    } catch (FileNotFoundException ex) {
      problem(logFile + " of " + e.vmKey() + " not found");
      return;
    } catch (IOException ex) {
      problem("cannot read " + logFile + " of " + e.vmKey() + ": " + ex.getMessage());
      return;
    }
    Instant after = lastStun.get(vm.moref());
    for (VmwareLogParser.Stun s : logParser.parseAfter(new String(log, StandardCharsets.UTF_8), after)) {
      StunObservation o = s.observation(vcenterUuid, vm.moref(), vm.name(), logFile);
      out.add(record(Topics.STUN_OBSERVATIONS, Keys.byVm(vm.biosUuid(), o.key()), o, o.timestamp()));
      lastStun.merge(vm.moref(), s.timestamp(), (a, b) -> a.isAfter(b) ? a : b);
    }
  }

  /** The Kafka key of a record about the VM {@code vmKey}: its VM id when the inventory knows it. */
  private String kafkaKey(String vmKey) {
    VmInventoryEntry vm = vms.get(vmKey);
    return Keys.byVm(vm == null ? null : vm.biosUuid(), vmKey);
  }

  private void problem(String message) {
    String suffix = problemLog.admit();
    if (suffix != null) {
      LOG.warn("vCenter {}: {}{}", connector.url(), message, suffix);
    }
  }

  /**
   * A record stamped with event time, except that a time in the future (a skewed host clock, a bad log line) is
   * stamped now: the broker rejects records too far ahead, and one such record would fail every retry of the whole
   * transaction. The value keeps the original time.
   */
  private <V> ProducerRecord<byte[], byte[]> record(Topic<String, V> topic, String key, V value, Instant at) {
    Instant now = clock.instant();
    Instant stamp = at.isAfter(now) ? now : at;
    return new ProducerRecord<>(topic.name(), null, stamp.toEpochMilli(), topic.encodeKey(key),
        topic.encodeValue(value));
  }

  private void abortQuietly() {
    try {
      producer.abortTransaction();
    } catch (RuntimeException ignored) {
      // the producer is closed and recreated on the next connect
    }
  }

  private void resetProducerOnFailure() {
    // A producer in an unknown transaction state is unsafe to reuse: the next connect makes a new one, whose
    // initTransactions() aborts anything left open, and reloads the committed checkpoint.
    closeProducer();
  }

  private void closeProducer() {
    if (producer != null) {
      try {
        producer.close(Duration.ofSeconds(5));
      } catch (RuntimeException ignored) {
        // closing
      }
      producer = null;
      vcenterUuid = null;
    }
  }

  private boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return running;
    } catch (InterruptedException e) {
      return false;
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    try {
      thread.join(15_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeProducer();
  }
}
