package io.stunwatch.bench;

import io.stunwatch.model.EntityRef;
import io.stunwatch.model.GpuSample;
import io.stunwatch.model.Keys;
import io.stunwatch.model.MigrationAlert;
import io.stunwatch.model.TaskSnapshot;
import io.stunwatch.model.VcenterEvent;
import io.stunwatch.model.VcenterEventCategory;
import io.stunwatch.model.VgpuProfile;
import io.stunwatch.model.VmInventoryEntry;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The alert latency of {@code bench processor}: the topology fed samples of 1,000 loaded VMs at a fixed rate while
 * five migrations a second start, each timed from its start event's send to its FIRING alert's arrival.
 */
final class AlertLatencyRun {

  /**
   * Alert latencies of one run: the topology fed samples of 1,000 loaded VMs while five migrations a second start.
   *
   * @param alerts        alerts measured
   * @param p50Millis     their median latency
   * @param p99Millis     their 99th percentile
   * @param achievedRate  the sample rate the generator achieved
   */
  record AlertLatency(int alerts, double p50Millis, double p99Millis, double achievedRate) {
  }

  private final int rate;
  private final Duration length;
  private final PrintWriter log;

  /**
   * @param rate   GPU samples a second
   * @param length how long migrations start, after a full alert window of samples
   */
  AlertLatencyRun(int rate, Duration length, PrintWriter log) {
    this.rate = rate;
    this.length = length;
    this.log = log;
  }

  /** Runs the topology with {@code streams} settings and {@code config}, and measures its alerts. */
  AlertLatency run(String bootstrap, Properties streams, ProcessorConfig config) throws Exception {
    int vms = 1000;
    String vc = "bench-vcenter";
    VgpuProfile profile = VgpuProfile.parse("A100-40C").orElseThrow();
    Map<String, Long> sentAt = new ConcurrentHashMap<>();
    List<Double> latencies = new ArrayList<>();
    try (StreamsProcessor processor = StreamsProcessor.start(streams, config,
        Clock.systemUTC(), null);
        KafkaProducer<byte[], byte[]> p = BenchKafka.producer(bootstrap);
        KafkaConsumer<byte[], byte[]> alerts = BenchKafka.consumer(bootstrap, "bench-alerts")) {
      if (!processor.awaitRunning(Duration.ofSeconds(120))) {
        throw new IllegalStateException("the topology did not start");
      }
      for (int i = 0; i < vms; i++) {
        VmInventoryEntry e = new VmInventoryEntry(vc, "vm-" + i, "bench-" + i, ProcessorBenchmark.vmId(i), null,
            new EntityRef("HostSystem", "host-1", "esx01"), null, "dc", null, null, List.of(), profile,
            Instant.now());
        BenchKafka.send(p, Topics.VM_INVENTORY, e.key(), e, e.observedAt());
      }
      p.flush();
      alerts.subscribe(List.of(Topics.MIGRATION_ALERTS.name()));
      AtomicBoolean reading = new AtomicBoolean(true);
      Thread reader = new Thread(() -> {
        while (reading.get()) {
          for (ConsumerRecord<byte[], byte[]> r : alerts.poll(Duration.ofMillis(20))) {
            long now = System.nanoTime();
            MigrationAlert a = Topics.MIGRATION_ALERTS.valueSerde().decode(r.value());
            Long sent = a.state() == MigrationAlert.AlertState.FIRING ? sentAt.remove(a.migrationId()) : null;
            if (sent != null) {
              synchronized (latencies) {
                latencies.add((now - sent) / 1e6);
              }
            }
          }
        }
      }, "bench-alert-reader");
      reader.start();

      long begin = System.nanoTime();
      long total = length.toNanos();
      long sentSamples = 0;
      long chain = 1;
      long warmup = Duration.ofSeconds(70).toNanos(); // a full alert window of samples before the first start
      while (System.nanoTime() - begin < warmup + total) {
        long elapsed = System.nanoTime() - begin;
        long due = elapsed * rate / 1_000_000_000L;
        Instant now = Instant.now();
        while (sentSamples < due) {
          int vm = (int) (sentSamples % vms);
          GpuSample g = new GpuSample(ProcessorBenchmark.vmId(vm), "bench-" + vm, now, 0, "GPU-" + vm,
              "GRID A100-40C", null, 95.0, 60.0, 30_000L, 40_960L, null, null, null, null, profile);
          BenchKafka.send(p, Topics.GPU_SAMPLES, g.vmId(), g, now);
          sentSamples++;
        }
        if (elapsed > warmup && elapsed - warmup >= (chain - 1) * 200_000_000L) {
          int vm = (int) (chain * 7 % vms);
          EntityRef ref = new EntityRef("VirtualMachine", "vm-" + vm, "bench-" + vm);
          TaskSnapshot task = new TaskSnapshot("task-" + chain, "VirtualMachine.relocate", ref, "running", false,
              now, now, null, null, null, chain, "TaskReasonUser", "admin");
          VcenterEvent e = new VcenterEvent(vc, chain, chain, now, "TaskEvent", null,
              VcenterEventCategory.MIGRATION_TASK, "admin", ref, null, null, null, null, null, null, null, null,
              null, null, task);
          sentAt.put(Keys.migration(vc, chain), System.nanoTime());
          BenchKafka.send(p, Topics.VCENTER_EVENTS, e.vmKey(), e, now);
          p.flush(); // the start is timed from here; do not let it wait in a batch
          chain++;
        }
        LockSupport.parkNanos(1_000_000);
      }
      double achieved = sentSamples / ((System.nanoTime() - begin) / 1e9);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!sentAt.isEmpty() && System.nanoTime() < deadline) {
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
      reading.set(false);
      reader.join(5000);
      List<Double> sorted;
      synchronized (latencies) {
        sorted = latencies.stream().sorted().toList();
      }
      if (sorted.isEmpty()) {
        throw new IllegalStateException("no alert arrived");
      }
      if (!sentAt.isEmpty()) {
        log.printf("%d migration starts raised no alert within 30 s%n", sentAt.size());
        log.flush();
      }
      return new AlertLatency(sorted.size(), ProcessorBenchmark.percentile(sorted, 50), ProcessorBenchmark.percentile(sorted, 99), achieved);
    }
  }
}
