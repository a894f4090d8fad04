package io.stunwatch.collectors.hosts;

import io.stunwatch.model.HostInventoryEntry;
import io.stunwatch.model.topic.RecordDecodeException;
import io.stunwatch.model.topic.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU hosts of the vCenter inventory ({@code stunwatch.host-inventory}, compacted, read whole from its start
 * and then followed): every host with an NVIDIA GPU, and every host that the address book names. A host removed
 * from vCenter (a tombstone) is no longer followed. The address book ({@code hosts.file}) says how to reach a host
 * whose inventory name is not its SSH address.
 */
public final class InventoryHostDirectory implements HostDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(InventoryHostDirectory.class);

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final HostDirectory addressBook;
  private final int defaultPort;
  private final Runnable badRecord;
  /** Inventory key to host name, for the hosts to follow (an NVIDIA GPU) and the others (named by the book). */
  private final Map<String, Host> byKey = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  private record Host(String name, boolean gpu) {
  }

  public InventoryHostDirectory(Map<String, Object> kafka, HostDirectory addressBook, int defaultPort,
      Runnable badRecord) {
    Map<String, Object> p = new HashMap<>(kafka);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "stunwatch-hosts-inventory");
    this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    this.addressBook = addressBook;
    this.defaultPort = defaultPort;
    this.badRecord = badRecord;
    this.thread = new Thread(this::run, "hosts-inventory");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    try {
      List<TopicPartition> partitions = List.of();
      while (running && partitions.isEmpty()) {
        try {
          partitions = consumer.partitionsFor(Topics.HOST_INVENTORY.name(), Duration.ofSeconds(30)).stream()
              .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
          partitions = List.of();
        }
        if (partitions.isEmpty() && running) {
          LOG.warn("{} has no partitions yet (is collect vcenter running?); asking again",
              Topics.HOST_INVENTORY.name());
        }
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      while (running) {
        try {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
            apply(r);
          }
        } catch (WakeupException e) {
          throw e;
        } catch (RuntimeException e) {
          // an authorization or broker failure: the hosts known so far stay followed, and reading goes on
          LOG.error("Reading {} failed; trying again in 5 s", Topics.HOST_INVENTORY.name(), e);
          Thread.sleep(5000);
        }
      }
    } catch (WakeupException e) {
      if (running) {
        throw e;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    String key;
    try {
      key = Topics.HOST_INVENTORY.decodeKey(r);
      if (r.value() == null) {
        Host gone = byKey.remove(key);
        if (gone != null) {
          LOG.info("{} left the inventory ({})", gone.name(), key);
        }
        return;
      }
      HostInventoryEntry e = Topics.HOST_INVENTORY.decodeValue(r);
      if (e.name() == null || e.name().isBlank()) {
        throw new RecordDecodeException(r.topic(), r.partition(), r.offset(), "host " + key + " has no name", null);
      }
      boolean gpu = e.gpus().stream().anyMatch(g -> nvidia(g.vendorName()) || nvidia(g.deviceName()));
      byKey.put(key, new Host(e.name(), gpu));
    } catch (RecordDecodeException e) {
      badRecord.run();
      LOG.warn("{}: skipped", e.getMessage());
    }
  }

  private static boolean nvidia(String s) {
    return s != null && s.toLowerCase(Locale.ROOT).contains("nvidia");
  }

  @Override
  public Map<String, HostAddress> hosts() {
    Map<String, HostAddress> book = addressBook.hosts();
    Map<String, HostAddress> out = new LinkedHashMap<>();
    for (Host h : byKey.values()) {
      HostAddress listed = book.get(h.name());
      if (listed != null) {
        out.put(h.name(), listed);
      } else if (h.gpu()) {
        out.put(h.name(), new HostAddress(h.name(), h.name(), defaultPort));
      }
    }
    return out;
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    addressBook.close();
  }
}
