package io.stunwatch.model;

import io.stunwatch.model.json.Schema;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

/**
 * A record that could not be decoded or processed, kept with the reason instead of being dropped. Keyed by the
 * source topic name.
 *
 * @param sourceTopic     topic the record was read from
 * @param partition       its partition
 * @param offset          its offset
 * @param recordTimestamp its Kafka timestamp
 * @param keyBase64       its key bytes, Base64; absent for a null key
 * @param valueBase64     its value bytes, Base64; absent for a null value
 * @param valuePreview    the start of the value as UTF-8 text (at most {@value #PREVIEW_CHARS} characters), when it
 *                        is valid UTF-8
 * @param stage           where it failed
 * @param reason          why, in one line
 * @param component       which component rejected it, e.g. {@code stream-processor}
 * @param failedAt        when it was rejected (wall clock)
 */
@Schema(name = "dead-letter")
public record DeadLetter(
    String sourceTopic,
    int partition,
    long offset,
    Instant recordTimestamp,
    String keyBase64,
    String valueBase64,
    String valuePreview,
    Stage stage,
    String reason,
    String component,
    Instant failedAt) {

  /** Length of {@link #valuePreview()}. */
  public static final int PREVIEW_CHARS = 200;

  public DeadLetter {
    Checks.requiredText(sourceTopic, "sourceTopic");
    Checks.required(stage, "stage");
    Checks.requiredText(reason, "reason");
    Checks.requiredText(component, "component");
    Checks.required(failedAt, "failedAt");
  }

  /** Builds a dead letter from a raw record's coordinates and bytes. */
  public static DeadLetter of(String topic, int partition, long offset, Instant recordTimestamp, byte[] key,
      byte[] value, Stage stage, String reason, String component, Instant failedAt) {
    return new DeadLetter(topic, partition, offset, recordTimestamp, base64(key), base64(value), preview(value),
        stage, reason, component, failedAt);
  }

  private static String base64(byte[] bytes) {
    return bytes == null ? null : Base64.getEncoder().encodeToString(bytes);
  }

  private static String preview(byte[] value) {
    if (value == null) {
      return null;
    }
    try {
      String text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(value))
          .toString();
      return text.length() <= PREVIEW_CHARS ? text : text.substring(0, PREVIEW_CHARS);
    } catch (CharacterCodingException e) {
      return null; // binary garbage: the Base64 copy is the faithful one
    }
  }

  /** Where a record failed. */
  public enum Stage {
    /** Its bytes were not a valid message of the topic's schema. */
    DESERIALIZATION,
    /** It decoded, but processing it failed. */
    PROCESSING
  }
}
