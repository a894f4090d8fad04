package io.stunwatch.model.topic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates catalog topics that do not exist yet, with their cleanup policy and retention. Existing ones are kept. */
public final class TopicProvisioner {

  private TopicProvisioner() {
  }

  /**
   * Waits until the broker serves every partition of the new topics, not only lists them: a producer's first batches
   * to a partition the broker has not opened yet are refused and retried, and a later batch that got in first makes
   * the broker refuse the retries as out of sequence (KAFKA-15591), which it logs as an ERROR and a transaction
   * fails on. A partition whose offsets the broker answers has its log open.
   */
  private static void awaitWritable(Admin admin, List<String> topics, int partitions, Duration timeout)
      throws InterruptedException, TimeoutException {
    if (topics.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetSpec> all = new HashMap<>();
    for (String t : topics) {
      for (int p = 0; p < partitions; p++) {
        all.put(new TopicPartition(t, p), OffsetSpec.latest());
      }
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        admin.listOffsets(all).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return;
      } catch (ExecutionException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the new topics' partitions are not served within " + timeout + ": "
              + e.getCause().getMessage(), e.getCause());
        }
        Thread.sleep(50); // the broker is opening them: ask again shortly
      }
    }
  }

  /**
   * Makes sure each topic exists.
   *
   * @return the names of the topics this call created
   * @throws IllegalStateException when the broker refuses or does not answer within {@code timeout}
   */
  public static List<String> ensure(Admin admin, Collection<Topic<?, ?>> topics, int partitions,
      short replicationFactor, Duration timeout) {
    try {
      Set<String> existing = admin.listTopics().names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      List<NewTopic> missing = topics.stream()
          .filter(t -> !existing.contains(t.name()))
          .map(t -> new NewTopic(t.name(), partitions, replicationFactor).configs(t.topicConfigs()))
          .toList();
      if (missing.isEmpty()) {
        return List.of();
      }
      CreateTopicsResult result = admin.createTopics(missing);
      List<String> created = new ArrayList<>();
      for (var e : result.values().entrySet()) {
        try {
          e.getValue().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
          created.add(e.getKey());
        } catch (ExecutionException ex) {
          if (!(ex.getCause() instanceof TopicExistsException)) { // another instance won the race: fine
            throw new IllegalStateException("cannot create topic " + e.getKey() + ": " + ex.getCause().getMessage(),
                ex.getCause());
          }
        }
      }
      awaitWritable(admin, created, partitions, timeout);
      return created;
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot list topics: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("broker did not answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics", e);
    }
  }
}
