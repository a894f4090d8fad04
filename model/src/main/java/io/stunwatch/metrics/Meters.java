package io.stunwatch.metrics;

/**
 * Every meter name Stunwatch exposes, in one place: dashboards and alert rules query exactly these names (with
 * Prometheus' {@code _total}, {@code _seconds} suffixes and dots turned into underscores). Tag values are the
 * enums beside this class, so label cardinality stays bounded.
 */
public final class Meters {

  /** Tag: which collector input, values from {@link CollectorInput}. */
  public static final String TAG_INPUT = "input";
  /** Tag: why a sample was dropped, values from {@link DropReason}. */
  public static final String TAG_REASON = "reason";

  /** Counter: samples an input read and parsed. */
  public static final String COLLECTOR_SAMPLES_READ = "stunwatch.collector.samples.read";
  /** Counter: samples acknowledged by Kafka. */
  public static final String COLLECTOR_SAMPLES_SENT = "stunwatch.collector.samples.sent";
  /** Counter: samples given up on, by input and reason. Never silent: each kind is also logged once per minute. */
  public static final String COLLECTOR_SAMPLES_DROPPED = "stunwatch.collector.samples.dropped";
  /** Counter: lines or files an input could not parse. */
  public static final String COLLECTOR_PARSE_ERRORS = "stunwatch.collector.parse.errors";
  /** Counter: restarts of an input's child process (nvidia-smi). */
  public static final String COLLECTOR_CHILD_RESTARTS = "stunwatch.collector.child.restarts";
  /** Gauge, seconds: age of the newest sample an input produced; NaN before the first. */
  public static final String COLLECTOR_LAST_SAMPLE_AGE = "stunwatch.collector.last.sample.age";
  /** Gauge: samples waiting to be sent (queued in the collector or in flight in the producer). */
  public static final String COLLECTOR_BUFFERED = "stunwatch.collector.buffered";
  /**
   * Counter: changes of migration-under-load alerts offered to the alert webhook, by {@link #TAG_RESULT}
   * ({@link WebhookResult}).
   */
  public static final String ALERT_WEBHOOK_DELIVERIES = "stunwatch.alert.webhook.deliveries";

  /** Counter: exporter scrapes that gave no page, by {@link #TAG_REASON} ({@link ScrapeFailure}). */
  public static final String COLLECTOR_SCRAPE_FAILURES = "stunwatch.collector.scrape.failures";

  /** Tag: an API route's path template (never a raw path, so never an id). */
  public static final String TAG_ROUTE = "route";
  /** Tag: an HTTP status class, {@code 2xx}..{@code 5xx}. */
  public static final String TAG_STATUS = "status";

  /** Timer: API requests by route and status class. */
  public static final String API_REQUESTS = "stunwatch.api.requests";
  /** API: connections closed as they opened because {@code api.max-connections} were open. */
  public static final String API_CONNECTIONS_REFUSED = "stunwatch.api.connections.refused";

  /** Tag: a VM's name in the inventory (its id while the inventory does not know it). Bounded by the fleet. */
  public static final String TAG_VM = "vm";
  /**
   * Tag: a VM's id (its SMBIOS UUID, as the worker reports it), which names it across vCenters where names repeat.
   * One per VM, as {@link #TAG_VM} is: it adds no series.
   */
  public static final String TAG_VM_ID = "vm_id";
  /** Tag: the cluster a VM runs in, by name ({@code unresolved} while the inventory does not know it). */
  public static final String TAG_CLUSTER = "cluster";
  /** Tag: the ESXi host a VM runs on ({@code unresolved} while unknown). */
  public static final String TAG_HOST = "host";
  /** Tag: a vGPU profile such as {@code A100-40C} ({@code none} when unknown); bounded by NVIDIA's profile list. */
  public static final String TAG_PROFILE = "profile";
  /** Tag: who started a migration, values from {@code io.stunwatch.model.Initiator}. */
  public static final String TAG_INITIATOR = "initiator";
  /**
   * Tag: how a migration ended, values from {@code io.stunwatch.model.MigrationState}; on the alert webhook's
   * deliveries, what became of one ({@link WebhookResult}).
   */
  public static final String TAG_RESULT = "result";
  /** Tag: a catalog topic's name. */
  public static final String TAG_TOPIC = "topic";
  /** Tag: where a dead letter failed, values from {@code io.stunwatch.model.DeadLetter.Stage}. */
  public static final String TAG_STAGE = "stage";
  /** Tag: a vCenter's instance UUID ({@code unresolved} on a VM gauge while the inventory does not know the VM). */
  public static final String TAG_VCENTER = "vcenter";
  /**
   * Tag: which view a VM's GPU figures were read in, {@code guest} or {@code host} (values from
   * {@code io.stunwatch.model.LoadSource}); a VM shows one, its guest's when fresh.
   */
  public static final String TAG_LOAD_SOURCE = "load_source";
  /** Tag: which kind of input a freshness gauge watches, values from {@link PipelineSource}. */
  public static final String TAG_SOURCE = "source";

  /** Gauge, percent: a VM's GPU utilization in its latest samples, averaged over its GPUs; absent while unknown. */
  public static final String VM_GPU_UTILIZATION = "stunwatch.vm.gpu.utilization.percent";
  /** Gauge, bytes: a VM's framebuffer in use, all its GPUs; absent while unknown. */
  public static final String VM_FB_USED = "stunwatch.vm.fb.used.bytes";
  /** Gauge, bytes: a VM's framebuffer size, all its GPUs; absent while unknown. */
  public static final String VM_FB_TOTAL = "stunwatch.vm.fb.total.bytes";
  /** Gauge, bytes/s: a VM's RDMA traffic (received and sent) in its latest second that had a rate. */
  public static final String VM_RDMA = "stunwatch.vm.rdma.bytes.per.second";
  /** Gauge: a VM's training throughput (the job's unit per second, e.g. images/s) in its latest second that had one. */
  public static final String VM_THROUGHPUT = "stunwatch.vm.training.throughput";
  /**
   * Gauge: VMs with a recent sample whose per-VM series this instance leaves out ({@code api.metrics.vm-series}).
   */
  public static final String VM_SERIES_OMITTED = "stunwatch.vm.series.omitted";

  /** Distribution, seconds: migration duration, by profile, initiator and result. */
  public static final String MIGRATION_DURATION = "stunwatch.migration.duration.seconds";
  /** Distribution, seconds: migration stun time (vmware.log or sample-gap estimate), by profile, initiator, result. */
  public static final String MIGRATION_STUN = "stunwatch.migration.stun.seconds";
  /** Tag: why a migration failed, a {@link io.stunwatch.model.FailureCause} name. */
  public static final String TAG_CAUSE = "cause";
  /** Tag: whether the migration started under load ({@code true}, {@code false}). */
  public static final String TAG_UNDER_LOAD = "under_load";
  /**
   * Counter: failed migrations, by profile, cause and whether they started under load; each counted once, by the
   * cause known when its impact first settled ({@code GET /api/stun-time/stats} has the causes as revised since).
   */
  public static final String MIGRATION_FAILURES = "stunwatch.migration.failures";
  /** Counter: migrations whose impact record was settled, by profile, initiator and result. */
  public static final String MIGRATIONS = "stunwatch.migrations";
  /** Counter: migration-under-load alerts raised, by profile and initiator. */
  public static final String ALERTS = "stunwatch.alerts";
  /** Gauge: migrations running now that started under load (alert firing). */
  public static final String MIGRATIONS_UNDER_LOAD = "stunwatch.migrations.under.load";
  /** Counter: dead letters written, by source topic and stage. */
  public static final String DEAD_LETTERS = "stunwatch.dead.letters";
  /**
   * Gauge: VMs whose per-VM DRS override the DRS guard has set and not released (enforce mode), by {@link #TAG_VCENTER}
   * (its instance UUID), from the newest checkpoint of each vCenter whose collector runs the guard.
   */
  public static final String GUARD_PROTECTED = "stunwatch.guard.protected";
  /**
   * Gauge, seconds: how long ago each vCenter's collector last read a decision of the DRS guard (or began to read
   * them), by {@link #TAG_VCENTER} (its instance UUID), from its newest checkpoint; it goes on growing when the
   * collector stops. With protections held, decisions (a HOLD a minute per protected VM) should never be minutes old.
   */
  public static final String GUARD_DECISIONS_AGE = "stunwatch.guard.decisions.age.seconds";
  /**
   * vCenter collector, counter: the DRS guard's audit records ({@code stunwatch.guard-actions}), by
   * {@link #TAG_VCENTER}, {@link #TAG_KIND} ({@code GuardAction.Kind}) and {@link #TAG_RESULT}
   * ({@code GuardAction.Result}): a refusal of vCenter (a missing privilege) counts as {@code refused}.
   */
  public static final String GUARD_ACTIONS = "stunwatch.guard.actions";
  /**
   * vCenter collector, counter: records of {@code stunwatch.guard-decisions} that did not decode, logged with their
   * partition and offset and skipped, by {@link #TAG_VCENTER}.
   */
  public static final String GUARD_DECISIONS_UNDECODABLE = "stunwatch.guard.decisions.undecodable";
  /** What a guard action did: {@code protect} or {@code release}. */
  public static final String TAG_KIND = "kind";
  /** vCenter collector: sessions re-established after a failure, by {@link #TAG_VCENTER} (its host, and port when not 443). */
  public static final String VCENTER_RECONNECTS = "stunwatch.vcenter.reconnects";
  /** vCenter collector: events that could not be mapped, skipped with a log line, by {@link #TAG_VCENTER}. */
  public static final String VCENTER_EVENTS_UNMAPPABLE = "stunwatch.vcenter.events.unmappable";
  /** vCenter collector: vmware.log lines skipped as bad (logged with file and line), by {@link #TAG_VCENTER}. */
  public static final String VCENTER_LOG_LINES_SKIPPED = "stunwatch.vcenter.log.lines.skipped";
  /**
   * vCenter collector: overlap-window events and followed tasks left out of a checkpoint so that it fits Kafka's
   * record limit (a storm of migrations), by {@link #TAG_VCENTER}.
   */
  public static final String VCENTER_CHECKPOINT_TRIMMED = "stunwatch.vcenter.checkpoint.trimmed";
  /**
   * vCenter collector: elements of the vCenter's answers newer than the vim25 binding (properties, types, enum
   * values), skipped so the rest of each answer is kept, by {@link #TAG_VCENTER}.
   */
  public static final String VCENTER_ELEMENTS_SKIPPED = "stunwatch.vcenter.answer.elements.skipped";
  /** Gauge, seconds: age of each vCenter collector's latest checkpoint (saved at least every heartbeat). */
  public static final String VCENTER_CHECKPOINT_AGE = "stunwatch.vcenter.checkpoint.age.seconds";
  /** Tag: where a collector stands with a peer ({@link HostState}). */
  public static final String TAG_STATE = "state";
  /** Hosts collector, gauge: hosts by {@link #TAG_STATE} ({@link HostState}). */
  public static final String HOSTS = "stunwatch.collector.hosts";
  /**
   * Hosts collector, counter: streams lost or refused, by {@link #TAG_HOST} and {@link #TAG_REASON}
   * ({@link HostFailure}). Every series of a host exists from when it is followed.
   */
  public static final String HOST_FAILURES = "stunwatch.collector.host.failures";
  /** Hosts collector, gauge, seconds: age of each host's newest reading, by {@link #TAG_HOST}; NaN before the first. */
  public static final String HOST_READING_AGE = "stunwatch.collector.host.reading.age";
  /** Hosts collector, counter: host-list entries skipped as bad (logged with file and line). */
  public static final String HOST_LIST_ERRORS = "stunwatch.collector.host.list.errors";
  /** Gauge, Unix seconds: time of the newest record seen, by {@link PipelineSource}. */
  public static final String LAST_EVENT = "stunwatch.last.event.timestamp.seconds";
  /** Tag: a Kafka Streams state store's name. */
  public static final String TAG_STORE = "store";
  /** Tag: {@link RestoreKind}. */
  public static final String TAG_TASK = "task";
  /**
   * Counter, by {@link #TAG_STORE} and {@link #TAG_TASK}: changelog records this processor instance has read back
   * into its state stores since it started. After a crash it shows whether the stores were kept (a few records) or
   * restored whole.
   */
  public static final String PROCESSOR_RESTORED_RECORDS = "stunwatch.processor.restored.records";
  /** Counter: records the API's metrics feed could not decode (each is logged with topic and offset). */
  public static final String METRICS_UNDECODABLE = "stunwatch.metrics.undecodable";

  private Meters() {
  }
}
