package io.stunwatch.model.json.fast;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializationConfig;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.jsonFormatVisitors.JsonFormatVisitorWrapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.BeanSerializerModifier;
import com.fasterxml.jackson.databind.ser.ContextualSerializer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * A fast path for the one timestamp form on this bus, {@code 2026-11-20T10:00:00.125Z} (what
 * {@link java.time.format.DateTimeFormatter#ISO_INSTANT} writes), in front of the Java-time module's
 * {@link Instant} serializer and deserializer.
 *
 * <p>Every event carries timestamps, and the module's formatter-based code took about a microsecond per timestamp
 * each way: a third of rendering a migration row (three timestamps) and a large part of decoding a GPU sample.
 *
 * <p>The output is byte for byte what the module writes; a year outside 0000 to 9999 is written by the module.
 * A string of exactly that form with valid fields is parsed here; anything else (an offset, a leap second, a
 * number, a malformed string) goes to the module's deserializer, so what is accepted and what is rejected, with
 * which message, does not change. Both wrap the module's own (contextual) instances, so annotations and features
 * keep working through them.
 */
public final class IsoInstants {

  private IsoInstants() {
  }

  /** The module: register it after {@code JavaTimeModule}, whose Instant handlers it wraps. */
  public static SimpleModule module() {
    SimpleModule m = new SimpleModule("stunwatch-iso-instants");
    m.setSerializerModifier(new BeanSerializerModifier() {
      @Override
      @SuppressWarnings("unchecked")
      public JsonSerializer<?> modifySerializer(SerializationConfig config, BeanDescription desc,
          JsonSerializer<?> serializer) {
        return desc.getBeanClass() == Instant.class && !(serializer instanceof Writer)
            ? new Writer((JsonSerializer<Instant>) serializer) : serializer;
      }
    });
    m.setDeserializerModifier(new BeanDeserializerModifier() {
      @Override
      @SuppressWarnings("unchecked")
      public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription desc,
          JsonDeserializer<?> deserializer) {
        return desc.getBeanClass() == Instant.class && !(deserializer instanceof Reader)
            ? new Reader((JsonDeserializer<Instant>) deserializer) : deserializer;
      }
    });
    return m;
  }

  /**
   * {@code instant} as ISO_INSTANT writes it, or null when its year is outside 0000 to 9999 (ISO_INSTANT then
   * adds a sign or more digits).
   */
  static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    long day = Math.floorDiv(seconds, 86_400);
    int secondOfDay = (int) Math.floorMod(seconds, 86_400);
    if (day < MIN_DAY || day > MAX_DAY) {
      return null;
    }
    LocalDate date = LocalDate.ofEpochDay(day);
    int nano = instant.getNano();
    int digits = nano == 0 ? 0 : nano % 1_000_000 == 0 ? 3 : nano % 1_000 == 0 ? 6 : 9;
    char[] c = new char[20 + (digits == 0 ? 0 : digits + 1)];
    put(c, 0, date.getYear(), 4);
    c[4] = '-';
    put(c, 5, date.getMonthValue(), 2);
    c[7] = '-';
    put(c, 8, date.getDayOfMonth(), 2);
    c[10] = 'T';
    put(c, 11, secondOfDay / 3600, 2);
    c[13] = ':';
    put(c, 14, secondOfDay / 60 % 60, 2);
    c[16] = ':';
    put(c, 17, secondOfDay % 60, 2);
    int at = 19;
    if (digits > 0) {
      c[at++] = '.';
      put(c, at, nano / pow10(9 - digits), digits);
      at += digits;
    }
    c[at] = 'Z';
    return new String(c);
  }

  /**
   * The instant of {@code s} when it is exactly {@code yyyy-MM-ddTHH:mm:ss[.f{1,9}]Z} with valid fields, else null.
   */
  static Instant parse(String s) {
    int n = s.length();
    if (n < 20 || n > 30) {
      return null;
    }
    for (int i = 0; i < n; i++) {
      if (s.charAt(i) > 0x7F) {
        return null; // the form is ASCII (and a non-ASCII char would not be one byte)
      }
    }
    return parse(s.getBytes(StandardCharsets.US_ASCII), 0, n);
  }

  /** {@link #parse(String)} of the {@code n} ASCII bytes from {@code at}, with no string made of them. */
  static Instant parse(byte[] b, int at, int n) {
    if (n < 20 || n > 30 || b[at + 4] != '-' || b[at + 7] != '-' || b[at + 10] != 'T' || b[at + 13] != ':'
        || b[at + 16] != ':' || b[at + n - 1] != 'Z') {
      return null;
    }
    int year = digits(b, at, 4);
    int month = digits(b, at + 5, 2);
    int dayOfMonth = digits(b, at + 8, 2);
    int hour = digits(b, at + 11, 2);
    int minute = digits(b, at + 14, 2);
    int second = digits(b, at + 17, 2);
    if (year < 0 || month < 1 || month > 12 || dayOfMonth < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59
        || second < 0 || second > 59) {
      return null;
    }
    int nano = 0;
    if (n > 20) {
      int fraction = n - 21;
      if (b[at + 19] != '.' || fraction < 1 || fraction > 9) {
        return null;
      }
      int f = digits(b, at + 20, fraction);
      if (f < 0) {
        return null;
      }
      nano = f * pow10(9 - fraction);
    }
    try {
      long day = LocalDate.of(year, month, dayOfMonth).toEpochDay();
      return Instant.ofEpochSecond(day * 86_400 + hour * 3600L + minute * 60L + second, nano);
    } catch (DateTimeException e) {
      return null; // 31 April, 29 February of a common year: the module says why
    }
  }

  /** Whether a property's format is the default one, which the fast path writes and reads. */
  private static boolean plain(JsonFormat.Value format) {
    return format == null || format.equals(JsonFormat.Value.empty());
  }

  private static final long MIN_DAY = LocalDate.of(0, 1, 1).toEpochDay();
  private static final long MAX_DAY = LocalDate.of(9999, 12, 31).toEpochDay();

  private static void put(char[] c, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      c[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /** The decimal value of {@code count} digits at {@code from}, or -1 when one is not a digit. */
  private static int digits(byte[] b, int from, int count) {
    int v = 0;
    for (int i = from; i < from + count; i++) {
      int ch = b[i];
      if (ch < '0' || ch > '9') {
        return -1;
      }
      v = v * 10 + (ch - '0');
    }
    return v;
  }

  private static int pow10(int e) {
    int p = 1;
    for (int i = 0; i < e; i++) {
      p *= 10;
    }
    return p;
  }

  /** The module's serializer with the fast path in front. */
  private static final class Writer extends JsonSerializer<Instant> implements ContextualSerializer {
    private final JsonSerializer<Instant> module;

    Writer(JsonSerializer<Instant> module) {
      this.module = module;
    }

    @Override
    public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
      String iso = provider.isEnabled(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS) ? null : format(value);
      if (iso == null) {
        module.serialize(value, gen, provider);
      } else {
        gen.writeString(iso);
      }
    }

    @Override
    @SuppressWarnings("unchecked")
    public JsonSerializer<?> createContextual(SerializerProvider prov, BeanProperty property)
        throws JsonMappingException {
      JsonSerializer<?> c = module instanceof ContextualSerializer cs ? cs.createContextual(prov, property) : module;
      // The module makes a new instance for every property; one with its own format is left to it alone.
      return plain(property == null ? prov.getDefaultPropertyFormat(Instant.class)
          : property.findPropertyFormat(prov.getConfig(), Instant.class))
          ? new Writer((JsonSerializer<Instant>) c) : c;
    }

    @Override
    public Class<Instant> handledType() {
      return Instant.class;
    }

    @Override
    public void acceptJsonFormatVisitor(JsonFormatVisitorWrapper visitor, JavaType type)
        throws JsonMappingException {
      module.acceptJsonFormatVisitor(visitor, type); // a schema still says what the module says: a date-time string
    }
  }

  /** The module's deserializer with the fast path in front. */
  private static final class Reader extends JsonDeserializer<Instant>
      implements ContextualDeserializer, ResolvableDeserializer {
    private final JsonDeserializer<Instant> module;

    Reader(JsonDeserializer<Instant> module) {
      this.module = module;
    }

    @Override
    public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.hasToken(JsonToken.VALUE_STRING)) {
        Instant fast = parse(p.getText());
        if (fast != null) {
          return fast;
        }
      }
      return module.deserialize(p, ctxt);
    }

    @Override
    @SuppressWarnings("unchecked")
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
        throws JsonMappingException {
      JsonDeserializer<?> c = module instanceof ContextualDeserializer cd ? cd.createContextual(ctxt, property)
          : module;
      return plain(property == null ? ctxt.getDefaultPropertyFormat(Instant.class)
          : property.findPropertyFormat(ctxt.getConfig(), Instant.class))
          ? new Reader((JsonDeserializer<Instant>) c) : c;
    }

    @Override
    public void resolve(DeserializationContext ctxt) throws JsonMappingException {
      if (module instanceof ResolvableDeserializer r) {
        r.resolve(ctxt);
      }
    }

    @Override
    public Class<?> handledType() {
      return Instant.class;
    }

    @Override
    public Instant getNullValue(DeserializationContext ctxt) throws JsonMappingException {
      return module.getNullValue(ctxt);
    }
  }
}
