package io.stunwatch.model.json.fast;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.stunwatch.model.json.JsonSerde;
import java.lang.annotation.Annotation;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the plain cases of one record type straight from the payload's tokens ({@link PlainTokens}), without
 * Jackson's data binding, and declines everything else, which {@link JsonSerde} then decodes with the data binding.
 *
 * <p>Contract: {@link #read} returns exactly the value the data binding would (the record's own constructor builds
 * it, so its checks run), or {@link #DECLINED}; it never fails on its own. It takes only what has one meaning:
 * <ul>
 *   <li>strings from JSON strings; enums from their exact constant name; {@link Instant}s of the form
 *       {@link IsoInstants#parse} reads;</li>
 *   <li>{@code int} from a JSON integer that fits, {@code long} likewise, {@code double} from a JSON number, booleans
 *       from {@code true} and {@code false};</li>
 *   <li>nested records of the same kind, {@code Map<String, V>} as a {@link LinkedHashMap}, {@code List<V>} as an
 *       {@link ArrayList}; JSON {@code null} for any reference type, and an absent field as null;</li>
 *   <li>unknown fields with a scalar value, which are skipped.</li>
 * </ul>
 * It declines a duplicate field (which it detects itself, by component bit, rather than with a hash set per object
 * as Jackson's parser does), malformed JSON ({@link PlainTokens} declines it), an unknown field with a structured
 * value (whose insides it would otherwise have to check for duplicates), an absent or null primitive, a constructor
 * that throws, and any other token. A type with a component it cannot read, or with a Jackson annotation anywhere,
 * gets no reader at all ({@link #of} returns null).
 *
 * @param <T> the record type
 */
public final class RecordReader<T> {

  /** What {@link #read} returns for a payload it leaves to the data binding. */
  public static final Object DECLINED = new Object();

  /**
   * Thrown through the nested readers (and by {@link PlainTokens}) to unwind to {@link #read}; shared and stackless,
   * as it is control flow.
   */
  public static final RuntimeException DECLINE = new Declined();

  private final RecordFields<T> root;

  private RecordReader(RecordFields<T> root) {
    this.root = root;
  }

  /** A reader for {@code type}, or null when some part of it is outside the plain cases. */
  public static <T> RecordReader<T> of(Class<T> type) {
    RecordFields<T> r = recordReader(type, new HashMap<>());
    return r == null ? null : new RecordReader<>(r);
  }

  /**
   * Reads the rest of the top-level object: the tokens stand on the schema version's value. Returns the record or
   * {@link #DECLINED}, for malformed JSON too.
   */
  public Object read(PlainTokens p) {
    try {
      return root.readFields(p, JsonSerde.VERSION_FIELD);
    } catch (Declined d) {
      return DECLINED;
    }
  }

  private static final class Declined extends RuntimeException {
    Declined() {
      super("declined", null, false, false);
    }
  }

  /** Reads one value whose first token has just been read. */
  private interface ValueReader {
    Object read(PlainTokens p, JsonToken t);
  }

  private static final ValueReader STRING = RecordReader::string;
  private static final ValueReader INSTANT = RecordReader::instant;
  private static final ValueReader INT = RecordReader::intValue;
  private static final ValueReader LONG = RecordReader::longValue;
  private static final ValueReader DOUBLE = RecordReader::doubleValue;
  private static final ValueReader BOOLEAN = RecordReader::booleanValue;
  /** The scalar readers in the order of their kinds in {@link RecordFields#read(int, PlainTokens, JsonToken)}. */
  private static final List<ValueReader> SCALARS = List.of(STRING, INSTANT, INT, LONG, DOUBLE, BOOLEAN);

  private static Object string(PlainTokens p, JsonToken t) {
    return t == JsonToken.VALUE_STRING ? p.getText() : orNull(t);
  }

  private static Object instant(PlainTokens p, JsonToken t) {
    if (t == JsonToken.VALUE_STRING) {
      Instant i = p.getInstant();
      if (i != null) {
        return i;
      }
      throw DECLINE;
    }
    return orNull(t);
  }

  private static Object intValue(PlainTokens p, JsonToken t) {
    if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT) {
      return p.getIntValue();
    }
    return orNull(t);
  }

  private static Object longValue(PlainTokens p, JsonToken t) {
    if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      return p.getLongValue();
    }
    return orNull(t);
  }

  private static Object doubleValue(PlainTokens p, JsonToken t) {
    if (t == JsonToken.VALUE_NUMBER_FLOAT
        || t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
      return p.getDoubleValue();
    }
    return orNull(t);
  }

  private static Object booleanValue(PlainTokens p, JsonToken t) {
    return t == JsonToken.VALUE_TRUE ? Boolean.TRUE : t == JsonToken.VALUE_FALSE ? Boolean.FALSE : orNull(t);
  }

  /** Null for a JSON null (a primitive component refuses it later); anything else is not a plain case. */
  private static Object orNull(JsonToken t) {
    if (t == JsonToken.VALUE_NULL) {
      return null;
    }
    throw DECLINE;
  }

  /** The reader of a component or element type, or null when there is none. */
  private static ValueReader readerOf(Type type, Map<Class<?>, RecordFields<?>> building) {
    if (type instanceof Class<?> c) {
      if (c == String.class) {
        return STRING;
      }
      if (c == Instant.class) {
        return INSTANT;
      }
      if (c == int.class || c == Integer.class) {
        return INT;
      }
      if (c == long.class || c == Long.class) {
        return LONG;
      }
      if (c == double.class || c == Double.class) {
        return DOUBLE;
      }
      if (c == boolean.class || c == Boolean.class) {
        return BOOLEAN;
      }
      if (c.isEnum()) {
        return enumReader(c);
      }
      if (c.isRecord()) {
        return recordReader(c, building);
      }
      return null;
    }
    if (type instanceof ParameterizedType pt && pt.getRawType() instanceof Class<?> raw) {
      Type[] args = pt.getActualTypeArguments();
      if (raw == Map.class && args[0] == String.class) {
        ValueReader v = readerOf(args[1], building);
        return v == null ? null : mapReader(v);
      }
      if (raw == List.class) {
        ValueReader v = readerOf(args[0], building);
        return v == null ? null : listReader(v);
      }
    }
    return null;
  }

  private static ValueReader enumReader(Class<?> type) {
    if (jacksonAnnotated(type) || Arrays.stream(type.getDeclaredFields()).anyMatch(
        RecordReader::jacksonAnnotated)) {
      return null;
    }
    Object[] constants = type.getEnumConstants();
    byte[][] names = new byte[constants.length][];
    for (int i = 0; i < constants.length; i++) {
      names[i] = ((Enum<?>) constants[i]).name().getBytes(StandardCharsets.UTF_8);
    }
    return (p, t) -> {
      if (t == JsonToken.VALUE_STRING) {
        int i = p.textIndex(names);
        if (i >= 0) {
          return constants[i];
        }
        throw DECLINE;
      }
      return orNull(t);
    };
  }

  private static ValueReader mapReader(ValueReader values) {
    return (p, t) -> {
      if (t != JsonToken.START_OBJECT) {
        return orNull(t);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      for (JsonToken f = p.nextToken(); f == JsonToken.FIELD_NAME; f = p.nextToken()) {
        String key = p.currentName();
        if (m.containsKey(key)) {
          throw DECLINE; // a duplicate key: Jackson's own check names it
        }
        m.put(key, values.read(p, p.nextToken()));
      }
      return m;
    };
  }

  private static ValueReader listReader(ValueReader elements) {
    return (p, t) -> {
      if (t != JsonToken.START_ARRAY) {
        return orNull(t);
      }
      List<Object> l = new ArrayList<>();
      for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
        l.add(elements.read(p, e));
      }
      return l;
    };
  }

  @SuppressWarnings("unchecked")
  private static <T> RecordFields<T> recordReader(Class<T> type, Map<Class<?>, RecordFields<?>> building) {
    RecordFields<?> known = building.get(type);
    if (known != null) {
      return (RecordFields<T>) known; // a recursive type: the reader being built serves its own components
    }
    RecordComponent[] components = type.getRecordComponents();
    if (components.length > Long.SIZE || jacksonAnnotated(type) || !Modifier.isPublic(type.getModifiers())) {
      return null;
    }
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (jacksonAnnotated(c)) {
        return null;
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (jacksonAnnotated(m)) {
        return null;
      }
    }
    Class<?>[] types = new Class<?>[components.length];
    String[] names = new String[components.length];
    long primitives = 0;
    for (int i = 0; i < components.length; i++) {
      if (jacksonAnnotated(components[i])) {
        return null;
      }
      types[i] = components[i].getType();
      names[i] = components[i].getName();
      if (types[i].isPrimitive()) {
        primitives |= 1L << i;
      }
    }
    Constructor<T> constructor;
    try {
      constructor = type.getDeclaredConstructor(types);
    } catch (NoSuchMethodException e) {
      return null;
    }
    try {
      // Skips the access check that each newInstance otherwise makes (a twentieth of a GPU sample's decoding).
      constructor.setAccessible(true);
    } catch (RuntimeException e) {
      // not ours to open (a module says no): each call checks access, as before
    }
    RecordFields<T> r = new RecordFields<>(constructor, names, primitives, components.length);
    building.put(type, r);
    for (int i = 0; i < components.length; i++) {
      ValueReader v = readerOf(components[i].getGenericType(), building);
      if (v == null) {
        building.remove(type);
        return null;
      }
      r.set(i, v);
    }
    return r;
  }

  private static boolean jacksonAnnotated(AnnotatedElement e) {
    for (Annotation a : e.getAnnotations()) {
      if (a.annotationType().getName().startsWith("com.fasterxml.jackson.")) {
        return true;
      }
    }
    return false;
  }

  /** Reads one record from its object's fields. */
  private static final class RecordFields<T> implements ValueReader {
    private final Constructor<T> constructor;
    /** The components' names as bytes, matched against a field's raw name (see {@link PlainTokens#nameIndex}). */
    private final byte[][] names;
    /** The components' names as {@link PlainTokens#nextFieldIs} matches them. */
    private final byte[][] patterns;
    private final ValueReader[] values;
    /** Per component, the index of its reader in {@link #SCALARS}, or -1 for a reader called through its interface. */
    private final int[] kinds;
    private final long primitives;

    RecordFields(Constructor<T> constructor, String[] names, long primitives, int n) {
      this.constructor = constructor;
      this.names = new byte[n][];
      this.patterns = new byte[n][];
      for (int i = 0; i < n; i++) {
        this.names[i] = names[i].getBytes(StandardCharsets.UTF_8);
        this.patterns[i] = JsonStrings.fieldPattern(names[i]);
      }
      this.values = new ValueReader[n];
      this.kinds = new int[n];
      this.primitives = primitives;
    }

    void set(int i, ValueReader reader) {
      values[i] = reader;
      kinds[i] = SCALARS.indexOf(reader);
    }

    /**
     * Component {@code i}'s value. A scalar's reader is called directly: through the interface, the call site sees
     * every kind of reader, and its dispatch stubs were 6-7 % of the decoding time in a profile.
     */
    private Object read(int i, PlainTokens p, JsonToken t) {
      return switch (kinds[i]) {
        case 0 -> string(p, t);
        case 1 -> instant(p, t);
        case 2 -> intValue(p, t);
        case 3 -> longValue(p, t);
        case 4 -> doubleValue(p, t);
        case 5 -> booleanValue(p, t);
        default -> values[i].read(p, t);
      };
    }

    @Override
    public Object read(PlainTokens p, JsonToken t) {
      if (t != JsonToken.START_OBJECT) {
        return orNull(t);
      }
      return readFields(p, null);
    }

    /** Whether the next token is component {@code i}'s name, read if so ({@link PlainTokens#nextFieldIs}). */
    private boolean nextIs(PlainTokens p, int i) {
      return i < patterns.length && p.nextFieldIs(patterns[i]);
    }

    /**
     * Reads the object's fields, from the token after the one the tokens stand on, to the end of the object.
     *
     * @param seenAlready a field name the caller has read already (the schema version), or null
     */
    Object readFields(PlainTokens p, String seenAlready) {
      Object[] args = new Object[names.length];
      long seen = 0;
      // unknown names, to refuse a repeated one as the binding does: a set, so that a record padded with many
      // costs in proportion to its size
      Set<String> unknown = null;
      int expected = 0;
      // The next field is nearly always the one after the last, written compactly: matched whole, it is known
      // without a lookup (matched); anything else is read token by token.
      int matched = nextIs(p, 0) ? 0 : -1;
      JsonToken t = matched >= 0 ? JsonToken.FIELD_NAME : p.nextToken();
      while (t == JsonToken.FIELD_NAME) {
        int i = matched >= 0 ? matched : p.nameIndex(names, expected);
        if (i >= 0) {
          JsonToken v = p.nextToken();
          long bit = 1L << i;
          if ((seen & bit) != 0) {
            throw DECLINE;
          }
          seen |= bit;
          args[i] = read(i, p, v);
          expected = i + 1 == names.length ? 0 : i + 1;
        } else {
          String name = p.currentName();
          JsonToken v = p.nextToken();
          if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY || name.equals(seenAlready)) {
            throw DECLINE;
          }
          if (unknown == null) {
            unknown = new HashSet<>();
          }
          if (!unknown.add(name)) {
            throw DECLINE;
          }
        }
        matched = nextIs(p, expected) ? expected : -1;
        t = matched >= 0 ? JsonToken.FIELD_NAME : p.nextToken();
      }
      if (t != JsonToken.END_OBJECT) {
        throw DECLINE;
      }
      long primitivesSet = 0;
      for (int i = 0; i < args.length; i++) {
        if (args[i] != null) {
          primitivesSet |= 1L << i;
        }
      }
      if ((primitivesSet & primitives) != primitives) {
        throw DECLINE; // an absent or null primitive: the data binding's error says which
      }
      try {
        return constructor.newInstance(args);
      } catch (ReflectiveOperationException | IllegalArgumentException e) {
        throw DECLINE; // the record's own check failed: the data binding reports it in its usual words
      }
    }

  }
}
