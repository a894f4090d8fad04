package io.stunwatch.bench;

import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.processor.ProcessorConfig;
import io.stunwatch.processor.StreamsProcessor;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.Topology;

/**
 * A Kafka Streams pass of {@code bench processor}, the passthrough baseline's or the topology's: run with the
 * processor's settings until its group has processed every input record, and timed from Streams' own counts.
 */
final class StreamsPass {

  private final ProcessorBenchmark.Settings settings;
  private final PrintWriter log;

  StreamsPass(ProcessorBenchmark.Settings settings, PrintWriter log) {
    this.settings = settings;
    this.log = log;
  }

  /**
   * Runs {@code topology} with the processor's settings until its group has committed every input record.
   *
   * <p>Progress is read from Streams' own {@code process-total} of each stream thread, every 10 ms, not from the
   * group's committed offsets: those move only at commits, and at the processor's commit interval (1 s) a pass of a
   * few seconds would be timed to the nearest second. The count includes the records of the topology's own
   * repartition topics (about half a percent here), so a pass is taken as processed once the count reaches the
   * input's size; what the group commits after that (up to an interval) is outside the steady window, as raw's last
   * flush and commit are outside its own.
   */
  ProcessorBenchmark.Throughput run(String bootstrap, Topology topology, String appId, Set<String> inputs)
      throws Exception {
    ProcessorConfig config = ProcessorConfig.defaults().withThreads(settings.threads()).withIdentity(appId,
        settings.dir().resolve("state-" + appId));
    Properties p = properties(settings, config, bootstrap);
    ProcessCpu cpu = ProcessCpu.self();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        KafkaStreams streams = new KafkaStreams(topology, p)) {
      Map<TopicPartition, Long> ends = BenchKafka.ends(admin, inputs);
      long total = ends.values().stream().mapToLong(Long::longValue).sum();
      // Each stream thread registers its metrics when it is built, so the handles hold for the whole pass.
      Map<String, Metric> processTotals = StreamThreads.processTotals(streams);
      long t0 = System.nanoTime();
      long first = -1;
      long tenth = -1;
      double atTenth = 0;
      long end = -1;
      double atEnd = 0;
      WaitBreakdown waitsAtTenth = null;
      Map<String, Long> cpuAtTenth = Map.of();
      Map<String, Long> cpuAtEnd = Map.of();
      Map<String, Long> processAtTenth = Map.of();
      Map<String, Long> processAtEnd = Map.of();
      long faultsAtTenth = -1;
      long faultsAtEnd = -1;
      Map<String, Double> processedAtTenth = Map.of();
      // The window starts at the first tenth and after the group's last rebalance: a pass's second stream thread
      // may join after the first has started, and a rebalance inside the window is start-up, not steady state: slow
      // topology passes (main consumers waiting 0.57-0.75 of wall time, against about 0.1) are the ones whose
      // consumers' rebalance count rises after the first tenth.
      AtomicInteger rebalances = new AtomicInteger();
      streams.setStateListener((to, from) -> {
        if (to == KafkaStreams.State.REBALANCING) {
          rebalances.incrementAndGet();
        }
      });
      int rebalancesAtTenth = 0;
      int restarts = 0;
      List<StreamThreads.Mark> marks = new ArrayList<>();
      streams.start();
      while (true) {
        long now = System.nanoTime() - t0;
        StreamThreads.Mark mark = new StreamThreads.Mark(now, StreamThreads.processed(processTotals));
        marks.add(mark);
        double sum = mark.total();
        if (first < 0 && sum > 0) {
          first = now;
        }
        if (tenth >= 0 && end < 0 && rebalances.get() != rebalancesAtTenth) {
          tenth = -1;
          restarts++;
        }
        if (tenth < 0 && sum >= total / 10.0 && streams.state() == KafkaStreams.State.RUNNING) {
          tenth = now;
          rebalancesAtTenth = rebalances.get();
          atTenth = sum;
          cpuAtTenth = StreamThreads.streamThreadCpuNanos(appId);
          processedAtTenth = mark.processed();
          processAtTenth = cpu.snapshot();
          faultsAtTenth = cpu.minorFaults();
          waitsAtTenth = WaitBreakdown.of(streams);
        }
        if (end < 0 && tenth >= 0 && sum >= total) {
          end = now;
          atEnd = sum;
          cpuAtEnd = StreamThreads.streamThreadCpuNanos(appId);
          processAtEnd = cpu.snapshot();
          faultsAtEnd = cpu.minorFaults();
        }
        Map<TopicPartition, Long> done = new HashMap<>();
        admin.listConsumerGroupOffsets(appId).partitionsToOffsetAndMetadata().get()
            .forEach((tp, o) -> done.put(tp, o.offset()));
        if (ends.entrySet().stream().allMatch(e -> done.getOrDefault(e.getKey(), 0L) >= e.getValue())) {
          break;
        }
        if (streams.state() == KafkaStreams.State.ERROR) {
          throw new IllegalStateException(appId + " failed");
        }
        LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      }
      long committedAll = System.nanoTime() - t0;
      if (end < 0) { // a rebalance to the last, or the count never reached the input's size: no steady window
        end = committedAll;
        tenth = end;
        atTenth = total;
        atEnd = total;
        cpuAtEnd = StreamThreads.streamThreadCpuNanos(appId);
        processAtEnd = cpu.snapshot();
        cpuAtTenth = cpuAtEnd;
        processAtTenth = processAtEnd;
        faultsAtEnd = cpu.minorFaults();
        faultsAtTenth = faultsAtEnd;
      }
      double busy = end == tenth ? Double.NaN
          : (StreamThreads.total(cpuAtEnd) - StreamThreads.total(cpuAtTenth)) / (double) Math.max(1, end - tenth);
      double steady = atEnd <= atTenth ? Double.NaN : (atEnd - atTenth) / (Math.max(1, end - tenth) / 1e9);
      ProcessorBenchmark.Throughput t = new ProcessorBenchmark.Throughput(steady, total / (Math.max(1, committedAll) / 1e9), first / 1e9, busy,
          StreamThreads.allThreadsAtWork(marks, tenth));
      flushPrintf("  %s stream thread: %s%n", appId, StreamThreads.threadMetrics(streams));
      flushPrintf("    rebalances: %d in the pass, %d of them after the first tenth (each restarted the steady window)"
          + "; all processed %.2f s before all committed; first record of each thread at %s%n", rebalances.get(),
          restarts, (committedAll - end) / 1e9, StreamThreads.firstRecords(marks));
      flushPrintf("    stream threads in steady state: %s%n", StreamThreads.threadShares(streams, cpuAtTenth, cpuAtEnd,
          processedAtTenth, marks.get(marks.size() - 1).processed(), end - tenth));
      flushPrintf("    %s%n", ProcessCpu.since(processAtTenth, processAtEnd,
          StreamThreads.total(cpuAtEnd) - StreamThreads.total(cpuAtTenth), end - tenth));
      flushPrintf("    %s%n", ProcessCpu.faultsSince(faultsAtTenth, faultsAtEnd, atEnd - atTenth));
      if (waitsAtTenth != null) {
        flushPrintf("%s%n", WaitBreakdown.of(streams).since(waitsAtTenth));
      }
      streams.close(Duration.ofSeconds(30));
      BenchKafka.deleteInternalTopics(admin, appId);
      return t;
    }
  }

  /** The processor's Streams settings with the run's {@code --streams-config} over them. */
  static Properties properties(ProcessorBenchmark.Settings settings, ProcessorConfig config, String bootstrap) {
    return StreamsOverrides.applied(StreamsProcessor.properties(config, new KafkaClientConfig(bootstrap)),
        settings.streamsConfig());
  }

  private void flushPrintf(String format, Object... args) {
    log.printf(format, args);
    log.flush();
  }
}
