package io.stunwatch.model.topic;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.stunwatch.logging.LogLimiter;
import io.stunwatch.model.DeadLetter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DecodeFailureHandlerTest {

  private final ConsumerRecord<byte[], byte[]> raw =
      new ConsumerRecord<>("stunwatch.gpu-samples", 1, 7, "k".getBytes(), new byte[] {0x01});
  private final RecordDecodeException error =
      new RecordDecodeException("stunwatch.gpu-samples", 1, 7, "value: not valid JSON", null);

  @Test
  void loggingIsCappedPerMinuteAndTheHeldBackCountIsReportedLater() {
    Logger logger = (Logger) LoggerFactory.getLogger("decode-test");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    long[] millis = {0};
    DecodeFailureHandler handler = DecodeFailureHandler.logging(logger, new LogLimiter(3, () -> millis[0]));

    for (int i = 0; i < 10; i++) {
      handler.onFailure(raw, error);
    }
    assertThat(appender.list).hasSize(3);
    millis[0] += 61_000;
    handler.onFailure(raw, error);

    assertThat(appender.list).hasSize(4);
    assertThat(appender.list.get(3).getFormattedMessage())
        .contains("partition 1, offset 7").contains("(7 more not logged since the last line)");
  }

  @Test
  void deadLetterCarriesCoordinatesReasonAndBytes() {
    MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
        new ByteArraySerializer());
    Clock clock = Clock.fixed(Instant.parse("2026-11-21T12:00:00Z"), ZoneOffset.UTC);
    DecodeFailureHandler.deadLetters(producer, "stream-processor", clock).onFailure(raw, error);

    assertThat(producer.history()).singleElement().satisfies(r -> {
      assertThat(r.topic()).isEqualTo(Topics.DEAD_LETTERS.name());
      DeadLetter d = Topics.DEAD_LETTERS.valueSerde().decode(r.value());
      assertThat(d.sourceTopic()).isEqualTo("stunwatch.gpu-samples");
      assertThat(d.partition()).isEqualTo(1);
      assertThat(d.offset()).isEqualTo(7);
      assertThat(d.reason()).isEqualTo("value: not valid JSON");
      assertThat(d.valueBase64()).isEqualTo("AQ==");
      assertThat(d.failedAt()).isEqualTo(clock.instant());
    });
  }

}
