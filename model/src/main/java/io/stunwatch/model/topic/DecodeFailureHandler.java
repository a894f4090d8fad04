package io.stunwatch.model.topic;

import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.DeadLetter;
import java.time.Clock;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;

/**
 * What a consumer does with a record it cannot decode, after which it moves on to the next record: a bad record
 * never stops a consumer, and is never dropped without trace.
 */
@FunctionalInterface
public interface DecodeFailureHandler {

  /** Called once per undecodable record, on the polling thread. */
  void onFailure(ConsumerRecord<byte[], byte[]> raw, RecordDecodeException error);

  /** Runs this handler, then {@code next}. */
  default DecodeFailureHandler andThen(DecodeFailureHandler next) {
    return (raw, error) -> {
      onFailure(raw, error);
      next.onFailure(raw, error);
    };
  }

  /**
   * Logs each failure at WARN with topic, partition, offset and reason, at most {@code perMinute} lines a minute;
   * the count of lines held back is logged with the next line that gets through.
   */
  static DecodeFailureHandler logging(Logger log, int perMinute) {
    return logging(log, new LogLimiter(perMinute));
  }

  /** As {@link #logging(Logger, int)}, with the limiter given. */
  static DecodeFailureHandler logging(Logger log, LogLimiter limiter) {
    return (raw, error) -> {
      String suffix = limiter.admit();
      if (suffix != null) {
        log.warn("Skipped undecodable record: {}{}", error.getMessage(), suffix);
      }
    };
  }

  /** Publishes each failure to {@link Topics#DEAD_LETTERS}, keyed by the source topic. */
  static DecodeFailureHandler deadLetters(Producer<byte[], byte[]> producer, String component, Clock clock) {
    return (raw, error) -> {
      DeadLetter letter = DeadLetter.of(raw.topic(), raw.partition(), raw.offset(),
          Instant.ofEpochMilli(raw.timestamp()), raw.key(), raw.value(), DeadLetter.Stage.DESERIALIZATION,
          error.reason(), component, clock.instant());
      producer.send(new ProducerRecord<>(Topics.DEAD_LETTERS.name(),
          Topics.DEAD_LETTERS.encodeKey(raw.topic()), Topics.DEAD_LETTERS.encodeValue(letter)));
    };
  }
}
