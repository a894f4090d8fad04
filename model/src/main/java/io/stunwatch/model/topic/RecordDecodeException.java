package io.stunwatch.model.topic;

import org.apache.kafka.common.errors.SerializationException;

/**
 * A record whose bytes are not a valid message of its topic. The message names the topic, partition, offset and
 * reason, so the record can be found with {@code kcat -t TOPIC -p PARTITION -o OFFSET -c 1}.
 */
public final class RecordDecodeException extends SerializationException {

  private final String topic;
  private final int partition;
  private final long offset;
  private final String reason;

  public RecordDecodeException(String topic, int partition, long offset, String reason, Throwable cause) {
    super("cannot decode record at topic " + topic + ", partition " + partition + ", offset " + offset + ": "
        + reason, cause);
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
    this.reason = reason;
  }

  public String topic() {
    return topic;
  }

  public int partition() {
    return partition;
  }

  public long offset() {
    return offset;
  }

  /** Why it could not be decoded, without the coordinates. */
  public String reason() {
    return reason;
  }
}
