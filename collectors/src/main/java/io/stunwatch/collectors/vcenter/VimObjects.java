package io.stunwatch.collectors.vcenter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns vim25 data objects of a SOAP binding (any bean-style binding: yavijava today, the official SDK later) into
 * the VI/JSON tree {@link VimEventMapper} reads: {@code _typeName} from the class name, camelCase properties from the
 * getters, ManagedObjectReferences as {@code {"type","value"}}, calendars as ISO-8601 UTC.
 */
public final class VimObjects {

  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final int MAX_DEPTH = 10;
  private static final Map<Class<?>, Method[]> GETTERS = new ConcurrentHashMap<>();

  private VimObjects() {
  }

  /** The VI/JSON tree of a data object. */
  public static JsonNode toViJson(Object o) {
    return convert(o, 0);
  }

  private static JsonNode convert(Object o, int depth) {
    if (o == null) {
      return F.nullNode();
    }
    if (o instanceof String s) {
      return F.textNode(s);
    }
    if (o instanceof Boolean b) {
      return F.booleanNode(b);
    }
    if (o instanceof Integer || o instanceof Long || o instanceof Short || o instanceof Byte) {
      return F.numberNode(((Number) o).longValue());
    }
    if (o instanceof Number n) {
      return F.numberNode(n.doubleValue());
    }
    if (o instanceof Enum<?> e) {
      return F.textNode(e.toString());
    }
    if (o instanceof Calendar c) {
      return F.textNode(c.toInstant().toString());
    }
    if (o.getClass().isArray()) {
      ArrayNode a = F.arrayNode();
      for (int i = 0; i < Array.getLength(o); i++) {
        a.add(convert(Array.get(o, i), depth + 1));
      }
      return a;
    }
    ObjectNode node = F.objectNode();
    String type = o.getClass().getSimpleName();
    node.put("_typeName", type);
    if (type.equals("ManagedObjectReference")) {
      node.put("type", (String) invoke(o, "getType"));
      node.put("value", (String) invoke(o, "getVal"));
      return node;
    }
    if (depth >= MAX_DEPTH) {
      return node;
    }
    for (Method m : getters(o.getClass())) {
      Object v = invoke(o, m);
      if (v != null) {
        node.set(property(m.getName()), convert(v, depth + 1));
      }
    }
    return node;
  }

  private static Method[] getters(Class<?> c) {
    return GETTERS.computeIfAbsent(c, k -> Arrays.stream(k.getMethods())
        .filter(m -> m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers()))
        .filter(m -> (m.getName().startsWith("get") && m.getName().length() > 3)
            || (m.getName().startsWith("is") && m.getName().length() > 2 && m.getReturnType() == boolean.class))
        .filter(m -> !m.getName().equals("getClass") && m.getDeclaringClass() != Object.class)
        .sorted(Comparator.comparing(Method::getName))
        .toArray(Method[]::new));
  }

  private static String property(String getter) {
    String p = getter.startsWith("is") ? getter.substring(2) : getter.substring(3);
    return Character.toLowerCase(p.charAt(0)) + p.substring(1);
  }

  private static Object invoke(Object o, String name) {
    try {
      return invoke(o, o.getClass().getMethod(name));
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  private static Object invoke(Object o, Method m) {
    try {
      return m.invoke(o);
    } catch (IllegalAccessException | InvocationTargetException e) {
      return null; // a getter that throws has no value worth reporting
    }
  }
}
