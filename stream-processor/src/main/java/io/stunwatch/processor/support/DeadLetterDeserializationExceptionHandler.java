package io.stunwatch.processor.support;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.json.SchemaException;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a record whose value does not decode into a {@code DESERIALIZATION} dead letter on
 * {@code stunwatch.dead-letters}, keyed by the topic it was read from, and goes on with the next record. The dead
 * letter goes out through the task's own producer, in the transaction of the records around it (Kafka Streams sends
 * a handler's dead-letter records so), and the skip is counted in Streams' {@code dropped-records} metric.
 *
 * <p>The global stores' topics (the inventories, the stun model) are read by the global thread, which has no
 * transaction to add a record to: a bad value there is logged and skipped.
 */
public final class DeadLetterDeserializationExceptionHandler implements DeserializationExceptionHandler {

  /** The {@link Clock} that dates dead letters, passed in the Streams configuration; the system clock if absent. */
  public static final String CLOCK_CONFIG = "stunwatch.dead-letters.clock";

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterDeserializationExceptionHandler.class);
  private static final LogLimiter LIMIT = new LogLimiter(10);
  private static final Set<String> GLOBAL = Set.of(Topics.VM_INVENTORY.name(), Topics.HOST_INVENTORY.name(),
      Topics.STUN_MODEL.name());

  private Clock clock = Clock.systemUTC();

  @Override
  public void configure(Map<String, ?> configs) {
    if (configs.get(CLOCK_CONFIG) instanceof Clock c) {
      clock = c;
    }
  }

  @Override
  public Response handleError(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record,
      Exception exception) {
    String reason = "value: " + reasonOf(exception);
    String more = LIMIT.admit();
    if (more != null) {
      LOG.warn("A record of {} partition {} offset {} does not decode ({}); it goes to {}{}", record.topic(),
          record.partition(), record.offset(), reason, GLOBAL.contains(record.topic()) ? "no dead letter (a global "
              + "store's topic)" : Topics.DEAD_LETTERS.name(), more);
    }
    if (GLOBAL.contains(record.topic())) {
      return Response.resume();
    }
    DeadLetter d = DeadLetter.of(record.topic(), record.partition(), record.offset(),
        Instant.ofEpochMilli(record.timestamp()), record.key(), record.value(), DeadLetter.Stage.DESERIALIZATION,
        reason, "stream-processor", clock.instant());
    return Response.resume(List.of(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), null, record.timestamp(),
        record.topic().getBytes(StandardCharsets.UTF_8), Topics.DEAD_LETTERS.encodeValue(d))));
  }

  /** The schema's one-line reason when there is one, else the exception's message. */
  static String reasonOf(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SchemaException s) {
        return s.reason();
      }
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }
}
