package io.stunwatch.model.json;

/**
 * A payload that is not a valid encoding of the expected message type.
 *
 * <p>{@link #reason()} is a one-line explanation meant for operators (no stack trace needed to understand it).
 * It says nothing about where the payload came from: callers that know the topic, partition and offset wrap it,
 * see {@link io.stunwatch.model.topic.RecordDecodeException}.
 */
public final class SchemaException extends RuntimeException {

  private final String reason;

  public SchemaException(String reason, Throwable cause) {
    super(reason, cause);
    this.reason = reason;
  }

  public SchemaException(String reason) {
    this(reason, null);
  }

  /** Why the payload was rejected, in one line. */
  public String reason() {
    return reason;
  }
}
