package io.stunwatch.model.json;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Names a bus message type and its schema version.
 *
 * <p>The version is the <em>major</em> version written as field {@code "v"} of every encoded message. Additive
 * changes (a new optional field) keep the version, because readers ignore fields they do not know. A change that
 * removes, renames or re-types a field raises it; a reader then rejects the newer messages as dead letters instead
 * of misreading them.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Schema {

  /** Short stable name of the message type, such as {@code gpu-sample}; used in errors and docs. */
  String name();

  /** Current major version written by this build. */
  int version() default 1;

  /** Oldest major version this build still reads. */
  int minVersion() default 1;
}
