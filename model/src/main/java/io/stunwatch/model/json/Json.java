package io.stunwatch.model.json;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.stunwatch.model.json.fast.IsoInstants;

/**
 * The one Jackson configuration used for everything on the bus and in the API.
 *
 * <ul>
 *   <li>Absent or {@code null} fields are omitted: on this bus "absent" means "unknown", never zero.</li>
 *   <li>Timestamps are ISO-8601 strings in UTC, so a human with {@code kcat} can read and write them
 *       ({@link IsoInstants} writes and reads the usual form fast).</li>
 *   <li>Unknown fields are ignored (forward compatibility for additive schema changes, see {@link Schema}).</li>
 *   <li>A missing primitive, a trailing token or a duplicate field is an error rather than a silent default.</li>
 *   <li>Doubles are written by Jackson's fast writer (the shortest string that reads back as the same double):
 *       an impact with a 600-point timeline (104 KB) took 530 us to encode with {@link Double#toString}, 290 us
 *       with it.</li>
 * </ul>
 */
public final class Json {

  private static final ObjectMapper MAPPER = configured().addModule(IsoInstants.module()).build();

  /**
   * The configuration without {@link IsoInstants}' fast path, which must not change a byte of it (its test
   * compares the two).
   */
  public static JsonMapper.Builder configured() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .serializationInclusion(JsonInclude.Include.NON_NULL)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        // the same content, the same bytes: a map's order is its keys', never a hash map's (Map.copyOf's differs from
        // one JVM to the next)
        .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
        .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
        .enable(StreamWriteFeature.USE_FAST_DOUBLE_WRITER)
        .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS);
  }

  private Json() {
  }

  /** The shared, fully configured mapper. Thread-safe; do not reconfigure it. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }
}
