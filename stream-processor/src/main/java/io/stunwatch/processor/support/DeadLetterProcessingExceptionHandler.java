package io.stunwatch.processor.support;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.DeadLetter;
import io.stunwatch.model.topic.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the application running when a processor node throws: the record is skipped, logged with its topic,
 * partition, offset and node, counted (Streams' {@code dropped-records} metric) and written to
 * {@code stunwatch.dead-letters} as a {@code PROCESSING} dead letter.
 *
 * <p>The processors with outputs catch their errors and forward dead letters inside the transaction; this handler
 * covers the nodes that only write stores (the load windows, the per-second history, RDMA rates) and the DSL nodes,
 * which have no way into the transaction, and the global stores. Its dead
 * letters are therefore written at least once by a producer of their own: a crash before the commit re-processes
 * the record and may write its dead letter twice, but never loses it.
 */
public final class DeadLetterProcessingExceptionHandler implements ProcessingExceptionHandler {

  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterProcessingExceptionHandler.class);
  private static final LogLimiter LIMIT = new LogLimiter(10);

  private final Map<String, Object> p = new HashMap<>();
  private Producer<String, byte[]> producer;

  @Override
  public void configure(Map<String, ?> configs) {
    configs.forEach((k, v) -> {
      if (ProducerConfig.configNames().contains(k) && !k.startsWith("transactional")) {
        p.put(k, v);
      }
    });
    p.put(ProducerConfig.CLIENT_ID_CONFIG, configs.get("application.id") + "-dead-letters");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
  }

  /** Created on the first failure: most runs never need it. Its I/O thread is a daemon, so it needs no close. */
  private synchronized Producer<String, byte[]> producer() {
    if (producer == null) {
      producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
    }
    return producer;
  }

  @Override
  public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
    String more = LIMIT.admit();
    if (more != null) {
      LOG.error("Skipped a record that failed in processor {} (topic {}, partition {}, offset {}); it goes to {}{}",
          context.processorNodeId(), context.topic(), context.partition(), context.offset(),
          Topics.DEAD_LETTERS.name(), more, exception);
    }
    byte[] value = record.value() instanceof byte[] b ? b : String.valueOf(record.value()).getBytes(
        StandardCharsets.UTF_8);
    DeadLetter d = DeadLetter.of(context.topic(), context.partition(), context.offset(),
        Instant.ofEpochMilli(context.timestamp()), null, value, DeadLetter.Stage.PROCESSING,
        context.processorNodeId() + ": " + exception, "stream-processor", Clock.systemUTC().instant());
    producer().send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(), context.topic(),
        Topics.DEAD_LETTERS.encodeValue(d)));
    return ProcessingHandlerResponse.CONTINUE;
  }
}
