package io.stunwatch.model.topic;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates catalog topics that do not exist yet, with their cleanup policy and retention. Existing ones are kept. */
public final class TopicProvisioner {

  private TopicProvisioner() {
  }

  /**
   * Waits until the broker's metadata gives every partition of the new topics a leader, not only lists the topics,
   * so that the first writes and offset lookups of the processes started next find them. Asking for offsets of a
   * partition the metadata does not have yet makes Kafka 4.4's admin client log an ERROR per topic; a description
   * does not.
   */
  private static void awaitLeaders(Admin admin, List<String> topics, int partitions, Duration timeout)
      throws InterruptedException, TimeoutException {
    if (topics.isEmpty()) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    String missing;
    while (true) {
      try {
        Map<String, TopicDescription> described = admin.describeTopics(topics).allTopicNames()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        missing = described.values().stream()
            .filter(d -> d.partitions().size() < partitions
                || d.partitions().stream().anyMatch(p -> p.leader() == null || p.leader().isEmpty()))
            .map(TopicDescription::name).findFirst().orElse(null);
        if (missing == null) {
          return;
        }
      } catch (ExecutionException e) {
        missing = e.getCause().getMessage(); // not in the metadata yet
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the new topics' partitions have no leader within " + timeout + ": "
            + missing);
      }
      Thread.sleep(50); // the controller is electing them: ask again shortly
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
      awaitLeaders(admin, created, partitions, timeout);
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
