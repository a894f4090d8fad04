package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.stunwatch.collectors.worker.Backoff;
import io.stunwatch.metrics.Meters;
import io.stunwatch.model.GuardAction;
import io.stunwatch.model.VcenterCheckpoint;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
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
 *
 * <p>This class holds the session (the reconnect loop), the one transactional producer and the one checkpoint that
 * every transaction of a vCenter goes through: a poll's, and the DRS guard's changes. What a poll publishes is built
 * apart, by {@link PollBatches} (with {@link StunLogFetcher}, {@link TaskFollower}, {@link InventoryDiff} and
 * {@link CheckpointBounds}); the guard's decisions and rules are {@link DrsGuard}'s.
 */
public final class VcenterCollector implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(VcenterCollector.class);

  private final VcenterConnector connector;
  private final VcenterConfig config;
  private final Map<String, Object> kafkaProperties;
  private final Clock clock;
  private final PollBatches batches;
  private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));
  private final Thread thread;
  private final AtomicLong published = new AtomicLong();
  private final Counter reconnects;
  private final Counter unmappable;
  private final Counter logLinesSkipped;
  private final Counter checkpointTrimmed;
  private final CompletableFuture<String> fatal = new CompletableFuture<>();
  private volatile boolean running;
  private volatile VcenterCheckpoint checkpoint;

  private Producer<byte[], byte[]> producer;
  /** The DRS guard; null unless {@code guard.enabled}. */
  private DrsGuard guard;
  private final MeterRegistry registry;
  private final String host;
  private String vcenterUuid;

  public VcenterCollector(VcenterConnector connector, VcenterConfig config, Map<String, Object> kafkaProperties,
      Clock clock) {
    this(connector, config, kafkaProperties, clock, new SimpleMeterRegistry());
  }

  /**
   * @param registry where the collector's counters go, tagged with the vCenter's host (and port when not 443)
   */
  public VcenterCollector(VcenterConnector connector, VcenterConfig config, Map<String, Object> kafkaProperties,
      Clock clock, MeterRegistry registry) {
    String host = hostOf(connector.url());
    this.host = host;
    this.registry = registry;
    this.reconnects = Counter.builder(Meters.VCENTER_RECONNECTS).tag(Meters.TAG_VCENTER, host).register(registry);
    this.unmappable = Counter.builder(Meters.VCENTER_EVENTS_UNMAPPABLE).tag(Meters.TAG_VCENTER, host)
        .register(registry);
    this.logLinesSkipped = Counter.builder(Meters.VCENTER_LOG_LINES_SKIPPED).tag(Meters.TAG_VCENTER, host)
        .register(registry);
    this.checkpointTrimmed = Counter.builder(Meters.VCENTER_CHECKPOINT_TRIMMED).tag(Meters.TAG_VCENTER, host)
        .register(registry);
    FunctionCounter.builder(Meters.VCENTER_ELEMENTS_SKIPPED, connector,
        VcenterConnector::skippedElements).tag(Meters.TAG_VCENTER, host).register(registry);
    this.connector = connector;
    this.config = config;
    this.kafkaProperties = kafkaProperties;
    this.clock = clock;
    this.batches = new PollBatches(config, clock, connector.url().toString(), unmappable, logLinesSkipped,
        checkpointTrimmed);
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
    return (long) reconnects.count();
  }

  /** Events that could not be mapped (logged, skipped, checkpoint advanced). */
  public long unmappableEvents() {
    return (long) unmappable.count();
  }

  /** vmware.log lines skipped as bad (logged with their file and line). */
  public long logLinesSkipped() {
    return (long) logLinesSkipped.count();
  }

  /**
   * Completes, with the reason, when the collector stops for good without being closed: another instance fenced
   * it. Its supervisor should then restart the process, or leave the other one in charge.
   */
  public CompletionStage<String> fatal() {
    return fatal;
  }

  /** The host of {@code url}, with its port when not 443: two vCenters may share a host. */
  private static String hostOf(String url) {
    try {
      URI u = URI.create(url);
      return u.getPort() < 0 || u.getPort() == 443 ? u.getHost() : u.getHost() + ":" + u.getPort();
    } catch (IllegalArgumentException e) {
      return url;
    }
  }

  /** The last committed checkpoint, or null before the first. */
  public VcenterCheckpoint checkpoint() {
    return checkpoint;
  }

  private void run() {
    boolean first = true;
    while (running) {
      if (!first) {
        reconnects.increment();
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
        prepare(c.instanceUuid(), true);
        while (running) {
          poll(c);
          if (guard != null) {
            guardPass(c);
          }
          backoff.reset();
          if (!sleep(config.pollInterval())) {
            return;
          }
        }
      } catch (RuntimeException e) {
        if (fenced(e)) {
          String why = "another collector instance took over " + connector.url() + " (Kafka fenced this one: "
              + e.getMessage() + ")";
          LOG.error("{}; stopping", why);
          running = false;
          resetProducerOnFailure();
          fatal.complete(why);
          return;
        }
        if (running) {
          String why = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
          LOG.warn("vCenter {}: {}; reconnecting", connector.url(), why.replace('\n', ' '));
        }
        resetProducerOnFailure();
      } catch (IOException e) {
        if (running) {
          String why = e.getMessage() == null || e.getMessage().isBlank() ? e.toString() : e.getMessage();
          LOG.warn("vCenter {}: {}; reconnecting", connector.url(), why.replace('\n', ' '));
        }
        resetProducerOnFailure();
      }
    }
  }

  /**
   * Releases every DRS override the guard set in this vCenter ({@code stunwatch guard release --all}), on the
   * caller's thread, with this vCenter's transactional producer: a collector of the same vCenter that still runs is
   * fenced and stops, so that it cannot set them again.
   *
   * @return the audit records of what was done
   */
  public List<GuardAction> releaseGuards() throws IOException {
    List<GuardAction> done = new ArrayList<>();
    try (VcenterConnection c = connector.connect()) {
      prepare(c.instanceUuid(), false);
      if (checkpoint == null || checkpoint.protections().isEmpty()) {
        return done;
      }
      Map<String, VmInventoryEntry> byId = new HashMap<>();
      for (VmInventoryEntry vm : c.vms(clock.instant())) {
        if (vm.biosUuid() != null) {
          byId.put(vm.biosUuid(), vm);
        }
      }
      guard = DrsGuard.forRelease(config.guard(), clock, c.instanceUuid(), connector.url().toString(), host,
          registry);
      guard.restoreMaintenance(checkpoint.hostsInMaintenance()); // kept in the checkpoints it writes
      guard.releaseAll(c, byId::get, checkpoint.protections(), (actions, protections) -> {
        commitGuard(actions, protections);
        done.addAll(actions);
      }, "released by stunwatch guard release --all");
    } finally {
      closeProducer();
      closeGuard();
    }
    return done;
  }

  /**
   * First contact with this vCenter instance: its transactional producer and its committed checkpoint, and, with
   * {@code applyGuard} and {@code guard.enabled}, the DRS guard reading its decisions.
   */
  private void prepare(String uuid, boolean applyGuard) {
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
    closeGuard();
    if (applyGuard && config.guard().enabled()) {
      guard = DrsGuard.open(config.guard(), clock, uuid, connector.url().toString(), host, kafkaProperties,
          registry);
      if (checkpoint != null) {
        guard.restoreMaintenance(checkpoint.hostsInMaintenance());
      }
    }
    batches.resume(uuid);
    LOG.info("vCenter {}: resuming {}", connector.url(), checkpoint == null
        ? "from " + config.startLookback() + " ago (no checkpoint yet)"
        : "after " + checkpoint.lastCreatedTime() + " " + checkpoint.keysAtLastCreated());
  }

  /**
   * One poll: read the events since the overlap window behind the checkpoint, then publish the new ones with their
   * inventory changes, stun times and the checkpoint, in transactions of at most
   * {@link VcenterConfig#maxEventsPerTransaction()} events each: a catch-up of a day commits as it goes, and never
   * outgrows the transaction timeout.
   */
  void poll(VcenterConnection c) throws IOException {
    Instant now = clock.instant();
    Instant firstStart = now.minus(config.startLookback());
    List<JsonNode> raw = c.eventsSince(EventCursor.from(checkpoint, config.eventOverlap()).readFrom(firstStart));
    int batch = config.maxEventsPerTransaction();
    for (int from = 0; from == 0 || from < raw.size(); from += batch) {
      List<JsonNode> part = raw.subList(from, Math.min(raw.size(), from + batch));
      publish(c, now, firstStart, part, from + batch >= raw.size());
    }
  }

  /** Publishes one part of a poll's events in one transaction; the last part also follows the pending tasks. */
  private void publish(VcenterConnection c, Instant now, Instant firstStart, List<JsonNode> raw, boolean lastPart)
      throws IOException {
    Optional<PollBatches.Batch> batch = batches.build(c, vcenterUuid, checkpoint, guard, now, firstStart, raw,
        lastPart);
    if (batch.isEmpty()) {
      return;
    }
    write(batch.get().records());
    batches.committed();
    checkpoint = batch.get().checkpoint();
    published.addAndGet(batch.get().events());
  }

  /** Writes {@code records} in one transaction, or none of them. */
  private void write(List<ProducerRecord<byte[], byte[]>> records) {
    producer.beginTransaction();
    try {
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r);
      }
      producer.commitTransaction();
    } catch (RuntimeException e) {
      abortQuietly();
      throw e;
    }
  }

  /**
   * Reads the guard's new decisions and applies them ({@link GuardApplier}); each change is committed with its audit
   * records and the checkpoint that records the protections.
   */
  private void guardPass(VcenterConnection c) throws IOException {
    if (checkpoint == null) {
      return; // the first poll commits one
    }
    guard.pass(c, batches.vmsById()::get, checkpoint.protections(), this::commitGuard);
  }

  /** Publishes the guard's audit records and the checkpoint with {@code protections}, in one transaction. */
  private void commitGuard(List<GuardAction> actions, List<VcenterCheckpoint.Protection> protections) {
    Instant now = clock.instant();
    VcenterCheckpoint next = checkpoint.withProtections(protections, now,
        guard == null ? null : guard.decisionsReadAt(), guard == null ? checkpoint.hostsInMaintenance()
        : guard.hostsInMaintenance());
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (GuardAction a : actions) {
      records.add(batches.record(Topics.GUARD_ACTIONS, a.vmId(), a, now));
    }
    records.add(batches.record(Topics.VCENTER_CHECKPOINTS, vcenterUuid, next, now));
    write(records);
    checkpoint = next;
  }

  private void closeGuard() {
    if (guard != null) {
      guard.close();
    }
    guard = null;
  }

  private void abortQuietly() {
    try {
      producer.abortTransaction();
    } catch (RuntimeException ignored) {
      // the producer is closed and recreated on the next connect
    }
  }

  /** Whether {@code e} says that a newer producer with this transactional id took over. */
  static boolean fenced(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
        return true;
      }
    }
    return false;
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
    closeGuard();
  }
}
