package io.stunwatch.launcher;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.stunwatch.config.ConfigSource;
import io.stunwatch.config.KafkaClientConfig;
import io.stunwatch.model.json.Json;
import io.stunwatch.model.topic.Topic;
import io.stunwatch.model.topic.Topics;
import io.stunwatch.model.topic.TypedConsumer;
import io.stunwatch.model.topic.TypedRecord;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stunwatch tail TOPIC}: prints a Stunwatch topic's records, decoded, one JSON object per line. A record
 * that does not decode is reported on standard error with its topic, partition, offset and reason, and skipped.
 */
@Command(name = "tail", mixinStandardHelpOptions = true,
    description = {"Print the records of a Stunwatch topic as JSON lines: "
        + "{\"partition\":..,\"offset\":..,\"timestamp\":..,\"key\":..,\"value\":{..}}.",
        "Undecodable records are reported on standard error (topic, partition, offset, reason) and skipped.",
        "Reads outside any consumer group; commits nothing."})
final class TailCommand implements Callable<Integer> {

  private final LaunchContext ctx;

  @Mixin
  ConfigOption config;

  @Parameters(index = "0", paramLabel = "TOPIC", completionCandidates = TopicNames.class,
      description = "Topic name: ${COMPLETION-CANDIDATES}")
  String topicName;

  @Mixin
  KafkaOption kafkaOption;

  @Option(names = "--from-beginning", description = "Start at the oldest record instead of the newest.")
  boolean fromBeginning;

  @Option(names = "--max", paramLabel = "N", description = "Exit after N records have been printed.")
  Long max;

  @Option(names = "--idle-exit", paramLabel = "DURATION",
      description = "Exit once no record arrived for this long, e.g. PT5S. Default: run until stopped.")
  Duration idleExit;

  @Spec
  CommandSpec spec;

  TailCommand(LaunchContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws IOException {
    Topic<?, ?> topic = Topics.byName(topicName).orElseThrow(() -> new ParameterException(
        spec.commandLine(), "unknown topic '" + topicName + "'; Stunwatch topics are: "
        + Topics.ALL.stream().map(Topic::name).collect(Collectors.joining(", "))));
    ConfigSource source = kafkaOption.apply(config.load(ctx));
    KafkaClientConfig kafka = KafkaClientConfig.from(source);
    kafka.checkLogin(KafkaClientConfig.LOGIN_CHECK_TIMEOUT);
    try {
      return tail(topic, kafka);
    } catch (AuthorizationException e) {
      String who = kafka.principalDescription();
      throw new IllegalStateException((who == null ? "this client" : who) + " is not authorized to read "
          + topic.name() + " (the brokers' ACLs): " + e.getMessage(), e);
    }
  }

  private <K, V> int tail(Topic<K, V> topic, KafkaClientConfig kafka) throws IOException {
    Map<String, Object> props = new HashMap<>(kafka.clientProperties());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    long printed = 0;
    try (TypedConsumer<K, V> consumer = TypedConsumer.create(topic, props, (raw, error) -> {
      ctx.err().println("stunwatch tail: skipped undecodable record: " + error.getMessage());
      ctx.err().flush();
    })) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer.raw().partitionsFor(topic.name(), Duration.ofSeconds(30))
          .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
      consumer.raw().assign(partitions);
      if (fromBeginning) {
        consumer.raw().seekToBeginning(partitions);
      } else {
        consumer.raw().seekToEnd(partitions);
      }
      long lastActivity = System.nanoTime();
      while (max == null || printed < max) {
        long seenBefore = consumer.decodedCount() + consumer.decodeFailures();
        for (TypedRecord<K, V> r : consumer.poll(Duration.ofMillis(200))) {
          if (max != null && printed >= max) {
            break;
          }
          print(topic, r);
          printed++;
        }
        if (consumer.decodedCount() + consumer.decodeFailures() > seenBefore) {
          lastActivity = System.nanoTime();
        } else if (idleExit != null && System.nanoTime() - lastActivity > idleExit.toNanos()) {
          break;
        }
      }
      ctx.err().println("stunwatch tail: " + printed + " records printed, " + consumer.decodeFailures()
          + " undecodable skipped");
      ctx.err().flush();
    }
    return ExitCodes.OK;
  }

  private <K, V> void print(Topic<K, V> topic, TypedRecord<K, V> r) throws IOException {
    ObjectNode line = Json.mapper().createObjectNode();
    line.put("partition", r.partition());
    line.put("offset", r.offset());
    line.put("timestamp", r.timestamp().toString());
    if (r.key() == null) {
      line.putNull("key");
    } else {
      line.put("key", String.valueOf(r.key()));
    }
    if (r.value() == null) {
      line.putNull("value");
    } else {
      line.set("value", Json.mapper().readTree(topic.encodeValue(r.value())));
    }
    ctx.out().println(Json.mapper().writeValueAsString(line));
    ctx.out().flush();
  }

  /** Topic names for help and shell completion. */
  static final class TopicNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Topics.ALL.stream().map(Topic::name).iterator();
    }
  }
}
