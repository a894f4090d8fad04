package io.stunwatch.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The raw baseline of {@code bench processor}: plain consume-produce loops over the input topics, with no Kafka
 * Streams, read_committed in and out as the processor is.
 */
final class RawPass {

  private RawPass() {
  }

  /**
   * Plain consume-produce loops over the input topics, as many as the Streams phases have threads, each with its
   * own consumer and producer and its share of the partitions (assigned, not subscribed: no rebalance as the loops
   * join). Why: one loop against two stream threads would credit the topology with the second thread's gain alone.
   */
  static ProcessorBenchmark.Throughput run(String bootstrap, Set<String> inputs, long n, String group, int threads)
      throws Exception {
    Set<TopicPartition> all;
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      all = BenchKafka.ends(admin, inputs).keySet();
    }
    AtomicLong seen = new AtomicLong();
    List<KafkaConsumer<byte[], byte[]>> consumers = new ArrayList<>();
    List<Thread> loops = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      int loopIndex = i;
      // Partition k of every topic to loop k mod threads, as Streams spreads its tasks over its threads.
      List<TopicPartition> share = all.stream().filter(tp -> tp.partition() % threads == loopIndex).toList();
      KafkaConsumer<byte[], byte[]> c = BenchKafka.consumer(bootstrap, group);
      c.assign(share);
      consumers.add(c);
      Thread loop = new Thread(() -> {
        try (c; KafkaProducer<byte[], byte[]> p = BenchKafka.producer(bootstrap)) {
          try {
            while (seen.get() < n) {
              int count = 0;
              for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                p.send(new ProducerRecord<>("bench.raw", null, r.timestamp(), r.key(), r.value()));
                count++;
              }
              seen.addAndGet(count);
            }
          } catch (WakeupException e) {
            // every record is copied: the other loops are done
          }
          p.flush();
          try {
            c.commitSync();
          } catch (WakeupException e) {
            c.commitSync(); // the wake-up came after this loop's last poll, and was meant for it
          }
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }, group + "-loop-" + i);
      loops.add(loop);
      loop.start();
    }
    long first = -1;
    long tenth = -1;
    long atTenth = 0;
    for (long now = seen.get(); now < n && failures.isEmpty(); now = seen.get()) {
      if (first < 0 && now > 0) {
        first = System.nanoTime() - t0;
      }
      if (tenth < 0 && now >= n / 10) {
        tenth = System.nanoTime() - t0;
        atTenth = now;
      }
      LockSupport.parkNanos(200_000);
    }
    consumers.forEach(KafkaConsumer::wakeup); // a loop whose share is done waits in poll
    for (Thread loop : loops) {
      loop.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException(group + " failed: " + failures.get(0), failures.get(0));
    }
    long end = System.nanoTime() - t0;
    return ProcessorBenchmark.Throughput.of(n, first < 0 ? end : first, tenth < 0 ? end : tenth, tenth < 0 ? n : atTenth, end,
        Double.NaN);
  }
}
